// The approval state of a merge request (ee/app/models/approval_state.rb, approval_wrapped_rule.rb),
// computed from the project's rules, its settings and the approvals given. Pure: the routes load, this
// decides.
import type { Actor } from "../kernel/env";
import { refMatches } from "../shared/protected_branches/rules";
import type { UserBasicRow } from "../users/entities";
import type { Approval, RuleDetails, Settings } from "./queries";

export type WrappedRule = {
  rule: RuleDetails;
  /** Eligible approvers after the self-approval filter (the author, unless authors may approve). */
  approvers: UserBasicRow[];
  approvedBy: UserBasicRow[];
  approvalsLeft: number;
  approved: boolean;
  /** A regular rule that requires approvals but has nobody to give them (`invalid_approvers_rules`). */
  invalid: boolean;
};

export type ApprovalState = {
  rules: WrappedRule[];
  /** No regular and no any-approver rule: the project's `approvals_before_merge` applies. */
  fallback: boolean;
  approvalsRequired: number;
  approvalsLeft: number;
  approved: boolean;
  approvedBy: Approval[];
};

type MergeRequestLike = { authorId: number | null; targetBranch: string; state: string };

/** A rule applies to the merge request when it names no protected branch or one matching the target branch. */
export function appliesTo(rule: RuleDetails, targetBranch: string): boolean {
  return rule.protectedBranches.length === 0 || rule.protectedBranches.some((p) => refMatches(p.name, targetBranch));
}

export function approvalState(mr: MergeRequestLike, settings: Settings, rules: RuleDetails[], given: Approval[]): ApprovalState {
  const approverIds = new Set(given.map((a) => a.userId));
  const selfFilter = (users: UserBasicRow[]) => (settings.mergeRequestsAuthorApproval ? users : users.filter((u) => u.id !== mr.authorId));
  const wrapped = rules
    .filter((r) => appliesTo(r, mr.targetBranch))
    .map((rule): WrappedRule => {
      const anyApprover = rule.ruleType === "any_approver";
      const approvers = anyApprover ? [] : selfFilter(rule.eligibleApprovers);
      const approvedBy = anyApprover ? given.map((a) => a.user) : rule.eligibleApprovers.filter((u) => approverIds.has(u.id));
      const invalid = !anyApprover && rule.approvalsRequired > 0 && approvers.length === 0;
      // ApprovalWrappedRule: an invalid rule fails open (it would block the merge request forever).
      const approvalsLeft = invalid ? 0 : Math.max(rule.approvalsRequired - approvedBy.length, 0);
      return { rule, approvers, approvedBy, approvalsLeft, approved: approvalsLeft === 0, invalid };
    });
  const fallback = wrapped.length === 0;
  if (fallback) {
    const required = settings.approvalsBeforeMerge;
    const left = Math.max(required - given.length, 0);
    return { rules: [], fallback, approvalsRequired: required, approvalsLeft: left, approved: left === 0, approvedBy: given };
  }
  const approvalsRequired = wrapped.reduce((sum, w) => sum + w.rule.approvalsRequired, 0);
  const approvalsLeft = wrapped.reduce((sum, w) => sum + w.approvalsLeft, 0);
  return { rules: wrapped, fallback, approvalsRequired, approvalsLeft, approved: wrapped.every((w) => w.approved), approvedBy: given };
}

/**
 * ApprovalState#eligible_for_approval_by?: a signed-in user who has not approved yet, on an open merge
 * request, who is an approver of one of its rules (`unactioned_approvers`), or, when anyone may approve (no regular rules, an
 * any-approver rule, or the rules already met), has developer access. The author only when the
 * project lets authors approve.
 */
export function canApprove(state: ApprovalState, mr: MergeRequestLike, settings: Settings, actor: Actor | null, accessLevel: number): boolean {
  if (!actor) return false;
  if (mr.state !== "opened") return false;
  const userId = actor.user.id;
  if (state.approvedBy.some((a) => a.userId === userId)) return false;
  if (userId === mr.authorId && !settings.mergeRequestsAuthorApproval) return false;
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
