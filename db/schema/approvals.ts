// Merge request approvals (EE: ee/app/models/approval_project_rule.rb, approval.rb, the project's
// approval settings): project rules with their users, groups and protected branches, and the approvals
// given on merge requests.
import { bigint, boolean, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { namespaces } from "./namespaces";
import { projects } from "./projects";
import { protectedBranches } from "./protected_branches";
import { mergeRequests } from "./issues";
import { users } from "./users";

/** The six approval settings of a project (`POST /projects/:id/approvals`); no row = GitLab's defaults. */
export const projectApprovalSettings = pgTable("project_approval_settings", {
  projectId: integer()
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  approvalsBeforeMerge: integer().notNull().default(0),
  resetApprovalsOnPush: boolean().notNull().default(true),
  disableOverridingApproversPerMergeRequest: boolean().notNull().default(false),
  mergeRequestsAuthorApproval: boolean().notNull().default(false),
  mergeRequestsDisableCommittersApproval: boolean().notNull().default(false),
  requirePasswordToApprove: boolean().notNull().default(false),
});

export const approvalProjectRules = pgTable(
  "approval_project_rules",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text().notNull(),
    approvalsRequired: integer().notNull().default(0),
    ruleType: text().notNull().default("regular"), // regular | any_approver
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_approval_project_rules_on_project_id_and_name").on(t.projectId, t.name)],
);

export const approvalProjectRulesUsers = pgTable(
  "approval_project_rules_users",
  {
    ruleId: integer()
      .notNull()
      .references(() => approvalProjectRules.id, { onDelete: "cascade" }),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.userId] })],
);

export const approvalProjectRulesGroups = pgTable(
  "approval_project_rules_groups",
  {
    ruleId: integer()
      .notNull()
      .references(() => approvalProjectRules.id, { onDelete: "cascade" }),
    groupId: integer()
      .notNull()
      .references(() => namespaces.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.groupId] })],
);

export const approvalProjectRulesProtectedBranches = pgTable(
  "approval_project_rules_protected_branches",
  {
    ruleId: integer()
      .notNull()
      .references(() => approvalProjectRules.id, { onDelete: "cascade" }),
    protectedBranchId: integer()
      .notNull()
      .references(() => protectedBranches.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.protectedBranchId] })],
);

/** An approval of a merge request by a user (EE `approvals`). */
export const approvals = pgTable(
  "approvals",
  {
    id: id(),
    mergeRequestId: integer()
      .notNull()
      .references(() => mergeRequests.id, { onDelete: "cascade" }),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /**
     * The newest `push_events` id of the source branch when the approval was given: a later push to
     * that branch voids the approval when the project resets approvals on push.
     */
    sourcePushEventId: bigint({ mode: "number" }).notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("index_approvals_on_merge_request_id_and_user_id").on(t.mergeRequestId, t.userId), index("index_approvals_on_user_id").on(t.userId)],
);

/**
 * A merge request's own approval rule (EE `approval_merge_request_rules`, `POST …/merge_requests/:iid/approval_rules`).
 * A merge request has only the rules written for it: GitLab 15.4 copies project rules only from its web
 * form and when merging (see docs/domains.md, "Merge request approvals"), and ApprovalState uses the project's rules otherwise.
 */
export const approvalMergeRequestRules = pgTable(
  "approval_merge_request_rules",
  {
    id: id(),
    mergeRequestId: integer()
      .notNull()
      .references(() => mergeRequests.id, { onDelete: "cascade" }),
    name: text().notNull(),
    approvalsRequired: integer().notNull().default(0),
    ruleType: text().notNull().default("regular"), // regular | any_approver
    /** The project rule this one was made from (`approval_project_rule_id`), null when none. */
    approvalProjectRuleId: integer().references(() => approvalProjectRules.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_approval_merge_request_rules_on_mr_id_and_name").on(t.mergeRequestId, t.name)],
);

export const approvalMergeRequestRulesUsers = pgTable(
  "approval_merge_request_rules_users",
  {
    ruleId: integer()
      .notNull()
      .references(() => approvalMergeRequestRules.id, { onDelete: "cascade" }),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.userId] })],
);

export const approvalMergeRequestRulesGroups = pgTable(
  "approval_merge_request_rules_groups",
  {
    ruleId: integer()
      .notNull()
      .references(() => approvalMergeRequestRules.id, { onDelete: "cascade" }),
    groupId: integer()
      .notNull()
      .references(() => namespaces.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.groupId] })],
);

export type ApprovalMergeRequestRule = typeof approvalMergeRequestRules.$inferSelect;
export type ApprovalProjectRule = typeof approvalProjectRules.$inferSelect;
export type ProjectApprovalSettings = typeof projectApprovalSettings.$inferSelect;

/**
 * An external status check of a project (EE `external_status_checks`, `MergeRequests::ExternalStatusCheck`):
 * a service told about every change of a merge request, which answers through
 * `POST …/merge_requests/:iid/status_check_responses`. Names and URLs are unique per project.
 */
export const externalStatusChecks = pgTable(
  "external_status_checks",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text().notNull(),
    externalUrl: text().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_external_status_checks_on_project_id_and_name").on(t.projectId, t.name),
    uniqueIndex("index_external_status_checks_on_project_id_and_external_url").on(t.projectId, t.externalUrl),
  ],
);

/** The protected branches a status check is scoped to (none: every target branch). */
export const externalStatusChecksProtectedBranches = pgTable(
  "external_status_checks_protected_branches",
  {
    externalStatusCheckId: integer()
      .notNull()
      .references(() => externalStatusChecks.id, { onDelete: "cascade" }),
    protectedBranchId: integer()
      .notNull()
      .references(() => protectedBranches.id, { onDelete: "cascade" }),
  },
  // Named: the default name cut to 63 characters would be the same as the first foreign key's.
  (t) => [primaryKey({ name: "external_status_checks_protected_branches_pkey", columns: [t.externalStatusCheckId, t.protectedBranchId] })],
);

/** A service's answer for a merge request at one source sha (EE `status_check_responses`). */
export const statusCheckResponses = pgTable(
  "status_check_responses",
  {
    id: id(),
    mergeRequestId: integer()
      .notNull()
      .references(() => mergeRequests.id, { onDelete: "cascade" }),
    externalStatusCheckId: integer()
      .notNull()
      .references(() => externalStatusChecks.id, { onDelete: "cascade" }),
    sha: text().notNull(),
    status: text().notNull(), // passed | failed
    createdAt: createdAt(),
  },
  (t) => [index("index_status_check_responses_on_mr_id_check_id_sha").on(t.mergeRequestId, t.externalStatusCheckId, t.sha)],
);

export type ExternalStatusCheck = typeof externalStatusChecks.$inferSelect;
export type StatusCheckResponse = typeof statusCheckResponses.$inferSelect;
