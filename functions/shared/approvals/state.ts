// The approval state of a merge request (ee/app/models/approval_state.rb, approval_wrapped_rule.rb),
// computed from the rules that apply (the merge request's own when it overrides the project's), the
// project's settings, the approvals given and the committers. `approvalState` is pure; `loadApprovalState`
// reads its inputs.
import type { Executor } from "../../kernel/db";
import type { Actor } from "../../kernel/env";
import { refMatches } from "../protected_branches/rules";
import type { UserBasicRow } from "../../entities/users";
import * as r from "./read";
import type { Approval, ApprovalSettings as Settings, ApprovalState, RuleDetails, WrappedRule } from "../../entities/approvals";

export type { ApprovalState, WrappedRule };

export type MergeRequestLike = {
  authorId: number | null;
  targetBranch: string;
  state: string;
  /** The merge request's own `approvals_before_merge` (`POST …/approvals`), null when never set. */
  approvalsBeforeMerge?: number | null;
};

/**
 * ApprovalMergeRequestFallback#approvals_required: the merge request's own `approvals_before_merge` when
 * the project lets merge requests override (never fewer than the project's), else the project's.
 */
export function fallbackApprovalsRequired(mr: MergeRequestLike, settings: Settings): number {
  if (canOverride(settings) && mr.approvalsBeforeMerge != null) return Math.max(mr.approvalsBeforeMerge, settings.approvalsBeforeMerge);
  return settings.approvalsBeforeMerge;
}

/** A rule applies to the merge request when it names no protected branch or one matching the target branch. */
export function appliesTo(rule: RuleDetails, targetBranch: string): boolean {
  return rule.protectedBranches.length === 0 || rule.protectedBranches.some((p) => refMatches(p.name, targetBranch));
}

/** `Project#can_override_approvers?`. */
export const canOverride = (settings: Settings) => !settings.disableOverridingApproversPerMergeRequest;

/**
 * ApprovalState#approval_rules_overwritten?: the project lets merge requests override its rules and the
 * merge request has a rule of its own (made without a project rule, or changed from it).
 */
export function rulesOverwritten(settings: Settings, mergeRequestRules: RuleDetails[]): boolean {
  return canOverride(settings) && mergeRequestRules.some((rule) => !rule.sourceRule || rule.overridden);
}

export function approvalState(
  mr: MergeRequestLike,
  settings: Settings,
  input: { projectRules: RuleDetails[]; mergeRequestRules: RuleDetails[]; committerIds: number[] },
  given: Approval[],
): ApprovalState {
  const overwritten = rulesOverwritten(settings, input.mergeRequestRules);
  const rules = overwritten ? input.mergeRequestRules : input.projectRules.filter((rule) => appliesTo(rule, mr.targetBranch));
  const approverIds = new Set(given.map((a) => a.userId));
  const committers = new Set(settings.mergeRequestsDisableCommittersApproval ? input.committerIds : []);
  // ApprovalWrappedRule#filter_approvers: the author unless authors may approve, committers when excluded.
  const selfFilter = (users: UserBasicRow[]) =>
    users.filter((u) => (settings.mergeRequestsAuthorApproval || u.id !== mr.authorId) && !committers.has(u.id));
  const wrapped = rules.map((rule): WrappedRule => {
    const anyApprover = rule.ruleType === "any_approver";
    const approvers = anyApprover ? [] : selfFilter(rule.eligibleApprovers);
    const approvedBy = anyApprover ? given.map((a) => a.user) : rule.eligibleApprovers.filter((u) => approverIds.has(u.id));
    const invalid = !anyApprover && rule.approvalsRequired > 0 && approvers.length === 0;
    // ApprovalWrappedRule: an invalid rule fails open (it would block the merge request forever).
    const approvalsLeft = invalid ? 0 : Math.max(rule.approvalsRequired - approvedBy.length, 0);
    return { rule, approvers, approvedBy, approvalsLeft, approved: approvalsLeft === 0, invalid };
  });
  const base = { overwritten, approvedBy: given, excludedCommitters: [...committers] };
  if (wrapped.length === 0) {
    const required = fallbackApprovalsRequired(mr, settings);
    const left = Math.max(required - given.length, 0);
    return { ...base, rules: [], fallback: true, approvalsRequired: required, approvalsLeft: left, approved: left === 0 };
  }
  const approvalsRequired = wrapped.reduce((sum, w) => sum + w.rule.approvalsRequired, 0);
  const approvalsLeft = wrapped.reduce((sum, w) => sum + w.approvalsLeft, 0);
  return { ...base, rules: wrapped, fallback: false, approvalsRequired, approvalsLeft, approved: wrapped.every((w) => w.approved) };
}

/**
 * ApprovalState#eligible_for_approval_by?: a signed-in user who has not approved yet, on an open merge
 * request, who is an approver of one of its rules (`unactioned_approvers`), or, when anyone may approve (no regular rules, an
 * any-approver rule, or the rules already met), has developer access. The author only when the
 * project lets authors approve; a committer not when the project excludes committers.
 */
export function canApprove(state: ApprovalState, mr: MergeRequestLike, settings: Settings, actor: Actor | null, accessLevel: number): boolean {
  if (!actor) return false;
  if (mr.state !== "opened") return false;
  const userId = actor.user.id;
  if (state.approvedBy.some((a) => a.userId === userId)) return false;
  if (userId === mr.authorId && !settings.mergeRequestsAuthorApproval) return false;
  if (state.excludedCommitters.includes(userId)) return false;
  if (state.rules.some((w) => w.approvers.some((u) => u.id === userId))) return true;
  const regular = state.rules.filter((w) => w.rule.ruleType !== "any_approver");
  const anyApproverAllowed = regular.length === 0 || state.rules.some((w) => w.rule.ruleType === "any_approver") || state.approved;
  return anyApproverAllowed && (actor.isAdmin || accessLevel >= 30);
}

/** The approvers still waited for (ApprovalState#suggested_approvers): unapproved eligible users of unmet rules. */
export function suggestedApprovers(state: ApprovalState): UserBasicRow[] {
  const approved = new Set(state.approvedBy.map((a) => a.userId));
  const out = new Map<number, UserBasicRow>();
  for (const w of state.rules) if (!w.approved) for (const u of w.approvers) if (!approved.has(u.id)) out.set(u.id, u);
  return [...out.values()].sort((a, b) => a.id - b.id);
}

export type LoadedApprovals = { settings: Settings; state: ApprovalState; mergeRequestRules: RuleDetails[] };

type LoadableMergeRequest = MergeRequestLike & { id: number; sourceProjectId: number; sourceBranch: string };

/**
 * Everything an approval state needs, in a fixed number of statements: the settings, the merge
 * request's own rules, the project's rules (when the merge request's do not replace them), the
 * approvals (voided ones removed first, see `listApprovals`), and the committers when they are excluded.
 */
export async function loadApprovalState(
  db: Executor,
  actor: Actor | null,
  project: { id: number; poolId: number | null; defaultBranch: string | null },
  mr: LoadableMergeRequest,
): Promise<LoadedApprovals> {
  const settings = await r.getSettings(db, project.id);
  const mergeRequestRules = await r.withMergeRequestRuleDetails(db, actor, project.id, await r.listMergeRequestRules(db, mr.id));
  const projectRules = rulesOverwritten(settings, mergeRequestRules) ? [] : await r.withDetails(db, actor, project.id, await r.listRules(db, project.id));
  const given = await r.listApprovals(db, mr, { resetOnPush: settings.resetApprovalsOnPush });
  const committerIds = settings.mergeRequestsDisableCommittersApproval ? await r.committerIds(db, project, mr) : [];
  const state = approvalState(mr, settings, { projectRules, mergeRequestRules, committerIds }, given);
  return { settings, state, mergeRequestRules };
}

/**
 * `approved?` alone, for merging and `detailed_merge_status`: one statement when no rule and no project
 * setting asks for approvals (then it is approved, whatever was given), the whole state otherwise.
 */
export async function isApproved(
  db: Executor,
  actor: Actor | null,
  project: { id: number; poolId: number | null; defaultBranch: string | null },
  mr: LoadableMergeRequest,
): Promise<boolean> {
  if (!(await r.approvalsMayBlock(db, project.id, mr.id))) return true;
  return (await loadApprovalState(db, actor, project, mr)).state.approved;
}
