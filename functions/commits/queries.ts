// The commits domain's own Drizzle code: merge requests related to a commit, commit notes.
import { and, asc, desc, eq, notInArray, sql } from "drizzle-orm";
import { ciPipelines, gpgKeys, mergeRequests, notes, type CiPipeline } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { cappedCount, type Page } from "../kernel/pagination";
import { noteRow, selectNotes, type NoteRow } from "../shared/issuables/noteables";
import { loadMergeRequestRows, type MergeRequestRow } from "../shared/issuables/merge_request_preload";

/** What decides whether a merge request is related to a commit: its newest diff version and its merge commits. */
export type MergeRequestCommits = {
  id: number;
  head: string | null;
  base: string | null;
  mergeCommitSha: string | null;
  squashCommitSha: string | null;
};

/**
 * Every merge request targeting the project, newest id first (MergeRequestsFinder's default
 * `reorder(id: :desc)`), with its newest diff version's head and base (one statement).
 */
export async function mergeRequestCommits(db: Executor, projectId: number): Promise<MergeRequestCommits[]> {
  const rows = await db
    .select({
      id: mergeRequests.id,
      mergeCommitSha: mergeRequests.mergeCommitSha,
      squashCommitSha: mergeRequests.squashCommitSha,
      // Spelled out: inside a selection Drizzle writes the column without its table, which the subquery would read as `d.id`.
      latest: sql<{ head: string; base: string | null } | null>`(SELECT json_build_object('head', d.head_commit_sha, 'base', d.base_commit_sha)
        FROM merge_request_diffs d WHERE d.merge_request_id = merge_requests.id ORDER BY d.id DESC LIMIT 1)`,
    })
    .from(mergeRequests)
    .where(eq(mergeRequests.projectId, projectId))
    .orderBy(desc(mergeRequests.id));
  return rows.map((r) => ({
    id: r.id,
    head: r.latest?.head ?? null,
    base: r.latest?.base ?? null,
    mergeCommitSha: r.mergeCommitSha,
    squashCommitSha: r.squashCommitSha,
  }));
}

/** The merge requests with these ids, fully loaded for the entity, in the order given (one statement). */
export function loadMergeRequests(db: Executor, ids: number[], actor: Actor | null): Promise<MergeRequestRow[]> {
  return loadMergeRequestRows(db, ids, actor);
}

export type { NoteRow } from "../shared/issuables/noteables";
export type { GitCommitRow } from "../../db/schema";

/** `commit.notes.fresh` (created_at, then id), paginated with the count (two statements). */
export async function listCommitNotes(db: Executor, projectId: number, commitId: string, page: Page): Promise<{ rows: NoteRow[]; total: number }> {
  const where = and(eq(notes.projectId, projectId), eq(notes.commitId, commitId), eq(notes.noteableType, "Commit"));
  const rows = await selectNotes(db).where(where).orderBy(asc(notes.createdAt), asc(notes.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(notes).where(where), page);
  return { rows: rows.map(noteRow), total };
}

/**
 * `Commit#last_pipeline`: the newest pipeline of the project on the commit, whatever its ref, among
 * `ci_sources` (child pipelines and the other dangling sources left out); 1 statement.
 */
export async function lastPipeline(db: Executor, projectId: number, sha: string): Promise<CiPipeline | null> {
  const [row] = await db
    .select()
    .from(ciPipelines)
    .where(and(eq(ciPipelines.projectId, projectId), eq(ciPipelines.sha, sha), notInArray(ciPipelines.source, ["parent_pipeline", "webide", "ondemand_dast_scan", "ondemand_dast_validation"])))
    .orderBy(desc(ciPipelines.id))
    .limit(1);
  return row ?? null;
}

/** The instance's GPG key whose primary key id is `keyid` (upper-case hex), if any. */
export async function gpgKeyByKeyid(db: Executor, keyid: string): Promise<{ id: number; primaryKeyid: string } | null> {
  const rows = await db.select({ id: gpgKeys.id, primaryKeyid: gpgKeys.primaryKeyid }).from(gpgKeys).where(eq(gpgKeys.primaryKeyid, keyid)).limit(1);
  return rows[0] ?? null;
}
