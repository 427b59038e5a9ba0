import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { notes } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { noteRow, onNoteable, selectNotes, type Noteable, type NoteRow } from "../shared/issuables/noteables";
import { cappedCount, type Page } from "../kernel/pagination";
import type { DiscussionRow } from "../entities/discussions";


function readable(n: Noteable, hideConfidential: boolean): SQL {
  return hideConfidential ? and(onNoteable(n), eq(notes.confidential, false))! : onNoteable(n);
}

/** Notes (in creation order) grouped by discussion, keeping the order of the first appearance. */
function group(rows: NoteRow[]): DiscussionRow[] {
  const byId = new Map<string, DiscussionRow>();
  for (const row of rows) {
    let d = byId.get(row.discussionId);
    if (!d) byId.set(row.discussionId, (d = { id: row.discussionId, notes: [] }));
    d.notes.push(row);
  }
  return [...byId.values()];
}

/**
 * `paginate(noteable.discussion_ids_relation)` (discussions ordered by their first note), then the
 * notes of the page's discussions in creation order: one statement, plus the capped count.
 * Differs from GitLab: discussions made only of notes the caller may not read (confidential) are left
 * out before paginating, so they are not counted in `X-Total`.
 */
export async function listDiscussions(db: Executor, n: Noteable, hideConfidential: boolean, page: Page): Promise<{ rows: DiscussionRow[]; total: number }> {
  const where = readable(n, hideConfidential);
  const ids = db.$with("page_discussions").as(
    db
      .select({
        discussionId: notes.discussionId,
        firstAt: sql<Date>`min(${notes.createdAt})`.as("first_at"),
        firstId: sql<number>`min(${notes.id})`.as("first_id"),
      })
      .from(notes)
      .where(where)
      .groupBy(notes.discussionId)
      .orderBy(sql`min(${notes.createdAt})`, sql`min(${notes.id})`)
      .limit(page.limit)
      .offset(page.offset),
  );
  const rows = await selectNotes(db, ids)
    .innerJoin(ids, eq(ids.discussionId, notes.discussionId))
    .where(where)
    .orderBy(asc(ids.firstAt), asc(ids.firstId), asc(notes.createdAt), asc(notes.id));
  const total = await cappedCount(db, db.select({ d: notes.discussionId }).from(notes).where(where).groupBy(notes.discussionId), page);
  return { rows: group(rows.map(noteRow)), total };
}

/** The readable notes of one discussion of the noteable, in creation order (`readable_discussion_notes`). */
export async function findDiscussion(db: Executor, n: Noteable, discussionId: string, hideConfidential: boolean): Promise<DiscussionRow | null> {
  const rows = await selectNotes(db)
    .where(and(readable(n, hideConfidential), eq(notes.discussionId, discussionId)))
    .orderBy(asc(notes.createdAt), asc(notes.id));
  return rows.length ? { id: discussionId, notes: rows.map(noteRow) } : null;
}

/** Discussions::ResolveService / UnresolveService: every resolvable note of the discussion. */
export async function resolveDiscussion(db: Executor, n: Noteable, discussionId: string, userId: number | null): Promise<void> {
  await db
    .update(notes)
    .set(userId === null ? { resolvedAt: null, resolvedById: null } : { resolvedAt: sql`now()`, resolvedById: userId })
    .where(and(onNoteable(n), eq(notes.discussionId, discussionId), eq(notes.type, "DiscussionNote"), eq(notes.system, false)));
}

/** Note#resolve! / unresolve! for one note. */
export async function resolveNote(db: Executor, noteId: number, userId: number | null): Promise<void> {
  await db
    .update(notes)
    .set(userId === null ? { resolvedAt: null, resolvedById: null } : { resolvedAt: sql`now()`, resolvedById: userId })
    .where(eq(notes.id, noteId));
}
