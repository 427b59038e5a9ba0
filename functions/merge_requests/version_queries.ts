// The diff versions of a merge request (merge_request_diffs), its participants and the issues it
// closes: the reads behind commits, changes, diffs, versions, participants and closes_issues.
import { and, desc, eq, sql } from "drizzle-orm";
import { mergeRequestDiffs, type MergeRequestDiff } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { cappedCount, type Page } from "../kernel/pagination";
import { issueIsVisible } from "../shared/issuables/policy";
import { loadIssueRows, type IssueRow } from "../shared/issuables/issue_preload";
import type { UserBasicRow } from "../entities/users";
import { readsMergeRequests } from "./queries";
import type { IssueRef } from "./references";

export type Version = MergeRequestDiff;

/** `merge_request.merge_request_diff`: the newest version, null before the first check found the branches. */
export async function latestVersion(db: Executor, mrId: number): Promise<Version | null> {
  const rows = await db.select().from(mergeRequestDiffs).where(eq(mergeRequestDiffs.mergeRequestId, mrId)).orderBy(desc(mergeRequestDiffs.id)).limit(1);
  return rows[0] ?? null;
}

/** `merge_request_diffs.find(version_id)`: null when it is not one of this merge request's. */
export async function versionById(db: Executor, mrId: number, id: number): Promise<Version | null> {
  const rows = await db
    .select()
    .from(mergeRequestDiffs)
    .where(and(eq(mergeRequestDiffs.mergeRequestId, mrId), eq(mergeRequestDiffs.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/** `merge_request_diffs.order_id_desc`, one page and the capped total. */
export async function listVersions(db: Executor, mrId: number, page: Page): Promise<{ rows: Version[]; total: number }> {
  const where = eq(mergeRequestDiffs.mergeRequestId, mrId);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(mergeRequestDiffs).where(where), page);
  const rows = await db.select().from(mergeRequestDiffs).where(where).orderBy(desc(mergeRequestDiffs.id)).limit(page.limit).offset(page.offset);
  return { rows, total };
}

/**
 * `visible_participants` (Participable, 15.x): the author, the authors of the notes (system notes
 * too, in note order), the assignees and the reviewers, each once, in that order, kept when they
 * may read the project's merge requests. One statement.
 */
export async function participants(db: Executor, mr: { id: number; projectId: number }): Promise<UserBasicRow[]> {
  const result = await db.execute<{ id: number; username: string; name: string; state: string; avatar_url: string | null; email: string }>(sql`
    WITH candidates AS (
      SELECT m.author_id AS user_id, 0 AS source, 0::bigint AS ord FROM merge_requests m WHERE m.id = ${mr.id} AND m.author_id IS NOT NULL
      UNION ALL SELECT n.author_id, 1, n.id FROM notes n
        WHERE n.noteable_type = 'MergeRequest' AND n.noteable_id = ${mr.id} AND n.author_id IS NOT NULL
      UNION ALL SELECT a.user_id, 2, a.user_id FROM merge_request_assignees a WHERE a.merge_request_id = ${mr.id}
      UNION ALL SELECT r.user_id, 3, r.user_id FROM merge_request_reviewers r WHERE r.merge_request_id = ${mr.id}
    ), firsts AS (
      SELECT DISTINCT ON (user_id) user_id, source, ord FROM candidates ORDER BY user_id, source, ord
    )
    SELECT u.id, u.username, u.name, u.state, u.avatar_url, u.email
      FROM firsts f JOIN users u ON u.id = f.user_id, projects JOIN namespaces ON namespaces.id = projects.namespace_id
     WHERE projects.id = ${mr.projectId} AND ${readsMergeRequests(sql`u.id`)}
     ORDER BY f.source, f.ord`);
  return result.rows.map((r) => ({ id: Number(r.id), username: r.username, name: r.name, state: r.state, avatarUrl: r.avatar_url, email: r.email }));
}

/**
 * `visible_closing_issues_for(current_user)`: the issues stored as closed by the description
 * (merge_requests_closing_issues) and those the commit messages' `refs` close, that the caller reads,
 * in reference order, fully loaded for the issue entity.
 */
export async function closingIssuesFor(db: Executor, actor: Actor | null, mrId: number, refs: IssueRef[]): Promise<IssueRow[]> {
  const paths = refs.map((r) => r.path);
  const iids = refs.map((r) => r.iid);
  const result = await db.execute<{ id: number }>(sql`
    SELECT issues.id FROM (
      SELECT c.issue_id, 0 AS source, c.id AS ord FROM merge_requests_closing_issues c WHERE c.merge_request_id = ${mrId}
      UNION ALL SELECT i.id, 1, r.ord FROM issues i JOIN projects p ON p.id = i.project_id
        JOIN unnest(${sql.param(paths)}::text[], ${sql.param(iids)}::int[]) WITH ORDINALITY AS r(path, iid, ord) ON lower(p.full_path) = r.path AND i.iid = r.iid
    ) refs JOIN issues ON issues.id = refs.issue_id
    WHERE ${issueIsVisible(actor)}
    GROUP BY issues.id ORDER BY min(refs.source), min(refs.ord)`);
  const ids = result.rows.map((r) => Number(r.id));
  return loadIssueRows(db, ids, actor);
}
