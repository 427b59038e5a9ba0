import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import { issues, mergeRequests, notes, snippets } from "../../db/schema";
import type { ProjectWithAccess } from "../kernel/abilities";
import type { Actor } from "../kernel/env";
import { fuzzySearch } from "../kernel/fuzzy_search";
import { issueIsVisible, snippetIsVisible } from "../shared/issuables/policy";
import type { Executor } from "../kernel/db";
import { noteRow, onNoteable, selectNotes, type Noteable, type NoteRow } from "../shared/issuables/noteables";
import { cappedCount, type Page } from "../kernel/pagination";
import type { ListParams } from "./params";

/**
 * `noteable.notes.with_notes_filter(...).reorder(order_options_with_tie_breaker)`, paginated.
 * Differs from GitLab: notes the caller may not read are filtered in SQL, so pages are full and
 * `X-Total` counts only readable notes (GitLab drops them after paginating): `hideConfidential` when the
 * caller may not read confidential notes.
 */
export async function listNotes(db: Executor, n: Noteable, f: ListParams, hideConfidential: boolean, page: Page): Promise<{ rows: NoteRow[]; total: number }> {
  const conditions: SQL[] = [onNoteable(n)];
  if (f.activity_filter === "only_comments") conditions.push(eq(notes.system, false));
  if (f.activity_filter === "only_activity") conditions.push(eq(notes.system, true));
  if (hideConfidential) conditions.push(eq(notes.confidential, false));
  const where = and(...conditions);
  const column = f.order_by === "updated_at" ? notes.updatedAt : notes.createdAt;
  const direction = f.sort === "asc" ? asc : desc;
  const rows = await selectNotes(db)
    .where(where)
    .orderBy(direction(column), direction(notes.id))
    .limit(page.limit)
    .offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(notes).where(where), page);
  return { rows: rows.map(noteRow), total };
}

/** What the caller may read of a project's noteables (decided by the caller from the project's abilities). */
export type NoteSearchRules = { issues: boolean; mergeRequests: boolean; commits: boolean; snippets: boolean; confidential: boolean };

/** A searched note with its noteable's iid (issues and merge requests; `noteable_iid`). */
export type SearchedNoteRow = NoteRow & { noteableIid: number | null };

/**
 * The search API's `notes` in a project (ProjectSearchResults#notes: NotesFinder with `search` over the
 * project's issues, merge requests, commits and snippets the caller may read, user notes only), most
 * recently updated first, with a capped count (the project search paginates notes with a count).
 * Confidential (internal) notes only for who reads them (`confidential`).
 */
export async function searchProjectNotes(
  db: Executor,
  actor: Actor | null,
  project: ProjectWithAccess,
  rules: NoteSearchRules,
  query: string,
  page: Page,
): Promise<{ rows: SearchedNoteRow[]; total: number }> {
  const readable: SQL[] = [];
  if (rules.issues)
    readable.push(sql`(${notes.noteableType} = 'Issue' AND ${notes.noteableId} IN (SELECT ${issues.id} FROM ${issues}
      WHERE ${issues.projectId} = ${project.id} AND ${issueIsVisible(actor)}))`);
  if (rules.mergeRequests)
    readable.push(sql`(${notes.noteableType} = 'MergeRequest' AND ${notes.noteableId} IN (SELECT ${mergeRequests.id} FROM ${mergeRequests}
      WHERE ${mergeRequests.projectId} = ${project.id}))`);
  if (rules.commits) readable.push(sql`${notes.noteableType} = 'Commit'`);
  if (rules.snippets)
    readable.push(sql`(${notes.noteableType} = 'Snippet' AND ${notes.noteableId} IN (SELECT ${snippets.id} FROM ${snippets}
      WHERE ${snippets.projectId} = ${project.id} AND ${snippetIsVisible(actor, project)}))`);
  if (readable.length === 0) return { rows: [], total: 0 };
  const conditions: (SQL | undefined)[] = [eq(notes.projectId, project.id), eq(notes.system, false), sql`(${sql.join(readable, sql` OR `)})`];
  if (!rules.confidential) conditions.push(eq(notes.confidential, false));
  conditions.push(fuzzySearch([notes.note], query) ?? undefined);
  const where = and(...conditions);
  const rows = await selectNotes(db)
    .where(where)
    .orderBy(desc(notes.updatedAt), desc(notes.id))
    .limit(page.limit)
    .offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(notes).where(where), page);
  const found = rows.map(noteRow);
  const issueIds = found.filter((r) => r.noteableType === "Issue").map((r) => r.noteableId!);
  const mrIds = found.filter((r) => r.noteableType === "MergeRequest").map((r) => r.noteableId!);
  const iids = new Map<string, number>();
  if (issueIds.length || mrIds.length) {
    const result = await db.execute<{ kind: string; id: number; iid: number }>(sql`
      SELECT 'Issue' AS kind, id, iid FROM issues WHERE id = ANY(${sql.param(issueIds)}::int[])
      UNION ALL SELECT 'MergeRequest', id, iid FROM merge_requests WHERE id = ANY(${sql.param(mrIds)}::int[])`);
    for (const r of result.rows) iids.set(`${r.kind}:${r.id}`, Number(r.iid));
  }
  return { rows: found.map((r) => ({ ...r, noteableIid: iids.get(`${r.noteableType}:${r.noteableId}`) ?? null })), total };
}
