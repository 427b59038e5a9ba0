import { and, eq, inArray, or, sql } from "drizzle-orm";
import { gitCommits, issueAssignees, issues, labels, mergeRequestAssignees, mergeRequests, milestones, namespaces, projects, users } from "../../../db/schema";
import type { ProjectWithAccess } from "../../kernel/abilities";
import type { Executor } from "../../kernel/db";
import type { Actor } from "../../kernel/env";
import { groupIsVisible, projectAccessLevel } from "../../kernel/visibility";

/**
 * The lookups of reference resolution: one statement per reference kind, whatever the number of
 * references or texts (render.ts collects them all first). Rows come back unfiltered by the
 * caller's rights unless said otherwise; render.ts applies the read rules of shared/issuables/policy.ts.
 */

/** Projects by full path (case-insensitive) with the actor's access level, as kernel/lookup.ts loads one. */
export async function projectsByPath(db: Executor, actor: Actor | null, paths: string[]): Promise<ProjectWithAccess[]> {
  if (paths.length === 0) return [];
  const rows = await db
    .select({ project: projects, namespace: namespaces, accessLevel: projectAccessLevel(actor?.user.id ?? null) })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(sql`lower(${projects.fullPath}) = ANY(${sql.param(paths.map((p) => p.toLowerCase()))}::text[])`);
  return rows.map((r) => ({ ...r.project, namespace: r.namespace, accessLevel: Number(r.accessLevel) }));
}

type Pair = { projectId: number; iid: number };
const pairsSql = (pairs: Pair[]) => sql`unnest(${sql.param(pairs.map((p) => p.projectId))}::int[], ${sql.param(pairs.map((p) => p.iid))}::int[]) AS r(project_id, iid)`;

export type IssueRef = { id: number; iid: number; projectId: number; title: string; state: string; issueType: string; confidential: boolean; authorId: number | null; assigneeIds: number[] };

/** Issues by (project, iid), with their assignees (for the confidentiality rule). */
export async function issuesByIid(db: Executor, pairs: Pair[]): Promise<IssueRef[]> {
  if (pairs.length === 0) return [];
  return db
    .select({
      id: issues.id,
      iid: issues.iid,
      projectId: issues.projectId,
      title: issues.title,
      state: issues.state,
      issueType: issues.issueType,
      confidential: issues.confidential,
      authorId: issues.authorId,
      assigneeIds: sql<number[]>`ARRAY(SELECT ${issueAssignees.userId} FROM ${issueAssignees} WHERE ${issueAssignees.issueId} = ${issues.id})`,
    })
    .from(issues)
    .where(sql`(${issues.projectId}, ${issues.iid}) IN (SELECT project_id, iid FROM ${pairsSql(pairs)})`);
}

export type MergeRequestRef = { id: number; iid: number; projectId: number; title: string; state: string; authorId: number | null; assigneeIds: number[] };

/** Merge requests by (target project, iid), with their assignees (a guest reads their own). */
export async function mergeRequestsByIid(db: Executor, pairs: Pair[]): Promise<MergeRequestRef[]> {
  if (pairs.length === 0) return [];
  return db
    .select({
      id: mergeRequests.id,
      iid: mergeRequests.iid,
      projectId: mergeRequests.projectId,
      title: mergeRequests.title,
      state: mergeRequests.state,
      authorId: mergeRequests.authorId,
      assigneeIds: sql<number[]>`ARRAY(SELECT ${mergeRequestAssignees.userId} FROM ${mergeRequestAssignees} WHERE ${mergeRequestAssignees.mergeRequestId} = ${mergeRequests.id})`,
    })
    .from(mergeRequests)
    .where(sql`(${mergeRequests.projectId}, ${mergeRequests.iid}) IN (SELECT project_id, iid FROM ${pairsSql(pairs)})`);
}

export type LabelRef = { id: number; projectId: number | null; groupId: number | null; title: string; color: string; description: string | null };

/** Labels of the given projects and groups (their ancestors, which the caller names) by title or id. */
export async function labelsOf(db: Executor, owners: { projectIds: number[]; groupIds: number[] }, titles: string[], ids: number[]): Promise<LabelRef[]> {
  if ((titles.length === 0 && ids.length === 0) || (owners.projectIds.length === 0 && owners.groupIds.length === 0)) return [];
  return db
    .select({ id: labels.id, projectId: labels.projectId, groupId: labels.groupId, title: labels.title, color: labels.color, description: labels.description })
    .from(labels)
    .where(
      and(
        or(owners.projectIds.length ? inArray(labels.projectId, owners.projectIds) : undefined, owners.groupIds.length ? inArray(labels.groupId, owners.groupIds) : undefined),
        or(titles.length ? inArray(labels.title, titles) : undefined, ids.length ? inArray(labels.id, ids) : undefined),
      ),
    );
}

export type MilestoneRef = { id: number; iid: number; projectId: number | null; groupId: number | null; title: string; groupPath: string | null };

/** Milestones of the given projects and groups by title or iid, with the group's path for a group milestone's URL. */
export async function milestonesOf(db: Executor, owners: { projectIds: number[]; groupIds: number[] }, titles: string[], iids: number[]): Promise<MilestoneRef[]> {
  if ((titles.length === 0 && iids.length === 0) || (owners.projectIds.length === 0 && owners.groupIds.length === 0)) return [];
  return db
    .select({
      id: milestones.id,
      iid: milestones.iid,
      projectId: milestones.projectId,
      groupId: milestones.groupId,
      title: milestones.title,
      groupPath: namespaces.fullPath,
    })
    .from(milestones)
    .leftJoin(namespaces, eq(namespaces.id, milestones.groupId))
    .where(
      and(
        or(owners.projectIds.length ? inArray(milestones.projectId, owners.projectIds) : undefined, owners.groupIds.length ? inArray(milestones.groupId, owners.groupIds) : undefined),
        or(titles.length ? inArray(milestones.title, titles) : undefined, iids.length ? inArray(milestones.iid, iids) : undefined),
      ),
    );
}

export type MentionRef = { kind: "user" | "group"; id: number; path: string; name: string };

/**
 * Users by username and the groups the actor may read by full path (UserReferenceFilter looks both up
 * by `Namespace` route), in one statement.
 */
export async function mentionables(db: Executor, actor: Actor | null, names: string[]): Promise<MentionRef[]> {
  if (names.length === 0) return [];
  const lowered = sql.param(names.map((n) => n.toLowerCase()));
  const result = await db.execute<{ kind: "user" | "group"; id: number; path: string; name: string }>(sql`
    SELECT 'user' AS kind, ${users.id} AS id, ${users.username} AS path, ${users.name} AS name FROM ${users}
      WHERE lower(${users.username}) = ANY(${lowered}::text[])
    UNION ALL
    SELECT 'group', ${namespaces.id}, ${namespaces.fullPath}, ${namespaces.name} FROM ${namespaces}
      WHERE ${namespaces.type} = 'Group' AND lower(${namespaces.fullPath}) = ANY(${lowered}::text[]) AND ${groupIsVisible(actor)}`);
  return result.rows.map((r) => ({ ...r, id: Number(r.id) }));
}

export type CommitRef = { poolId: number; sha: string; message: string; prefix: string };

/** Commits by sha prefix in the given object pools (an index range per prefix). */
export async function commitsByPrefix(db: Executor, wanted: { poolId: number; prefix: string }[]): Promise<CommitRef[]> {
  if (wanted.length === 0) return [];
  const result = await db.execute<{ pool_id: number; oid: string; message: string; prefix: string }>(sql`
    SELECT c.pool_id, c.oid, c.message, r.prefix
    FROM unnest(${sql.param(wanted.map((w) => w.poolId))}::int[], ${sql.param(wanted.map((w) => w.prefix))}::text[]) AS r(pool_id, prefix)
    JOIN LATERAL (
      SELECT ${gitCommits.poolId} AS pool_id, ${gitCommits.oid} AS oid, ${gitCommits.message} AS message FROM ${gitCommits}
      WHERE ${gitCommits.poolId} = r.pool_id AND ${gitCommits.oid} >= r.prefix AND ${gitCommits.oid} < r.prefix || 'g'
      LIMIT 2
    ) c ON true`);
  return result.rows.map((r) => ({ poolId: Number(r.pool_id), sha: r.oid.trim(), message: r.message, prefix: r.prefix }));
}
