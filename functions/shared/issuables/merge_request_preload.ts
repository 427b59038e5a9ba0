import { eq, sql, type SQL } from "drizzle-orm";
import { mergeRequests, namespaces, projects } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import type { Actor } from "../../kernel/env";
import { milestoneJson } from "./issue_preload";
import { projectAccessLevel } from "../../kernel/visibility";
import { subscriptionSql } from "./subscriptions";
import { branchIsProtectedSql } from "../protected_branches/read";
import type { MergeRequestProject, MergeRequestRow } from "../../entities/merge_requests";

export type { MergeRequestProject, MergeRequestRow };

/**
 * Everything the merge request entities (functions/entities/merge_requests.ts) need, in ONE statement
 * for any number of merge requests: the row, its project's paths and settings with the caller's access
 * level, author, closer, merger, assignees, reviewers, labels and milestone. Domains that present merge
 * requests (merge request lists, related merge requests, to-dos) select ids or filter, then load here.
 */

const branchTip = (projectId: SQL, branch: SQL) =>
  sql`coalesce((SELECT r.target FROM git_refs r WHERE r.project_id = ${projectId} AND r.name = 'refs/heads/' || ${branch}), '-')`;

const checkStaleSql = sql`(${mergeRequests.state} = 'opened' AND NOT ${projects.emptyRepo} AND (${mergeRequests.mergeStatus} = 'unchecked'
  OR ${mergeRequests.mergeCheckSourceSha} IS DISTINCT FROM ${branchTip(sql`${mergeRequests.sourceProjectId}`, sql`${mergeRequests.sourceBranch}`)}
  OR ${mergeRequests.mergeCheckTargetSha} IS DISTINCT FROM ${branchTip(sql`${mergeRequests.projectId}`, sql`${mergeRequests.targetBranch}`)}))`;

const userJson = (id: SQL) => sql`(SELECT json_build_object('id', u.id, 'username', u.username, 'name', u.name,
  'state', u.state, 'avatarUrl', u.avatar_url, 'email', u.email) FROM users u WHERE u.id = ${id})`;

const usersJson = (table: string) => sql`COALESCE((SELECT json_agg(json_build_object('id', u.id, 'username', u.username,
  'name', u.name, 'state', u.state, 'avatarUrl', u.avatar_url, 'email', u.email) ORDER BY u.id)
  FROM ${sql.identifier(table)} x JOIN users u ON u.id = x.user_id WHERE x.merge_request_id = ${mergeRequests.id}), '[]'::json)`;

const labelsJson = sql`COALESCE((SELECT json_agg(json_build_object('id', l.id, 'title', l.title, 'color', l.color,
  'description', l.description) ORDER BY l.title) FROM label_links ll JOIN labels l ON l.id = ll.label_id
  WHERE ll.target_type = 'MergeRequest' AND ll.target_id = ${mergeRequests.id}), '[]'::json)`;

const milestoneSql = sql`(SELECT ${milestoneJson("ms")} FROM milestones ms WHERE ms.id = ${mergeRequests.milestoneId})`;

function selection(actor: Actor | null) {
  return {
    mr: mergeRequests,
    project: {
      id: projects.id,
      path: projects.path,
      fullPath: projects.fullPath,
      namespaceId: projects.namespaceId,
      visibilityLevel: projects.visibilityLevel,
      jobsEnabled: projects.jobsEnabled,
      publicJobs: projects.publicJobs,
      archived: projects.archived,
      poolId: projects.poolId,
      defaultBranch: projects.defaultBranch,
      emptyRepo: projects.emptyRepo,
    },
    accessLevel: projectAccessLevel(actor?.user.id ?? null),
    author: sql<MergeRequestRow["author"]>`${userJson(sql`${mergeRequests.authorId}`)}`,
    closedBy: sql<MergeRequestRow["closedBy"]>`${userJson(sql`${mergeRequests.closedById}`)}`,
    mergedBy: sql<MergeRequestRow["mergedBy"]>`${userJson(sql`${mergeRequests.mergedById}`)}`,
    mergeUser: sql<MergeRequestRow["mergeUser"]>`${userJson(sql`${mergeRequests.mergeUserId}`)}`,
    latestDiff: sql<MergeRequestRow["latestDiff"]>`(SELECT json_build_object('id', d.id, 'headCommitSha', d.head_commit_sha,
      'baseCommitSha', d.base_commit_sha, 'startCommitSha', d.start_commit_sha, 'filesCount', d.files_count)
      FROM merge_request_diffs d WHERE d.merge_request_id = ${mergeRequests.id} ORDER BY d.id DESC LIMIT 1)`,
    assignees: sql<MergeRequestRow["assignees"]>`${usersJson("merge_request_assignees")}`,
    reviewers: sql<MergeRequestRow["reviewers"]>`${usersJson("merge_request_reviewers")}`,
    labels: sql<MergeRequestRow["labels"]>`${labelsJson}`,
    milestone: sql<MergeRequestRow["milestone"]>`${milestoneSql}`,
    actorSubscription: subscriptionSql("MergeRequest", sql`${mergeRequests.id}`, actor?.user.id ?? null, sql`${mergeRequests.projectId}`),
    checkStale: sql<boolean>`${checkStaleSql}`,
    collaboration: sql<boolean | null>`CASE WHEN ${mergeRequests.sourceProjectId} = ${mergeRequests.projectId} THEN NULL
      WHEN NOT ${mergeRequests.allowCollaboration} THEN false
      ELSE ${projects.visibilityLevel} > 0
        AND EXISTS (SELECT 1 FROM projects sp WHERE sp.id = ${mergeRequests.sourceProjectId} AND sp.visibility_level > 0)
        AND NOT ${branchIsProtectedSql(mergeRequests.sourceProjectId, mergeRequests.sourceBranch)} END`,
  };
}

type Selected = { mr: typeof mergeRequests.$inferSelect; project: Omit<MergeRequestRow["project"], "accessLevel">; accessLevel: number } & Pick<
  MergeRequestRow,
  "author" | "closedBy" | "mergedBy" | "mergeUser" | "latestDiff" | "assignees" | "reviewers" | "labels" | "milestone" | "actorSubscription" | "checkStale" | "collaboration"
>;

export function toMergeRequestRow(r: unknown): MergeRequestRow {
  const s = r as Selected;
  return {
    ...s.mr,
    project: { ...s.project, accessLevel: Number(s.accessLevel) },
    author: s.author,
    closedBy: s.closedBy,
    mergedBy: s.mergedBy,
    mergeUser: s.mergeUser,
    latestDiff: s.latestDiff,
    assignees: s.assignees ?? [],
    reviewers: s.reviewers ?? [],
    labels: s.labels ?? [],
    milestone: s.milestone,
    actorSubscription: s.actorSubscription ?? null,
    checkStale: !!s.checkStale,
    collaboration: s.collaboration ?? null,
  };
}

/** The select with every relation; callers add WHERE, ORDER BY and LIMIT, then map with `toMergeRequestRow`. */
export function mergeRequestRowsQuery(db: Executor, actor: Actor | null) {
  return db
    .select(selection(actor))
    .from(mergeRequests)
    .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId));
}

/** The merge requests with these ids, in the order of `ids` (one statement); visibility is the caller's business. */
export async function loadMergeRequestRows(db: Executor, ids: number[], actor: Actor | null): Promise<MergeRequestRow[]> {
  if (ids.length === 0) return [];
  const rows = await mergeRequestRowsQuery(db, actor).where(sql`${mergeRequests.id} = ANY(${sql.param(ids)}::int[])`);
  const byId = new Map(rows.map((r) => [r.mr.id, toMergeRequestRow(r)]));
  return ids.map((id) => byId.get(id)).filter((r): r is MergeRequestRow => !!r);
}
