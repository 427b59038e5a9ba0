import type { MergeRequest } from "../../db/schema";
import type { PresentContext } from "../kernel/present";
import { group } from "./groups";
import { issuableHead } from "./merge_requests";
import { protectedBranch } from "./protected_branches";
import { userBasic } from "./users";
import type { RuleDetails, Settings } from "../shared/approvals/read";
import type { ApprovalState, WrappedRule } from "../shared/approvals/state";

/**
 * EE::API::Entities::ApprovalSettings (GET/POST /projects/:id/approvals). `approvers` and
 * `approver_groups` are deprecated since 12.3 and always empty, as GitLab answers them.
 */
export function approvalSettings(s: Settings) {
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
function ruleHead(rule: RuleDetails, eligible: RuleDetails["eligibleApprovers"], ctx: PresentContext) {
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
export function projectApprovalRule(rule: RuleDetails, ctx: PresentContext) {
  return {
    ...ruleHead(rule, rule.eligibleApprovers, ctx),
    protected_branches: rule.protectedBranches.map(protectedBranch),
    applies_to_all_protected_branches: false,
  };
}

/** EE::API::Entities::ApprovalRuleShort. */
function ruleShort(w: WrappedRule) {
  return { id: w.rule.id, name: w.rule.name, rule_type: w.rule.ruleType };
}

export type ApprovalsContext = PresentContext & {
  settings: Settings;
  state: ApprovalState;
  userCanApprove: boolean;
  suggested: RuleDetails["eligibleApprovers"];
};

/**
 * EE::API::Entities::ApprovalState as the merge request's `approvals`, `approve` and `unapprove`
 * answer it: the issuable head, then the state.
 */
export function mergeRequestApprovals(mr: MergeRequest, ctx: ApprovalsContext) {
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
function sourceFields(rule: RuleDetails) {
  return { source_rule: rule.sourceRule ? { approvals_required: rule.sourceRule.approvalsRequired } : null, overridden: rule.overridden };
}

/** EE::API::Entities::MergeRequestApprovalRule (`…/merge_requests/:iid/approval_rules`). */
export function mergeRequestApprovalRule(rule: RuleDetails, ctx: PresentContext) {
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
export function approvalStateEntity(state: ApprovalState, ctx: PresentContext) {
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
