import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../kernel/db";
import { escapeLike } from "../kernel/fuzzy_search";
import { cappedCount, type Page } from "../kernel/pagination";

export type TransferLocationRow = { id: number; name: string; path: string; fullPath: string; fullName: string; avatarUrl: string | null };

/**
 * The page of groups (alias `g` in `where`) a project or a group may be transferred to, with the capped
 * count: `search` on full path and full name (`include_parents`), by path, then id. The two finders
 * (Groups::AcceptingProjectTransfersFinder, Groups::AcceptingGroupTransfersFinder) differ only in `where`.
 */
export async function transferLocationGroups(db: Executor, where: SQL[], search: string | undefined, page: Page): Promise<{ rows: TransferLocationRow[]; total: number }> {
  const conditions = [sql`g.type = 'Group'`, ...where];
  if (search) {
    const like = `%${escapeLike(search)}%`;
    conditions.push(sql`(g.full_path ILIKE ${like} OR g.full_name ILIKE ${like})`);
  }
  const cond = sql.join(conditions, sql` AND `);
  const result = await db.execute<{ id: number; name: string; path: string; full_path: string; full_name: string; avatar_url: string | null }>(sql`
    SELECT g.id, g.name, g.path, g.full_path, g.full_name, g.avatar_url FROM namespaces g WHERE ${cond}
    ORDER BY g.path ASC, g.id ASC LIMIT ${page.limit} OFFSET ${page.offset}`);
  const rows = result.rows.map((r) => ({
    id: Number(r.id), name: r.name, path: r.path, fullPath: r.full_path, fullName: r.full_name, avatarUrl: r.avatar_url ?? null,
  }));
  const total = await cappedCount(db, { limit: (n: number) => sql`SELECT 1 FROM namespaces g WHERE ${cond} LIMIT ${n}` }, page);
  return { rows, total };
}
