// Approvals' SQL: the project's approval settings, its approval rules with their users, groups,
// protected branches and eligible approvers (a fixed number of statements for any number of rules),
// rule writes in one transaction, and the approvals given on a merge request.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import {
  approvalProjectRules,
  approvalProjectRulesGroups,
  approvalProjectRulesProtectedBranches,
  approvalProjectRulesUsers,
  approvals,
  namespaces,
  projectApprovalSettings,
  projects,
  users,
  type ApprovalProjectRule,
  type Namespace,
  type ProjectApprovalSettings,
} from "../../db/schema";
import type { Executor } from "../kernel/db";
import { isUniqueViolation } from "../kernel/errors";
import type { Actor } from "../kernel/env";
import { groupIsVisible, projectAccessLevel } from "../kernel/visibility";
import { systemNotesCte } from "../shared/issuables/system_notes";
import { resolveTodosSql } from "../shared/issuables/todos";
import { listProtections } from "../shared/protected_branches/read";
import type { Protection } from "../shared/protected_branches/rules";
import type { UserBasicRow } from "../users/entities";

export type { ApprovalProjectRule, ProjectApprovalSettings };

export type Settings = Omit<ProjectApprovalSettings, "projectId">;

/** GitLab's defaults for a project whose settings were never changed (no row). */
export const DEFAULT_SETTINGS: Settings = {
  approvalsBeforeMerge: 0,
  resetApprovalsOnPush: true,
  disableOverridingApproversPerMergeRequest: false,
  mergeRequestsAuthorApproval: false,
  mergeRequestsDisableCommittersApproval: false,
  requirePasswordToApprove: false,
};

const basicUser = { id: users.id, username: users.username, name: users.name, state: users.state, avatarUrl: users.avatarUrl, email: users.email };

export async function getSettings(db: Executor, projectId: number): Promise<Settings> {
  const [row] = await db.select().from(projectApprovalSettings).where(eq(projectApprovalSettings.projectId, projectId));
  if (!row) return { ...DEFAULT_SETTINGS };
  const { projectId: _, ...settings } = row;
  return settings;
}

/** Writes the changed settings (the others keep their stored value or GitLab's default); one statement. */
export async function updateSettings(db: Executor, projectId: number, changes: Partial<Settings>): Promise<Settings> {
  const [row] = await db
    .insert(projectApprovalSettings)
    .values({ ...DEFAULT_SETTINGS, ...changes, projectId })
    .onConflictDoUpdate({ target: projectApprovalSettings.projectId, set: changes })
    .returning();
  const { projectId: _, ...settings } = row;
  return settings;
}

/** A rule with everything its entity shows. */
export type RuleDetails = ApprovalProjectRule & {
  users: UserBasicRow[];
  /** The rule's groups the reader may see; `hiddenGroupIds` are the others. */
  groups: Namespace[];
  hiddenGroupIds: number[];
  protectedBranches: Protection[];
  /** The rule's users and the direct members of all its groups (hidden ones too), active users only, by id. */
  eligibleApprovers: UserBasicRow[];
};

/** The project's rules in id order (or the one `ruleId`), without details. */
export async function listRules(db: Executor, projectId: number, ruleId?: number): Promise<ApprovalProjectRule[]> {
  return db
    .select()
    .from(approvalProjectRules)
    .where(ruleId === undefined ? eq(approvalProjectRules.projectId, projectId) : and(eq(approvalProjectRules.projectId, projectId), eq(approvalProjectRules.id, ruleId)))
    .orderBy(asc(approvalProjectRules.id));
}

/** Loads the details of `rules` (all of one project) in four statements, whatever their number. */
export async function withDetails(db: Executor, actor: Actor | null, projectId: number, rules: ApprovalProjectRule[]): Promise<RuleDetails[]> {
  if (rules.length === 0) return [];
  const ids = rules.map((r) => r.id);
  const userRows = await db
    .select({ ruleId: approvalProjectRulesUsers.ruleId, user: basicUser })
    .from(approvalProjectRulesUsers)
    .innerJoin(users, eq(users.id, approvalProjectRulesUsers.userId))
    .where(inArray(approvalProjectRulesUsers.ruleId, ids))
    .orderBy(asc(users.id));
  const groupRows = await db
    .select({ ruleId: approvalProjectRulesGroups.ruleId, group: namespaces, visible: sql<boolean>`${groupIsVisible(actor)}` })
    .from(approvalProjectRulesGroups)
    .innerJoin(namespaces, eq(namespaces.id, approvalProjectRulesGroups.groupId))
    .where(inArray(approvalProjectRulesGroups.ruleId, ids))
    .orderBy(asc(namespaces.id));
  // ApprovalRuleLike#approvers: the rule's users and its groups' direct members, active users only.
  const eligible = await db.execute<{ rule_id: number; id: number; username: string; name: string; state: string; avatar_url: string | null; email: string }>(sql`
    SELECT DISTINCT ON (x.rule_id, u.id) x.rule_id, u.id, u.username, u.name, u.state, u.avatar_url, u.email
      FROM (SELECT ru.rule_id, ru.user_id FROM approval_project_rules_users ru WHERE ru.rule_id = ANY(${sql.param(ids)}::int[])
            UNION
            SELECT rg.rule_id, m.user_id FROM approval_project_rules_groups rg
              JOIN members m ON m.source_type = 'Namespace' AND m.source_id = rg.group_id
                AND (m.expires_at IS NULL OR m.expires_at > current_date)
             WHERE rg.rule_id = ANY(${sql.param(ids)}::int[])) x
      JOIN users u ON u.id = x.user_id AND u.state = 'active'
     ORDER BY x.rule_id, u.id`);
  const branchRows = await db
    .select()
    .from(approvalProjectRulesProtectedBranches)
    .where(inArray(approvalProjectRulesProtectedBranches.ruleId, ids));
  const protections = branchRows.length ? await listProtections(db, projectId) : [];
  return rules.map((rule) => ({
    ...rule,
    users: userRows.filter((r) => r.ruleId === rule.id).map((r) => r.user),
    groups: groupRows.filter((r) => r.ruleId === rule.id && r.visible).map((r) => r.group),
    hiddenGroupIds: groupRows.filter((r) => r.ruleId === rule.id && !r.visible).map((r) => r.group.id),
    protectedBranches: protections.filter((p) => branchRows.some((b) => b.ruleId === rule.id && b.protectedBranchId === p.id)),
    eligibleApprovers: eligible.rows
      .filter((r) => Number(r.rule_id) === rule.id)
      .map((r) => ({ id: Number(r.id), username: r.username, name: r.name, state: r.state, avatarUrl: r.avatar_url, email: r.email })),
  }));
}

/**
 * The approvers a rule may name (ApprovalRules::BaseService's filters): users who are members of the
 * project (directly, through its groups or a share), groups the writer may see, and protected branches
 * of the project. Ids that fail are dropped, as GitLab drops them.
 */
export async function eligibleReferences(
  db: Executor,
  actor: Actor,
  projectId: number,
  input: { userIds?: number[]; groupIds?: number[]; protectedBranchIds?: number[] },
): Promise<{ userIds?: number[]; groupIds?: number[]; protectedBranchIds?: number[] }> {
  const out: { userIds?: number[]; groupIds?: number[]; protectedBranchIds?: number[] } = {};
  if (input.userIds) {
    const rows = input.userIds.length
      ? await db
          .select({ id: users.id })
          .from(users)
          .innerJoin(projects, eq(projects.id, projectId))
          .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
          .where(and(inArray(users.id, input.userIds), sql`${projectAccessLevel(sql`${users.id}`)} >= 10`))
      : [];
    out.userIds = rows.map((r) => r.id);
  }
  if (input.groupIds) {
    const rows = input.groupIds.length
      ? await db
          .select({ id: namespaces.id })
          .from(namespaces)
          .where(and(inArray(namespaces.id, input.groupIds), eq(namespaces.type, "Group"), groupIsVisible(actor)))
      : [];
    out.groupIds = rows.map((r) => r.id);
  }
  if (input.protectedBranchIds) {
    const rows = input.protectedBranchIds.length
      ? await db.execute<{ id: number }>(
          sql`SELECT id FROM protected_branches WHERE project_id = ${projectId} AND id = ANY(${sql.param(input.protectedBranchIds)}::int[])`,
        )
      : { rows: [] };
    out.protectedBranchIds = rows.rows.map((r) => Number(r.id));
  }
  return out;
}

export type RuleWrite = {
  name: string;
  approvalsRequired: number;
  ruleType?: string;
  userIds?: number[];
  /** Replaces the visible groups; `keepGroupIds` (hidden ones the writer keeps) are added back. */
  groupIds?: number[];
  keepGroupIds?: number[];
  protectedBranchIds?: number[];
};

/** Inserts a rule and its links in one transaction; null when the project already has a rule of that name. */
export async function insertRule(db: Executor, projectId: number, input: RuleWrite): Promise<ApprovalProjectRule | null> {
  return db.transaction(async (tx) => {
    const [rule] = await tx
      .insert(approvalProjectRules)
      .values({ projectId, name: input.name, approvalsRequired: input.approvalsRequired, ruleType: input.ruleType ?? "regular" })
      .onConflictDoNothing()
      .returning();
    if (!rule) return null;
    await writeLinks(tx, rule.id, input);
    return rule;
  });
}

/** Updates a rule and replaces the links that were sent, in one transaction; null on a name taken by another rule. */
export async function updateRule(db: Executor, ruleId: number, input: RuleWrite): Promise<ApprovalProjectRule | null> {
  // A concurrent write that takes the name between the check and the update loses on the unique index.
  return updateRuleOnce(db, ruleId, input).catch((err) => {
    if (isUniqueViolation(err, "index_approval_project_rules_on_project_id_and_name")) return null;
    throw err;
  });
}

async function updateRuleOnce(db: Executor, ruleId: number, input: RuleWrite): Promise<ApprovalProjectRule | null> {
  return db.transaction(async (tx) => {
    const taken = await tx
      .select({ id: approvalProjectRules.id })
      .from(approvalProjectRules)
      .where(
        and(
          eq(approvalProjectRules.name, input.name),
          sql`${approvalProjectRules.id} <> ${ruleId}`,
          sql`${approvalProjectRules.projectId} = (SELECT project_id FROM approval_project_rules WHERE id = ${ruleId})`,
        ),
      );
    if (taken.length) return null;
    const [rule] = await tx
      .update(approvalProjectRules)
      .set({ name: input.name, approvalsRequired: input.approvalsRequired, updatedAt: sql`now()` })
      .where(eq(approvalProjectRules.id, ruleId))
      .returning();
    if (input.userIds) await tx.delete(approvalProjectRulesUsers).where(eq(approvalProjectRulesUsers.ruleId, ruleId));
    if (input.groupIds) await tx.delete(approvalProjectRulesGroups).where(eq(approvalProjectRulesGroups.ruleId, ruleId));
    if (input.protectedBranchIds) await tx.delete(approvalProjectRulesProtectedBranches).where(eq(approvalProjectRulesProtectedBranches.ruleId, ruleId));
    await writeLinks(tx, ruleId, input);
    return rule;
  });
}

async function writeLinks(tx: Executor, ruleId: number, input: RuleWrite) {
  const groupIds = [...new Set([...(input.groupIds ?? []), ...(input.groupIds ? (input.keepGroupIds ?? []) : [])])];
  if (input.userIds?.length) await tx.insert(approvalProjectRulesUsers).values([...new Set(input.userIds)].map((userId) => ({ ruleId, userId }))).onConflictDoNothing();
  if (groupIds.length) await tx.insert(approvalProjectRulesGroups).values(groupIds.map((groupId) => ({ ruleId, groupId }))).onConflictDoNothing();
  if (input.protectedBranchIds?.length)
    await tx
      .insert(approvalProjectRulesProtectedBranches)
      .values([...new Set(input.protectedBranchIds)].map((protectedBranchId) => ({ ruleId, protectedBranchId })))
      .onConflictDoNothing();
}

/** Deletes a rule (its links cascade); false when it was already gone. */
export async function deleteRule(db: Executor, ruleId: number): Promise<boolean> {
  const rows = await db.delete(approvalProjectRules).where(eq(approvalProjectRules.id, ruleId)).returning({ id: approvalProjectRules.id });
  return rows.length > 0;
}

/** True when the project has an `any_approver` rule other than `exceptId`. */
export async function hasAnyApproverRule(db: Executor, projectId: number, exceptId?: number): Promise<boolean> {
  const rows = await db
    .select({ id: approvalProjectRules.id })
    .from(approvalProjectRules)
    .where(
      and(
        eq(approvalProjectRules.projectId, projectId),
        eq(approvalProjectRules.ruleType, "any_approver"),
        exceptId === undefined ? undefined : sql`${approvalProjectRules.id} <> ${exceptId}`,
      ),
    );
  return rows.length > 0;
}

// ----- merge request approvals

export type Approval = { userId: number; createdAt: Date; user: UserBasicRow };

/** The approvals given on a merge request, oldest first, with their users. */
export async function listApprovals(db: Executor, mergeRequestId: number): Promise<Approval[]> {
  const rows = await db
    .select({ userId: approvals.userId, createdAt: approvals.createdAt, user: basicUser })
    .from(approvals)
    .innerJoin(users, eq(users.id, approvals.userId))
    .where(eq(approvals.mergeRequestId, mergeRequestId))
    .orderBy(asc(approvals.id));
  return rows;
}

/** The head of the merge request's source branch (`diff_head_sha`), or the stored `sha` when the branch is gone. */
export async function sourceHead(db: Executor, mr: { sourceProjectId: number; sourceBranch: string; sha: string | null }): Promise<string | null> {
  const result = await db.execute<{ target: string }>(
    sql`SELECT target FROM git_refs WHERE project_id = ${mr.sourceProjectId} AND name = ${`refs/heads/${mr.sourceBranch}`}`,
  );
  return result.rows[0]?.target ?? mr.sha;
}

/**
 * MergeRequests::ApprovalService: the approval, its system note ("approved this merge request") and
 * the approver's pending to-dos on the merge request resolved, in one statement. False when the user
 * had already approved (the unique index decides, so a double click approves once).
 */
export async function approve(db: Executor, mr: { id: number; projectId: number }, userId: number): Promise<boolean> {
  const result = await db.execute<{ id: number }>(sql`
    WITH a AS (INSERT INTO approvals (merge_request_id, user_id) VALUES (${mr.id}, ${userId}) ON CONFLICT DO NOTHING RETURNING id),
    ${systemNotesCte("n", [{ noteableType: "MergeRequest", noteableId: mr.id, projectId: mr.projectId, body: "approved this merge request" }], { authorId: userId, from: sql`a` })},
    t AS (${resolveTodosSql(userId, "MergeRequest", mr.id, { when: sql`EXISTS (SELECT 1 FROM a)` })})
    SELECT id FROM a`);
  return result.rows.length > 0;
}

/** MergeRequests::RemoveApprovalService: the approval removed with its system note ("unapproved this merge request"). */
export async function unapprove(db: Executor, mr: { id: number; projectId: number }, userId: number): Promise<boolean> {
  const result = await db.execute<{ id: number }>(sql`
    WITH a AS (DELETE FROM approvals WHERE merge_request_id = ${mr.id} AND user_id = ${userId} RETURNING id),
    ${systemNotesCte("n", [{ noteableType: "MergeRequest", noteableId: mr.id, projectId: mr.projectId, body: "unapproved this merge request" }], { authorId: userId, from: sql`a` })}
    SELECT id FROM a`);
  return result.rows.length > 0;
}
