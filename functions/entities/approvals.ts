import * as z from "zod";
import type { MergeRequest, Namespace, ProjectApprovalSettings } from "../../db/schema";
import type { PresentContext } from "../kernel/present";
import { Group, group } from "./groups";
import { IssuableHead } from "./issues";
import { issuableHead } from "./merge_requests";
import { ProtectedBranch, protectedBranch, type Protection } from "./protected_branches";
import { UserBasic, userBasic, type UserBasicRow } from "./users";

/**
 * The rows the approval presenters read; shared/approvals loads them and computes the state.
 * A project's approval settings (its `project_approval_settings` row or GitLab's defaults).
 */
export type ApprovalSettings = Omit<ProjectApprovalSettings, "projectId">;

/** A rule (the project's or a merge request's) with everything its entities show. */
export type RuleDetails = {
  id: number;
  name: string;
  approvalsRequired: number;
  ruleType: string;
  updatedAt: Date;
  users: UserBasicRow[];
  /** The rule's groups the reader may see; `hiddenGroupIds` are the others. */
  groups: Namespace[];
  hiddenGroupIds: number[];
  protectedBranches: Protection[];
  /** The rule's users and the direct members of all its groups (hidden ones too), active users only, by id. */
  eligibleApprovers: UserBasicRow[];
  /** Merge request rules: the project rule it was made from (`source_rule`), and whether it differs from it. */
  sourceRule: { id: number; approvalsRequired: number } | null;
  overridden: boolean;
};

/** One approval given, with its user. */
export type Approval = { userId: number; createdAt: Date; user: UserBasicRow };

/** A rule as it applies to one merge request (ApprovalWrappedRule). */
export type WrappedRule = {
  rule: RuleDetails;
  /** Eligible approvers after the self-approval filters (the author, the committers, as the settings say). */
  approvers: UserBasicRow[];
  approvedBy: UserBasicRow[];
  approvalsLeft: number;
  approved: boolean;
  /** A regular rule that requires approvals but has nobody to give them (`invalid_approvers_rules`). */
  invalid: boolean;
};

/** ApprovalState: what shared/approvals/state computes for a merge request. */
export type ApprovalState = {
  rules: WrappedRule[];
  /** The merge request's own rules replace the project's (`approval_rules_overwritten?`). */
  overwritten: boolean;
  /** No regular and no any-approver rule: the project's `approvals_before_merge` applies. */
  fallback: boolean;
  approvalsRequired: number;
  approvalsLeft: number;
  approved: boolean;
  approvedBy: Approval[];
  /** Users who committed to the merge request, when the project excludes committers from approving. */
  excludedCommitters: number[];
};

/**
 * EE::API::Entities::ApprovalSettings (GET/POST /projects/:id/approvals). `approvers` and
 * `approver_groups` are deprecated since 12.3 and always empty, as GitLab answers them.
 */
export const ApprovalSettingsEntity = z
  .object({
    approvers: z.array(z.never()),
    approver_groups: z.array(z.never()),
    approvals_before_merge: z.int(),
    reset_approvals_on_push: z.boolean(),
    disable_overriding_approvers_per_merge_request: z.boolean(),
    merge_requests_author_approval: z.boolean(),
    merge_requests_disable_committers_approval: z.boolean(),
    require_password_to_approve: z.boolean(),
  })
  .meta({ id: "ApprovalSettings" });
export function approvalSettings(s: ApprovalSettings): z.output<typeof ApprovalSettingsEntity> {
  return {
    approvers: [],
    approver_groups: [],
    approvals_before_merge: s.approvalsBeforeMerge,
    reset_approvals_on_push: s.resetApprovalsOnPush,
    disable_overriding_approvers_per_merge_request: s.disableOverridingApproversPerMergeRequest,
    merge_requests_author_approval: s.mergeRequestsAuthorApproval,
    merge_requests_disable_committers_approval: s.mergeRequestsDisableCommittersApproval,
    require_password_to_approve: s.requirePasswordToApprove,
  };
}

/** EE::API::Entities::ApprovalRule's head (id, name, rule_type, eligible approvers, users, groups). */
const RuleHead = z.object({
  id: z.int(),
  name: z.string(),
  rule_type: z.string(),
  eligible_approvers: z.array(UserBasic),
  approvals_required: z.int(),
  users: z.array(UserBasic),
  groups: z.array(Group),
  contains_hidden_groups: z.boolean(),
});
function ruleHead(rule: RuleDetails, eligible: RuleDetails["eligibleApprovers"], ctx: PresentContext): z.output<typeof RuleHead> {
  return {
    id: rule.id,
    name: rule.name,
    rule_type: rule.ruleType,
    eligible_approvers: eligible.map((u) => userBasic(u, ctx)),
    approvals_required: rule.approvalsRequired,
    users: rule.users.map((u) => userBasic(u, ctx)),
    groups: rule.groups.map((g) => group(g, ctx)),
    contains_hidden_groups: rule.hiddenGroupIds.length > 0,
  };
}

/** EE::API::Entities::ProjectApprovalRule: the rule with its protected branches. */
export const ProjectApprovalRule = RuleHead.extend({ protected_branches: z.array(ProtectedBranch), applies_to_all_protected_branches: z.boolean() }).meta({
  id: "ProjectApprovalRule",
});
export function projectApprovalRule(rule: RuleDetails, ctx: PresentContext): z.output<typeof ProjectApprovalRule> {
  return {
    ...ruleHead(rule, rule.eligibleApprovers, ctx),
    protected_branches: rule.protectedBranches.map(protectedBranch),
    applies_to_all_protected_branches: false,
  };
}

/** EE::API::Entities::ApprovalRuleShort. */
const ApprovalRuleShort = z.object({ id: z.int(), name: z.string(), rule_type: z.string() });
function ruleShort(w: WrappedRule): z.output<typeof ApprovalRuleShort> {
  return { id: w.rule.id, name: w.rule.name, rule_type: w.rule.ruleType };
}

export type ApprovalsContext = PresentContext & {
  settings: ApprovalSettings;
  state: ApprovalState;
  userCanApprove: boolean;
  suggested: RuleDetails["eligibleApprovers"];
};

/**
 * EE::API::Entities::ApprovalState as the merge request's `approvals`, `approve` and `unapprove`
 * answer it: the issuable head, then the state.
 */
export const MergeRequestApprovals = IssuableHead.extend({
  merge_status: z.string(),
  approved: z.boolean(),
  approvals_required: z.int(),
  approvals_left: z.int(),
  require_password_to_approve: z.boolean(),
  approved_by: z.array(z.object({ user: UserBasic })),
  suggested_approvers: z.array(UserBasic),
  approvers: z.array(z.never()),
  approver_groups: z.array(z.never()),
  user_has_approved: z.boolean(),
  user_can_approve: z.boolean(),
  approval_rules_left: z.array(ApprovalRuleShort),
  has_approval_rules: z.boolean(),
  merge_request_approvers_available: z.boolean(),
  multiple_approval_rules_available: z.boolean(),
  invalid_approvers_rules: z.array(ApprovalRuleShort),
}).meta({ id: "ApprovalState" });
export function mergeRequestApprovals(mr: MergeRequest, ctx: ApprovalsContext): z.output<typeof MergeRequestApprovals> {
  const { state } = ctx;
  const userId = ctx.actor?.user.id;
  return {
    ...issuableHead(mr),
    merge_status: mr.mergeStatus,
    approved: state.approved,
    approvals_required: state.approvalsRequired,
    approvals_left: state.approvalsLeft,
    require_password_to_approve: ctx.settings.requirePasswordToApprove,
    approved_by: state.approvedBy.map((a) => ({ user: userBasic(a.user, ctx) })),
    suggested_approvers: ctx.suggested.map((u) => userBasic(u, ctx)),
    // Deprecated since 12.3 (rules replaced them); GitLab's docs show them empty.
    approvers: [],
    approver_groups: [],
    user_has_approved: userId !== undefined && state.approvedBy.some((a) => a.userId === userId),
    user_can_approve: ctx.userCanApprove,
    approval_rules_left: state.rules.filter((w) => !w.approved).map(ruleShort),
    has_approval_rules: state.rules.some((w) => w.rule.ruleType !== "any_approver"),
    merge_request_approvers_available: true,
    multiple_approval_rules_available: true,
    invalid_approvers_rules: state.rules.filter((w) => w.invalid).map(ruleShort),
  };
}

/** EE::API::Entities::MergeRequestApprovalRule::SourceRule and `overridden?`. */
const SourceFields = z.object({ source_rule: z.object({ approvals_required: z.int() }).nullable(), overridden: z.boolean() });
function sourceFields(rule: RuleDetails): z.output<typeof SourceFields> {
  return { source_rule: rule.sourceRule ? { approvals_required: rule.sourceRule.approvalsRequired } : null, overridden: rule.overridden };
}

/** EE::API::Entities::MergeRequestApprovalRule (`…/merge_requests/:iid/approval_rules`). */
export const MergeRequestApprovalRule = RuleHead.extend(SourceFields.shape).meta({ id: "MergeRequestApprovalRule" });
export function mergeRequestApprovalRule(rule: RuleDetails, ctx: PresentContext): z.output<typeof MergeRequestApprovalRule> {
  return { ...ruleHead(rule, rule.eligibleApprovers, ctx), ...sourceFields(rule) };
}

/**
 * EE::API::Entities::MergeRequestApprovalState (`GET …/approval_state`): the merge request's own rules
 * when they replace the project's (`approval_rules_overwritten`), else one entry per project rule that
 * applies to the target branch.
 * A project rule is shown as itself (its own id, `source_rule` null, `overridden` false): merge
 * requests made through the API have no copies of the project's rules (ApprovalState wraps the
 * project's own rules then).
 */
export const MergeRequestApprovalState = z
  .object({
    approval_rules_overwritten: z.boolean(),
    rules: z.array(RuleHead.extend({ approved_by: z.array(UserBasic), ...SourceFields.shape, approved: z.boolean() })),
  })
  .meta({ id: "MergeRequestApprovalState" });
export function approvalStateEntity(state: ApprovalState, ctx: PresentContext): z.output<typeof MergeRequestApprovalState> {
  return {
    approval_rules_overwritten: state.overwritten,
    rules: state.rules.map((w) => ({
      ...ruleHead(w.rule, w.approvers, ctx),
      approved_by: w.approvedBy.map((u) => userBasic(u, ctx)),
      ...sourceFields(w.rule),
      approved: w.approved,
    })),
  };
}
