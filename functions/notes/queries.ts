import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import { notes } from "../../db/schema";
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
