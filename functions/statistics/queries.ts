import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../kernel/db";

/** Below this estimate a table is counted exactly (Gitlab::Database::Count, "exact under 10,000"). */
const EXACT_BELOW = 10_000;

export type InstanceCounts = Record<"forks" | "issues" | "merge_requests" | "notes" | "snippets" | "ssh_keys" | "milestones" | "users" | "projects" | "groups" | "active_users", number>;

/**
 * Gitlab::Database::Count.approximate_counts in one statement: a table whose planner estimate
 * (`pg_class.reltuples`, -1 before the first ANALYZE) is under 10,000 rows is counted exactly;
 * a larger one is counted on a TABLESAMPLE of about 10,000 rows and scaled (TablesampleCountStrategy),
 * so the figure stays cheap at a million issues. `where` narrows a table shared by two models
 * (groups in `namespaces`, forks in `projects`).
 */
function approximate(table: string, where: SQL = sql`true`): SQL {
  const t = sql.identifier(table);
  return sql`(SELECT CASE
      WHEN e.n < ${EXACT_BELOW} THEN (SELECT count(*) FROM ${t} WHERE ${where})
      ELSE (SELECT (count(*) * 100 / (100.0 * ${EXACT_BELOW} / e.n))::bigint FROM ${t} TABLESAMPLE SYSTEM ((100.0 * ${EXACT_BELOW} / e.n)) REPEATABLE (0) WHERE ${where})
    END FROM (SELECT coalesce((SELECT reltuples FROM pg_class WHERE oid = ${table}::regclass), -1) AS n) e)`;
}

export async function instanceCounts(db: Executor): Promise<InstanceCounts> {
  const { rows } = await db.execute<Record<keyof InstanceCounts, string | number>>(sql`SELECT
      ${approximate("projects", sql`forked_from_project_id IS NOT NULL`)} AS forks,
      ${approximate("issues")} AS issues,
      ${approximate("merge_requests")} AS merge_requests,
      ${approximate("notes")} AS notes,
      ${approximate("snippets")} AS snippets,
      ${approximate("keys")} AS ssh_keys,
      ${approximate("milestones")} AS milestones,
      ${approximate("users")} AS users,
      ${approximate("projects")} AS projects,
      ${approximate("namespaces", sql`type = 'Group'`)} AS groups,
      (SELECT count(*) FROM users WHERE state = 'active') AS active_users`);
  const row = rows[0];
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)])) as InstanceCounts;
}
