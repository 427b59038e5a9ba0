import { sql, type SQL } from "drizzle-orm";
import { internalIds } from "../../../db/schema";
import type { Executor } from "../../kernel/db";

/**
 * Gapless per-project (or per-group) iids (InternalId): the one writer of `internal_ids`. Every row
 * with an iid (issues, merge requests, milestones, epics, alerts, feature flags and their user lists,
 * pipelines) draws it here, in its creating statement or transaction; the row lock the upsert takes on
 * the counter serialises concurrent creators of one project.
 */

export type IidOwner = { projectId: number } | { namespaceId: number };

/** InternalId's usages, with the table (and its owner columns) whose rows carry the iid. */
const USAGES = {
  issues: { table: "issues", project: "project_id", namespace: null },
  merge_requests: { table: "merge_requests", project: "project_id", namespace: null },
  milestones: { table: "milestones", project: "project_id", namespace: "group_id" },
  epics: { table: "epics", project: null, namespace: "group_id" },
  iterations: { table: "iterations", project: null, namespace: "group_id" },
  alert_management_alerts: { table: "alert_management_alerts", project: "project_id", namespace: null },
  operations_feature_flags: { table: "operations_feature_flags", project: "project_id", namespace: null },
  operations_user_lists: { table: "operations_user_lists", project: "project_id", namespace: null },
  ci_pipelines: { table: "ci_pipelines", project: "project_id", namespace: null },
  deployments: { table: "deployments", project: "project_id", namespace: null },
} as const;
export type IidUsage = keyof typeof USAGES;

/** The usages a project owns (a project import restores their counters). */
export const PROJECT_IID_USAGES = (Object.keys(USAGES) as IidUsage[]).filter((u) => USAGES[u].project !== null);

function ownerColumns(usage: IidUsage, owner: IidOwner) {
  const byProject = "projectId" in owner;
  const column = USAGES[usage][byProject ? "project" : "namespace"];
  if (!column) throw new Error(`${usage} iids are not kept per ${byProject ? "project" : "group"}`);
  return { ownerId: byProject ? owner.projectId : owner.namespaceId, counterColumn: sql.raw(byProject ? "project_id" : "namespace_id"), rowColumn: sql.identifier(column) };
}

/**
 * The statement that bumps and returns (`last_value`) the next gapless iid of `usage` in a project (or
 * group): alone, or as the first CTE of the statement that creates the row.
 * - A first use starts after the largest iid already stored (InternalId's `init`), so rows written
 *   without the counter (a restored project, older data) are never given an iid twice.
 * - `given`: an iid the caller chose (`POST /projects/:id/issues` with `iid`, admins): the counter moves
 *   to at least it (InternalId#track_greatest), null draws the next one.
 * - `when`: the counter moves only when this holds (e.g. the name is not taken); nothing is returned
 *   otherwise.
 */
export function nextIidSql(usage: IidUsage, owner: IidOwner, opts: { given?: number | null; when?: SQL } = {}): SQL {
  const { ownerId, counterColumn, rowColumn } = ownerColumns(usage, owner);
  const init = sql`(SELECT coalesce(max(iid), 0) + 1 FROM ${sql.identifier(USAGES[usage].table)} WHERE ${rowColumn} = ${ownerId}::int)`;
  const given = opts.given === undefined ? null : sql`${opts.given}::int`;
  const first = given ? sql`COALESCE(${given}, ${init})` : init;
  const next = given
    ? sql`CASE WHEN ${given} IS NULL THEN ${internalIds}.last_value + 1 ELSE GREATEST(${internalIds}.last_value, ${given}) END`
    : sql`${internalIds}.last_value + 1`;
  const when = opts.when ? sql` WHERE ${opts.when}` : sql``;
  return sql`INSERT INTO internal_ids (usage, ${counterColumn}, last_value) SELECT ${usage}::text, ${ownerId}::int, ${first}${when}
    ON CONFLICT (usage, ${counterColumn}) WHERE ${counterColumn} IS NOT NULL
    DO UPDATE SET last_value = ${next}
    RETURNING last_value`;
}

/** The next gapless iid of `usage` in a project (or group), bumped inside the creating transaction. */
export async function nextIid(tx: Executor, usage: IidUsage, owner: IidOwner): Promise<number> {
  const result = await tx.execute<{ last_value: number }>(nextIidSql(usage, owner));
  return Number(result.rows[0].last_value);
}

/**
 * A project's counters after its rows were written with their own iids (project import): each moves
 * to at least the largest iid stored, so the next create continues after it.
 */
export function restoreProjectIidsSql(projectId: number): SQL {
  const rows = PROJECT_IID_USAGES.map(
    (usage) => sql`(${usage}::text, ${projectId}::int, (SELECT COALESCE(max(iid), 0) FROM ${sql.identifier(USAGES[usage].table)} WHERE project_id = ${projectId}::int))`,
  );
  return sql`INSERT INTO internal_ids (usage, project_id, last_value) VALUES ${sql.join(rows, sql`, `)}
    ON CONFLICT (usage, project_id) WHERE project_id IS NOT NULL
    DO UPDATE SET last_value = GREATEST(internal_ids.last_value, EXCLUDED.last_value)`;
}

/** The usages a group owns (a group import restores their counters). */
const GROUP_IID_USAGES = (Object.keys(USAGES) as IidUsage[]).filter((u) => USAGES[u].namespace !== null);

/** restoreProjectIidsSql for a group whose epics and milestones were written with their own iids (group import). */
export function restoreGroupIidsSql(groupId: number): SQL {
  const rows = GROUP_IID_USAGES.map(
    (usage) => sql`(${usage}::text, ${groupId}::int, (SELECT COALESCE(max(iid), 0) FROM ${sql.identifier(USAGES[usage].table)} WHERE group_id = ${groupId}::int))`,
  );
  return sql`INSERT INTO internal_ids (usage, namespace_id, last_value) VALUES ${sql.join(rows, sql`, `)}
    ON CONFLICT (usage, namespace_id) WHERE namespace_id IS NOT NULL
    DO UPDATE SET last_value = GREATEST(internal_ids.last_value, EXCLUDED.last_value)`;
}
