// SQL of merging (MergeRequests::MergeService, PostMergeService, MergeabilityCheckService) and of
// merge request diff versions. Each write is one statement.
import { stateEventsCte } from "../shared/issuables/resource_events";
import { resolveTodosSql } from "../shared/issuables/todos";
import { eq, sql } from "drizzle-orm";
import { users, type MergeRequestDiff, type User } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { authorizedProjectIds } from "../kernel/visibility";

/** A merge request diff version as the versions API shows it. */
export type DiffVersion = MergeRequestDiff;

/**
 * The result of a mergeability check (MergeabilityCheckService), with a new diff version when the
 * source head is new (MergeRequests::RefreshService#reload_merge_requests): one statement.
 */
export async function recordCheck(
  db: Executor,
  mrId: number,
  check: {
    status: "can_be_merged" | "cannot_be_merged";
    sourceSha: string;
    targetSha: string;
    sha: string | null;
    diff: { head: string; base: string | null; start: string | null; files: number; commits: number } | null;
  },
): Promise<void> {
  const d = check.diff;
  await db.execute(sql`
    WITH diff AS (INSERT INTO merge_request_diffs (merge_request_id, head_commit_sha, base_commit_sha, start_commit_sha, files_count, commits_count)
      SELECT ${mrId}::int, ${d?.head ?? ""}::text, ${d?.base ?? null}::text, ${d?.start ?? null}::text, ${d?.files ?? 0}::int, ${d?.commits ?? 0}::int
      WHERE ${d !== null}::boolean
      ON CONFLICT DO NOTHING)
    UPDATE merge_requests SET merge_status = ${check.status}::text, merge_check_source_sha = ${check.sourceSha}::text,
      merge_check_target_sha = ${check.targetSha}::text, sha = ${check.sha}::text
    WHERE id = ${mrId}::int AND state = 'opened'`);
}

/** Versions of a merge request, newest first (`merge_request.merge_request_diffs.order_id_desc`). */
export async function listVersions(db: Executor, mrId: number, page: { limit: number; offset: number }): Promise<{ rows: DiffVersion[]; total: number }> {
  const result = await db.execute<Record<string, unknown>>(sql`
    SELECT d.*, count(*) OVER () AS total FROM merge_request_diffs d WHERE d.merge_request_id = ${mrId}
    ORDER BY d.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`);
  const rows = result.rows.map(versionOf);
  return { rows, total: result.rows.length ? Number(result.rows[0].total) : await countVersions(db, mrId) };
}

async function countVersions(db: Executor, mrId: number): Promise<number> {
  const result = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM merge_request_diffs WHERE merge_request_id = ${mrId}`);
  return Number(result.rows[0]?.n ?? 0);
}

export async function findVersion(db: Executor, mrId: number, versionId: number): Promise<DiffVersion | null> {
  const result = await db.execute<Record<string, unknown>>(sql`SELECT * FROM merge_request_diffs WHERE merge_request_id = ${mrId} AND id = ${versionId}`);
  return result.rows[0] ? versionOf(result.rows[0]) : null;
}

export async function latestVersion(db: Executor, mrId: number): Promise<DiffVersion | null> {
  const result = await db.execute<Record<string, unknown>>(sql`SELECT * FROM merge_request_diffs WHERE merge_request_id = ${mrId} ORDER BY id DESC LIMIT 1`);
  return result.rows[0] ? versionOf(result.rows[0]) : null;
}

function versionOf(r: Record<string, unknown>): DiffVersion {
  return {
    id: Number(r.id),
    mergeRequestId: Number(r.merge_request_id),
    headCommitSha: String(r.head_commit_sha),
    baseCommitSha: (r.base_commit_sha as string | null) ?? null,
    startCommitSha: (r.start_commit_sha as string | null) ?? null,
    state: String(r.state),
    filesCount: Number(r.files_count),
    commitsCount: Number(r.commits_count),
    createdAt: new Date(r.created_at as string),
  };
}

/** An issue a merge request closes, with what its reference in the merge message needs. */
export type ClosingIssue = { id: number; iid: number; projectId: number; path: string; fullPath: string; namespaceId: number };

/**
 * What a merge commit needs besides the branches, in one statement and only what is asked for: the
 * merge request author's name and email (the squash commit's author) and the issues it closes
 * (`visible_closing_issues_for`, for the default merge message).
 */
export async function mergeContext(
  db: Executor,
  mr: { id: number; authorId: number | null },
  want: { author: boolean; closingIssues: boolean },
): Promise<{ author: { name: string; email: string } | null; closingIssues: ClosingIssue[] }> {
  if (!want.author && !want.closingIssues) return { author: null, closingIssues: [] };
  type Issue = { id: number; iid: number; project_id: number; path: string; full_path: string; namespace_id: number };
  const result = await db.execute<{ author: { name: string; email: string } | string | null; issues: Issue[] | string | null }>(sql`
    SELECT ${want.author && mr.authorId !== null ? sql`(SELECT json_build_object('name', u.name, 'email', u.email) FROM users u WHERE u.id = ${mr.authorId}::int)` : sql`NULL::json`} AS author,
           ${
             want.closingIssues
               ? sql`(SELECT json_agg(json_build_object('id', i.id, 'iid', i.iid, 'project_id', i.project_id, 'path', p.path, 'full_path', p.full_path, 'namespace_id', p.namespace_id) ORDER BY c.id)
                  FROM merge_requests_closing_issues c JOIN issues i ON i.id = c.issue_id JOIN projects p ON p.id = i.project_id
                 WHERE c.merge_request_id = ${mr.id}::int)`
               : sql`NULL::json`
           } AS issues`);
  const row = result.rows[0];
  const parse = <T>(value: T | string | null): T | null => (typeof value === "string" ? (JSON.parse(value) as T) : value);
  const author = parse(row?.author ?? null);
  const issues = parse(row?.issues ?? null) ?? [];
  return {
    author: author?.email ? { name: author.name, email: author.email } : null,
    closingIssues: issues.map((r) => ({ id: Number(r.id), iid: Number(r.iid), projectId: Number(r.project_id), path: r.path, fullPath: r.full_path, namespaceId: Number(r.namespace_id) })),
  };
}

/** `merge_when_pipeline_succeeds`: the flag, the merge user and the merge parameters (AutoMergeService). */
export async function setAutoMerge(db: Executor, mrId: number, input: { userId: number; squash?: boolean; shouldRemoveSourceBranch: boolean | null }): Promise<void> {
  await db.execute(sql`
    UPDATE merge_requests SET merge_when_pipeline_succeeds = true, merge_user_id = ${input.userId}::int,
      squash = ${input.squash === undefined ? sql`squash` : sql`${input.squash}::boolean`},
      should_remove_source_branch = ${input.shouldRemoveSourceBranch}::boolean, updated_at = now()
    WHERE id = ${mrId}::int`);
}

/** AutoMergeService#cancel: the flag and the merge user cleared. */
export async function cancelAutoMerge(db: Executor, mrId: number): Promise<void> {
  await db.execute(sql`UPDATE merge_requests SET merge_when_pipeline_succeeds = false, merge_user_id = NULL, updated_at = now() WHERE id = ${mrId}::int`);
}

export async function setSquash(db: Executor, mrId: number, squash: boolean): Promise<void> {
  await db.execute(sql`UPDATE merge_requests SET squash = ${squash}::boolean WHERE id = ${mrId}::int`);
}

/**
 * MergeRequest#mark_as_merged and MergeRequests::PostMergeService, in one statement: the merge request
 * merged (its shas and the merger), the `merged` state event, the merger's to-dos on it done, and the
 * issues it closes closed (Issues::CloseService for each the merger may update: state, closer, the
 * `closed` state event naming the merge request, the open issue counters, the merger's to-dos).
 */
export async function markMerged(
  db: Executor,
  input: {
    mrId: number;
    userId: number;
    isAdmin: boolean;
    mergeCommitSha: string | null;
    squashCommitSha: string | null;
    shouldRemoveSourceBranch: boolean | null;
    squash: boolean;
  },
): Promise<{ closedIssues: { id: number; projectId: number }[] }> {
  const { mrId, userId } = input;
  const mayClose = input.isAdmin ? sql`true` : sql`i.project_id IN ${authorizedProjectIds(userId, 20)}`;
  const result = await db.execute<{ id: number; project_id: number }>(sql`
    WITH mr AS (UPDATE merge_requests SET state = 'merged', merged_at = now(), merged_by_id = ${userId}::int,
        merge_commit_sha = ${input.mergeCommitSha}::text, squash_commit_sha = ${input.squashCommitSha}::text,
        should_remove_source_branch = ${input.shouldRemoveSourceBranch}::boolean, squash = ${input.squash}::boolean,
        merge_when_pipeline_succeeds = false, merge_error = NULL, updated_at = now()
      WHERE id = ${mrId}::int AND state = 'opened' RETURNING id),
    ${stateEventsCte("mr_event", "MergeRequest", sql`SELECT 'merged', id FROM mr`, userId)},
    mr_todos AS (${resolveTodosSql(userId, "MergeRequest", mrId, { when: sql`EXISTS (SELECT 1 FROM mr)` })}),
    closed AS (UPDATE issues i SET state = 'closed', closed_at = now(), closed_by_id = ${userId}::int, updated_at = now()
      FROM merge_requests_closing_issues c
      WHERE c.merge_request_id = ${mrId}::int AND i.id = c.issue_id AND i.state = 'opened' AND ${mayClose} AND EXISTS (SELECT 1 FROM mr)
      RETURNING i.id, i.project_id),
    ${stateEventsCte("issue_events", "Issue", sql`SELECT 'closed', id FROM closed`, userId, sql`now()`, mrId)},
    issue_todos AS (${resolveTodosSql(userId, "Issue", { in: sql`SELECT id FROM closed` })}),
    counters AS (UPDATE projects p SET open_issues_count = GREATEST(p.open_issues_count - x.n, 0)
      FROM (SELECT project_id, count(*)::int AS n FROM closed GROUP BY project_id) x WHERE p.id = x.project_id)
    SELECT id, project_id FROM closed ORDER BY id`);
  // The issues closed here get their Issue Hook from the caller, after the merge (Issues::CloseService).
  return { closedIssues: result.rows.map((r) => ({ id: Number(r.id), projectId: Number(r.project_id) })) };
}

/** `merge_error` of a failed merge (MergeService#handle_merge_error). */
export async function setMergeError(db: Executor, mrId: number, message: string): Promise<void> {
  await db.execute(sql`UPDATE merge_requests SET merge_error = ${message}::text WHERE id = ${mrId}::int`);
}

/**
 * The head pipeline of a merge request (`actual_head_pipeline`): the newest pipeline of the source
 * branch on the diff head.
 */
export async function headPipeline(db: Executor, projectId: number, sourceBranch: string, sha: string | null): Promise<{ id: number; status: string } | null> {
  if (!sha) return null;
  const result = await db.execute<{ id: number; status: string }>(sql`
    SELECT id, status FROM ci_pipelines WHERE project_id = ${projectId} AND ref = ${sourceBranch} AND NOT tag AND sha = ${sha} AND parent_pipeline_id IS NULL
    ORDER BY id DESC LIMIT 1`);
  const row = result.rows[0];
  return row ? { id: Number(row.id), status: row.status } : null;
}

/**
 * The open merge requests of the project waiting to merge when a pipeline of `ref` at `sha` succeeds
 * (`merge_when_pipeline_succeeds`, source branch `ref` of this project, head `sha`).
 */
export async function autoMergeWaiting(db: Executor, projectId: number, ref: string, sha: string): Promise<{ id: number; iid: number; projectId: number; mergeUserId: number | null }[]> {
  const result = await db.execute<{ id: number; iid: number; project_id: number; merge_user_id: number | null }>(sql`
    SELECT id, iid, project_id, merge_user_id FROM merge_requests
     WHERE source_project_id = ${projectId}::int AND source_branch = ${ref}::text AND sha = ${sha}::text
       AND state = 'opened' AND merge_when_pipeline_succeeds
     ORDER BY id`);
  return result.rows.map((r) => ({ id: Number(r.id), iid: Number(r.iid), projectId: Number(r.project_id), mergeUserId: r.merge_user_id === null ? null : Number(r.merge_user_id) }));
}

/** The user who asked for the merge, as the merge runs on their behalf. */
export async function userById(db: Executor, id: number): Promise<User | null> {
  const [user] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return user ?? null;
}
