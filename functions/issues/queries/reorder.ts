import { sql, type SQL } from "drizzle-orm";
import type { ProjectWithAccess } from "../../kernel/abilities";
import type { Executor } from "../../kernel/db";

/**
 * The statements of `PUT …/issues/:issue_iid/reorder` (RelativePositioning), run in the caller's
 * transaction. Issues are positioned among the issues of every project of the project's top-level
 * group (`Issue.relative_positioning_query_base`), or of the project alone in a personal namespace.
 */

/** The projects whose issues share one order. */
export function positioningScope(project: ProjectWithAccess): SQL {
  if (project.namespace.type !== "Group") return sql`SELECT ${project.id}::int`;
  return sql`SELECT p.id FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE n.traversal_ids[1] = ${project.namespace.traversalIds[0]}::int`;
}

/**
 * The neighbours named by id inside the scope, locked for the move; those without a position get
 * one at the end of the order first (RelativePositioning places unpositioned neighbours at the end).
 */
export async function lockNeighbours(db: Executor, scope: SQL, ids: number[], step: number): Promise<Map<number, number>> {
  const result = await db.execute<{ id: number; relative_position: number }>(sql`
    WITH found AS (SELECT id, relative_position FROM issues WHERE id = ANY(${sql.param(ids)}::int[]) AND project_id IN (${scope}) FOR UPDATE),
    last AS (SELECT COALESCE(max(relative_position), 0) AS at FROM issues WHERE project_id IN (${scope})),
    placed AS (
      UPDATE issues SET relative_position = (SELECT at FROM last) + ${step}::int * x.n
      FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM found WHERE relative_position IS NULL) x
      WHERE issues.id = x.id RETURNING issues.id, issues.relative_position)
    SELECT f.id, COALESCE(pl.relative_position, f.relative_position) AS relative_position FROM found f LEFT JOIN placed pl ON pl.id = f.id`);
  return new Map(result.rows.map((r) => [Number(r.id), Number(r.relative_position)]));
}

/** The nearest position above (`after`) or below (`before`) `position` in the scope, leaving out the moving issue. */
export async function nextPosition(db: Executor, scope: SQL, position: number, direction: "after" | "before", except: number): Promise<number | null> {
  const cmp = direction === "after" ? sql`relative_position > ${position}::int` : sql`relative_position < ${position}::int`;
  const pick = direction === "after" ? sql`min(relative_position)` : sql`max(relative_position)`;
  const result = await db.execute<{ at: number | null }>(sql`
    SELECT ${pick} AS at FROM issues WHERE project_id IN (${scope}) AND ${cmp} AND id <> ${except}::int`);
  const at = result.rows[0]?.at;
  return at === null || at === undefined ? null : Number(at);
}

/** Makes room: every issue of the scope at or above `from` (but the moving one) moves up by `by`. */
export async function shiftUp(db: Executor, scope: SQL, from: number, by: number, except: number): Promise<void> {
  await db.execute(sql`UPDATE issues SET relative_position = relative_position + ${by}::int
    WHERE project_id IN (${scope}) AND relative_position >= ${from}::int AND id <> ${except}::int`);
}

export async function setPosition(db: Executor, id: number, position: number): Promise<void> {
  await db.execute(sql`UPDATE issues SET relative_position = ${position}::int WHERE id = ${id}::int`);
}
