import { and, eq, sql, type SQL } from "drizzle-orm";
import { internalIds, issueAssignees, issues, mergeRequests, namespaces, projects, todos, users, type Issue, type MergeRequest } from "../../db/schema";
import { allowed, type ProjectWithAccess } from "./abilities";
import { Access } from "./access";
import type { Executor } from "./db";
import type { Actor, Ctx } from "./env";
import { notFound } from "./errors";
import { authorizedProjectIds, projectAccessLevel, projectIsVisible } from "./visibility";

/**
 * What several domains need of issues and other issuables (issues, notes, discussions, links,
 * to-dos, award emoji): gapless iids, the per-issue read rule (confidentiality), the lookup inside a
 * project, and GitLab's TodoService primitives.
 */

/** The next gapless iid of `usage` in a project (or group), bumped inside the creating transaction. */
export async function nextIid(tx: Executor, usage: string, owner: { projectId: number } | { namespaceId: number }): Promise<number> {
  const byProject = "projectId" in owner;
  const ownerId = byProject ? owner.projectId : owner.namespaceId;
  const column = byProject ? sql.raw("project_id") : sql.raw("namespace_id");
  const result = await tx.execute<{ last_value: number }>(sql`
    INSERT INTO internal_ids (usage, ${column}, last_value) VALUES (${usage}, ${ownerId}, 1)
    ON CONFLICT (usage, ${column}) WHERE ${column} IS NOT NULL
    DO UPDATE SET last_value = ${internalIds}.last_value + 1
    RETURNING last_value`);
  return Number(result.rows[0].last_value);
}

/** An issue as lookups load it: with its assignees' ids (for the confidentiality rule). */
export type IssueWithAssignees = Issue & { assigneeIds: number[] };

/**
 * IssuePolicy (app/policies/issue_policy.rb): whoever may read the project's issues reads a
 * non-confidential issue; a confidential one only reporters and up, its author, its assignees and admins.
 */
export function canReadIssue(actor: Actor | null, project: ProjectWithAccess, issue: IssueWithAssignees): boolean {
  if (!allowed(actor, "read_issue", project)) return false;
  if (!issue.confidential) return true;
  if (!actor) return false;
  if (actor.isAdmin || project.accessLevel >= Access.REPORTER) return true;
  return issue.authorId === actor.user.id || issue.assigneeIds.includes(actor.user.id);
}

/** Authors and assignees may update their own issue even below reporter (IssuePolicy `is_author`, `is_assignee`). */
export function canUpdateIssue(actor: Actor | null, project: ProjectWithAccess, issue: IssueWithAssignees): boolean {
  if (!actor) return false;
  if (allowed(actor, "update_issue", project)) return true;
  if (project.archived || !project.issuesEnabled) return false;
  return issue.authorId === actor.user.id || issue.assigneeIds.includes(actor.user.id);
}

/** `find_project_issue` (lib/api/helpers.rb): by iid inside the project; unreadable is `404 Issue Not Found`. */
export async function findIssue(c: Ctx, project: ProjectWithAccess, iid: string): Promise<IssueWithAssignees> {
  if (!/^\d+$/.test(iid) || Number(iid) > 2147483647) throw notFound("Issue");
  const rows = await c.var
    .db()
    .select({
      issue: issues,
      assigneeIds: sql<number[]>`ARRAY(SELECT ia.user_id FROM issue_assignees ia WHERE ia.issue_id = ${issues.id} ORDER BY ia.user_id)`,
    })
    .from(issues)
    .where(and(eq(issues.projectId, project.id), eq(issues.iid, Number(iid))))
    .limit(1);
  const row = rows[0];
  const issue = row ? { ...row.issue, assigneeIds: (row.assigneeIds ?? []).map(Number) } : null;
  if (!issue || !canReadIssue(c.var.actor, project, issue)) throw notFound("Issue");
  return issue;
}

/** A merge request as lookups load it: with its assignees' and reviewers' ids. */
export type MergeRequestWithAssignees = MergeRequest & { assigneeIds: number[]; reviewerIds: number[] };

/**
 * `find_merge_request_with_access` (lib/api/helpers.rb): by iid inside the project; missing or not
 * readable (`read_merge_request`: the project feature and access) is `404 Merge Request Not Found`.
 * Differs from GitLab: its `find_by!` answers `404 Not found` for a missing merge request and
 * `authorize!` 403 for an unreadable one; here both are the named 404, as `findIssue` does.
 */
export async function findMergeRequest(c: Ctx, project: ProjectWithAccess, iid: string): Promise<MergeRequestWithAssignees> {
  if (!/^\d+$/.test(iid) || Number(iid) > 2147483647) throw notFound("Merge Request");
  if (!mayReadSomeMergeRequest(c.var.actor, project)) throw notFound("Merge Request");
  const rows = await c.var
    .db()
    .select({
      mr: mergeRequests,
      assigneeIds: sql<number[]>`ARRAY(SELECT a.user_id FROM merge_request_assignees a WHERE a.merge_request_id = ${mergeRequests.id} ORDER BY a.user_id)`,
      reviewerIds: sql<number[]>`ARRAY(SELECT r.user_id FROM merge_request_reviewers r WHERE r.merge_request_id = ${mergeRequests.id} ORDER BY r.user_id)`,
    })
    .from(mergeRequests)
    .where(and(eq(mergeRequests.projectId, project.id), eq(mergeRequests.iid, Number(iid))))
    .limit(1);
  const row = rows[0];
  if (!row) throw notFound("Merge Request");
  const mr = { ...row.mr, assigneeIds: (row.assigneeIds ?? []).map(Number), reviewerIds: (row.reviewerIds ?? []).map(Number) };
  if (!canReadMergeRequest(c.var.actor, project, mr)) throw notFound("Merge Request");
  return mr;
}

/**
 * MergeRequestPolicy `read_merge_request`: the project's rule (anyone who reads a public or internal
 * project, reporters and up of a private one), plus IssuablePolicy's `guest_access & assignee_or_author`:
 * a guest reads (and updates) the merge requests they wrote or are assigned to.
 */
export function canReadMergeRequest(actor: Actor | null, project: ProjectWithAccess, mr: { authorId: number | null; assigneeIds: number[] }): boolean {
  if (allowed(actor, "read_merge_request", project)) return true;
  if (!actor || !project.mergeRequestsEnabled || project.accessLevel < Access.GUEST) return false;
  return mr.authorId === actor.user.id || mr.assigneeIds.includes(actor.user.id);
}

/** Whether any merge request of the project may be readable, before loading one (a guest's own may be). */
export function mayReadSomeMergeRequest(actor: Actor | null, project: ProjectWithAccess): boolean {
  return allowed(actor, "read_merge_request", project) || (!!actor && project.mergeRequestsEnabled && project.accessLevel >= Access.GUEST);
}

/**
 * IssuablePolicy for merge requests: developers update any merge request; the author and the assignees
 * update their own while they can read it and the project is not archived.
 */
export function canUpdateMergeRequest(actor: Actor | null, project: ProjectWithAccess, mr: MergeRequestWithAssignees): boolean {
  if (!actor) return false;
  if (allowed(actor, "update_merge_request", project)) return true;
  if (project.archived || !canReadMergeRequest(actor, project, mr)) return false;
  return mr.authorId === actor.user.id || mr.assigneeIds.includes(actor.user.id);
}

/**
 * WHERE condition for issue lists across projects: the project is readable with issues enabled, and a
 * confidential issue only for reporters and up of its project, its author and its assignees.
 */
export function issueIsVisible(actor: Actor | null, issue = issues): SQL {
  const projectReadable = sql`${issue.projectId} IN (SELECT ${projects.id} FROM ${projects} WHERE ${projects.issuesEnabled} AND ${projectIsVisible(actor)})`;
  if (actor?.isAdmin) return projectReadable;
  if (!actor) return sql`(${projectReadable} AND NOT ${issue.confidential})`;
  const userId = actor.user.id;
  return sql`(${projectReadable} AND (NOT ${issue.confidential}
    OR ${issue.authorId} = ${userId}
    OR EXISTS (SELECT 1 FROM ${issueAssignees} WHERE ${issueAssignees.issueId} = ${issue.id} AND ${issueAssignees.userId} = ${userId})
    OR ${issue.projectId} IN ${authorizedProjectIds(userId, Access.REPORTER)}))`;
}

// ---------------------------------------------------------------------------------------------
// Mentions and to-dos (app/services/todo_service.rb)

/** Todo#action values. */
export const TodoAction = {
  assigned: 1,
  mentioned: 2,
  build_failed: 3,
  marked: 4,
  approval_required: 5,
  unmergeable: 6,
  directly_addressed: 7,
  merge_train_removed: 8,
  review_requested: 9,
} as const;
export type TodoActionName = keyof typeof TodoAction;

const MENTION = /(?<![\w@.+-])@([a-zA-Z0-9_][a-zA-Z0-9_.-]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])/g;
const LEADING_MENTIONS = /^\s*(?:@[a-zA-Z0-9_][a-zA-Z0-9_.-]*\s*,?\s*)+/;

/** Usernames `@mentioned` in a text (User.reference_pattern), lower-cased and unique, code blocks ignored. */
export function mentionedUsernames(text: string | null | undefined): string[] {
  if (!text) return [];
  const prose = text.replace(/```[\s\S]*?```/g, " ").replace(/`[^`]*`/g, " ");
  return [...new Set([...prose.matchAll(MENTION)].map((m) => m[1].toLowerCase()))];
}

/** Usernames addressed at the very start of a text (`@alice @bob please look`): `directly_addressed`. */
export function directlyAddressedUsernames(text: string | null | undefined): string[] {
  if (!text) return [];
  const lead = LEADING_MENTIONS.exec(text);
  return lead ? mentionedUsernames(lead[0]) : [];
}

/**
 * Ids of active users among `usernames` who may read the project (mentions of users who cannot see
 * the target create nothing, as GitLab's `filter_mentioned_users`). One statement.
 */
export async function usersWhoCanReadProject(tx: Executor, projectId: number, usernames: string[], minAccessLevel = 0): Promise<number[]> {
  if (usernames.length === 0) return [];
  const rows = await tx
    .select({ id: users.id })
    .from(users)
    .innerJoin(projects, eq(projects.id, projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(
      and(
        sql`lower(${users.username}) = ANY(${sql.param(usernames)}::text[])`,
        eq(users.state, "active"),
        sql`(${users.admin}
          OR (${projectAccessLevel(sql`${users.id}`)} >= GREATEST(${minAccessLevel}, 10))
          OR (${minAccessLevel} = 0 AND (${projects.visibilityLevel} = 20 OR (${projects.visibilityLevel} = 10 AND NOT ${users.external}))))`,
      ),
    );
  return rows.map((r) => r.id);
}

export type TodoInput = {
  userIds: number[];
  action: TodoActionName;
  targetType: "Issue" | "MergeRequest" | "Epic" | "Snippet";
  targetId: number;
  projectId: number | null;
  groupId?: number | null;
  authorId: number;
  noteId?: number | null;
  body?: string | null;
};

/** Inserts one pending to-do per user, in the caller's transaction (one statement). */
export async function createTodos(tx: Executor, input: TodoInput): Promise<void> {
  const userIds = [...new Set(input.userIds)];
  if (userIds.length === 0) return;
  await tx.insert(todos).values(
    userIds.map((userId) => ({
      userId,
      projectId: input.projectId,
      groupId: input.groupId ?? null,
      authorId: input.authorId,
      targetType: input.targetType,
      targetId: input.targetId,
      noteId: input.noteId ?? null,
      action: TodoAction[input.action],
      body: input.body ?? null,
    })),
  );
}
