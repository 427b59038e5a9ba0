import { and, asc, eq, sql } from "drizzle-orm";
import { operationsStrategies, operationsUserLists as lists, type UserList } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { nextIidSql } from "../shared/issuables/iids";
import { escapeLike } from "../kernel/fuzzy_search";
import { cappedCount, type Page } from "../kernel/pagination";

/** `for_name_like` (fuzzy_search without the 3-character minimum): every word in the name. */
function nameLike(search: string | undefined) {
  const terms = (search ?? "").trim().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return undefined;
  return and(...terms.map((term) => sql`${lists.name} ILIKE ${`%${escapeLike(term)}%`}`));
}

/** FeatureFlagsUserListsFinder: the project's lists by id. */
export async function listUserLists(db: Executor, projectId: number, search: string | undefined, page: Page): Promise<{ rows: UserList[]; total: number }> {
  const where = and(eq(lists.projectId, projectId), nameLike(search));
  const rows = await db.select().from(lists).where(where).orderBy(asc(lists.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(lists).where(where), page);
  return { rows, total };
}

export async function findUserList(db: Executor, projectId: number, iid: number): Promise<UserList | null> {
  const rows = await db.select().from(lists).where(and(eq(lists.projectId, projectId), eq(lists.iid, iid))).limit(1);
  return rows[0] ?? null;
}

/** Inserts with the next gapless iid; null when the project has a list of this name. */
export async function insertUserList(db: Executor, projectId: number, v: { name: string; userXids: string }): Promise<UserList | null> {
  const result = await db.execute<{ id: number }>(sql`
    WITH taken AS (SELECT 1 FROM operations_user_lists WHERE project_id = ${projectId}::int AND name = ${v.name}::text),
    iid AS (${nextIidSql("operations_user_lists", { projectId }, { when: sql`NOT EXISTS (SELECT 1 FROM taken)` })})
    INSERT INTO operations_user_lists (project_id, iid, name, user_xids)
      SELECT ${projectId}::int, iid.last_value, ${v.name}::text, ${v.userXids}::text FROM iid
      ON CONFLICT DO NOTHING
      RETURNING id, project_id AS "projectId", iid, name, user_xids AS "userXids", created_at AS "createdAt", updated_at AS "updatedAt"`);
  const row = result.rows[0] as unknown as (UserList & { createdAt: string; updatedAt: string }) | undefined;
  return row ? { ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) } : null;
}

/** Null when another list of the project has the new name. */
export async function updateUserList(db: Executor, id: number, v: { name?: string; userXids?: string }): Promise<UserList | null> {
  try {
    const rows = await db.update(lists).set({ ...v, updatedAt: new Date() }).where(eq(lists.id, id)).returning();
    return rows[0] ?? null;
  } catch (e) {
    for (let err = e as { code?: unknown; cause?: unknown } | undefined; err; err = err.cause as typeof err) if (err.code === "23505") return null;
    throw e;
  }
}

/** `ensure_no_associated_strategies`: false (nothing deleted) while a strategy uses the list. */
export async function deleteUserList(db: Executor, id: number): Promise<boolean> {
  const rows = await db
    .delete(lists)
    .where(and(eq(lists.id, id), sql`NOT EXISTS (SELECT 1 FROM ${operationsStrategies} WHERE ${operationsStrategies.userListId} = ${id})`))
    .returning({ id: lists.id });
  return rows.length > 0;
}

/** The row type routes name (routes never import db/schema). */
export type { UserList } from "../../db/schema";
