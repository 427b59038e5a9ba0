// Approvals' SQL: the project's approval settings, its approval rules with their users, groups,
// protected branches and eligible approvers (a fixed number of statements for any number of rules),
// rule writes in one transaction, and the approvals given on a merge request.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { approvalMergeRequestRules, approvalMergeRequestRulesGroups, approvalMergeRequestRulesUsers, approvalProjectRules, approvalProjectRulesGroups, approvalProjectRulesProtectedBranches, approvalProjectRulesUsers, approvals, mergeRequests, namespaces, projectApprovalSettings, projects, users, type ApprovalMergeRequestRule, type ApprovalProjectRule, type ProjectApprovalSettings } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { isUniqueViolation } from "../kernel/errors";
import type { Actor } from "../kernel/env";
import { groupIsVisible, projectAccessLevel } from "../kernel/visibility";
import { systemNotesCte } from "../shared/issuables/system_notes";
import { resolveTodosSql } from "../shared/issuables/todos";
import { listProtections } from "../shared/protected_branches/read";
import type { Protection } from "../entities/protected_branches";
import type { UserBasicRow } from "../entities/users";

export type { ApprovalMergeRequestRule, ApprovalProjectRule, ProjectApprovalSettings };
export {
  DEFAULT_SETTINGS,
  getSettings,
  listRules,
  listMergeRequestRules,
  withDetails,
  withMergeRequestRuleDetails,
  type Approval,
  type RuleDetails,
  type Settings,
} from "../shared/approvals/read";
import { DEFAULT_SETTINGS, type Settings } from "../shared/approvals/read";

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
export async function approve(
  db: Executor,
  mr: { id: number; projectId: number; sourceProjectId: number; sourceBranch: string },
  userId: number,
): Promise<boolean> {
  // The newest push to the source branch is recorded so that a later one voids the approval.
  const result = await db.execute<{ id: number }>(sql`
    WITH a AS (INSERT INTO approvals (merge_request_id, user_id, source_push_event_id)
                 SELECT ${mr.id}, ${userId}, coalesce(max(e.id), 0) FROM push_events e
                  WHERE e.project_id = ${mr.sourceProjectId} AND e.ref = ${`refs/heads/${mr.sourceBranch}`}
               ON CONFLICT DO NOTHING RETURNING id),
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

/** `merge_request.approvals.delete_all` (`PUT …/reset_approvals`): no system note, as GitLab writes none. */
export async function resetApprovals(db: Executor, mergeRequestId: number): Promise<void> {
  await db.delete(approvals).where(eq(approvals.mergeRequestId, mergeRequestId));
}

/** The merge request's own `approvals_before_merge` (`POST …/approvals`, MergeRequests::UpdateService). */
export async function setApprovalsBeforeMerge<T extends { id: number }>(db: Executor, mr: T, value: number): Promise<T> {
  const [row] = await db
    .update(mergeRequests)
    .set({ approvalsBeforeMerge: value, updatedAt: sql`now()` })
    .where(eq(mergeRequests.id, mr.id))
    .returning({ approvalsBeforeMerge: mergeRequests.approvalsBeforeMerge, updatedAt: mergeRequests.updatedAt });
  return { ...mr, ...row };
}

// ----- merge request rules

export type MergeRequestRuleWrite = {
  name: string;
  approvalsRequired: number;
  ruleType?: string;
  approvalProjectRuleId?: number | null;
  userIds?: number[];
  /** Replaces the visible groups; `keepGroupIds` (hidden ones the writer keeps) are added back. */
  groupIds?: number[];
  keepGroupIds?: number[];
};

/** The users and groups of a project rule (what a merge request rule made from it starts with). */
export async function projectRuleLinks(db: Executor, ruleId: number): Promise<{ userIds: number[]; groupIds: number[] }> {
  const [userRows, groupRows] = [
    await db.select({ id: approvalProjectRulesUsers.userId }).from(approvalProjectRulesUsers).where(eq(approvalProjectRulesUsers.ruleId, ruleId)),
    await db.select({ id: approvalProjectRulesGroups.groupId }).from(approvalProjectRulesGroups).where(eq(approvalProjectRulesGroups.ruleId, ruleId)),
  ];
  return { userIds: userRows.map((r) => r.id), groupIds: groupRows.map((r) => r.id) };
}

async function writeMergeRequestRuleLinks(tx: Executor, ruleId: number, input: MergeRequestRuleWrite) {
  const groupIds = [...new Set([...(input.groupIds ?? []), ...(input.groupIds ? (input.keepGroupIds ?? []) : [])])];
  if (input.userIds?.length)
    await tx.insert(approvalMergeRequestRulesUsers).values([...new Set(input.userIds)].map((userId) => ({ ruleId, userId }))).onConflictDoNothing();
  if (groupIds.length) await tx.insert(approvalMergeRequestRulesGroups).values(groupIds.map((groupId) => ({ ruleId, groupId }))).onConflictDoNothing();
}

/** Inserts a merge request rule and its links in one transaction; null when the merge request already has a rule of that name. */
export async function insertMergeRequestRule(db: Executor, mergeRequestId: number, input: MergeRequestRuleWrite): Promise<ApprovalMergeRequestRule | null> {
  return db.transaction(async (tx) => {
    const [rule] = await tx
      .insert(approvalMergeRequestRules)
      .values({
        mergeRequestId,
        name: input.name,
        approvalsRequired: input.approvalsRequired,
        ruleType: input.ruleType ?? "regular",
        approvalProjectRuleId: input.approvalProjectRuleId ?? null,
      })
      .onConflictDoNothing()
      .returning();
    if (!rule) return null;
    await writeMergeRequestRuleLinks(tx, rule.id, input);
    return rule;
  });
}

/** Updates a merge request rule and replaces the links that were sent, in one transaction; null on a name taken by another rule. */
export async function updateMergeRequestRule(
  db: Executor,
  rule: ApprovalMergeRequestRule,
  input: Partial<MergeRequestRuleWrite>,
): Promise<ApprovalMergeRequestRule | null> {
  return db
    .transaction(async (tx) => {
      const [updated] = await tx
        .update(approvalMergeRequestRules)
        .set({ name: input.name ?? rule.name, approvalsRequired: input.approvalsRequired ?? rule.approvalsRequired, updatedAt: sql`now()` })
        .where(eq(approvalMergeRequestRules.id, rule.id))
        .returning();
      if (input.userIds) await tx.delete(approvalMergeRequestRulesUsers).where(eq(approvalMergeRequestRulesUsers.ruleId, rule.id));
      if (input.groupIds) await tx.delete(approvalMergeRequestRulesGroups).where(eq(approvalMergeRequestRulesGroups.ruleId, rule.id));
      await writeMergeRequestRuleLinks(tx, rule.id, { name: updated.name, approvalsRequired: updated.approvalsRequired, ...input });
      return updated;
    })
    .catch((err) => {
      if (isUniqueViolation(err, "index_approval_merge_request_rules_on_mr_id_and_name")) return null;
      throw err;
    });
}

/** Deletes a merge request rule (its links cascade); false when it was already gone. */
export async function deleteMergeRequestRule(db: Executor, ruleId: number): Promise<boolean> {
  const rows = await db.delete(approvalMergeRequestRules).where(eq(approvalMergeRequestRules.id, ruleId)).returning({ id: approvalMergeRequestRules.id });
  return rows.length > 0;
}
