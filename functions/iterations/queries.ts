import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../kernel/db";
import { fuzzySearch } from "../kernel/fuzzy_search";
import { cappedCount, type Page } from "../kernel/pagination";
import { nextIidSql } from "../shared/issuables/iids";
import type { IterationRow } from "../entities/iterations";
import type { IterationValues } from "./rules";
import type { ListParams } from "./params";

/**
 * Every statement of the iterations domain. The state (`state_enum`: 1 upcoming, 2 current, 3 closed)
 * is derived from the dates against today (UTC) rather than stored and moved by a cron as GitLab does;
 * `sequence` is the position by start date inside the group.
 */

const STATE = sql`CASE WHEN i.start_date > current_date THEN 1 WHEN i.due_date >= current_date THEN 2 ELSE 3 END`;

/** The iterations of `groupIds`, with their sequence and group path, as rows `x` to filter. */
function withSequence(groupIds: number[]): SQL {
  return sql`SELECT i.id, i.iid, i.group_id AS "groupId", i.title, i.description, ${STATE} AS state,
      i.created_at AS "createdAt", i.updated_at AS "updatedAt", i.start_date::text AS "startDate", i.due_date::text AS "dueDate",
      g.full_path AS "groupPath", row_number() OVER (PARTITION BY i.group_id ORDER BY i.start_date, i.id) AS sequence
    FROM iterations i JOIN namespaces g ON g.id = i.group_id
    WHERE i.group_id = ANY(${sql.param(groupIds)}::int[])`;
}

const STATES: Record<string, number[]> = { opened: [1, 2], upcoming: [1], started: [2], current: [2], closed: [3] };

/** IterationsFinder: the groups' iterations by due date, then title, then id. One page and the capped total. */
export async function listIterations(db: Executor, groupIds: number[], f: ListParams, page: Page) {
  const conditions: SQL[] = [sql`true`];
  const states = STATES[f.state];
  if (states) conditions.push(sql`x.state = ANY(${sql.param(states)}::int[])`);
  const search = fuzzySearch([sql.raw("x.title")], f.search);
  if (search) conditions.push(search);
  const where = sql.join(conditions, sql` AND `);
  const from = sql`(${withSequence(groupIds)}) x`;
  const rows = await db.execute<IterationRow>(sql`SELECT x.* FROM ${from} WHERE ${where}
    ORDER BY x."dueDate" ASC, x.title ASC NULLS LAST, x.id ASC LIMIT ${page.limit} OFFSET ${page.offset}`);
  const total = await cappedCount(db, { limit: (n: number) => sql`SELECT 1 FROM ${from} WHERE ${where} LIMIT ${n}` }, page);
  return { rows: rows.rows, total };
}

/** Draws the group's next iid; its row lock on the counter serialises the group's creators until commit. */
export async function drawIid(tx: Executor, groupId: number): Promise<number> {
  const rows = await tx.execute<{ last_value: number }>(nextIidSql("iterations", { namespaceId: groupId }));
  return Number(rows.rows[0].last_value);
}

/** `dates_do_not_overlap`: another iteration of the group shares a day with [start, due]. */
export async function overlaps(tx: Executor, groupId: number, startDate: string, dueDate: string): Promise<boolean> {
  const rows = await tx.execute(sql`SELECT 1 FROM iterations WHERE group_id = ${groupId}
    AND start_date <= ${dueDate}::date AND due_date >= ${startDate}::date LIMIT 1`);
  return rows.rows.length > 0;
}

export async function titleTaken(tx: Executor, groupId: number, title: string): Promise<boolean> {
  const rows = await tx.execute(sql`SELECT 1 FROM iterations WHERE group_id = ${groupId} AND title = ${title} LIMIT 1`);
  return rows.rows.length > 0;
}

/** Inserts the iteration with its iid and reads it back as the list does. */
export async function insertIteration(tx: Executor, groupId: number, iid: number, v: IterationValues): Promise<IterationRow> {
  const rows = await tx.execute<{ id: number }>(sql`INSERT INTO iterations (iid, group_id, title, description, start_date, due_date)
    VALUES (${iid}, ${groupId}, ${v.title}, ${v.description}, ${v.startDate}::date, ${v.dueDate}::date) RETURNING id`);
  const id = Number(rows.rows[0].id);
  const read = await tx.execute<IterationRow>(sql`SELECT x.* FROM (${withSequence([groupId])}) x WHERE x.id = ${id}`);
  return read.rows[0];
}
