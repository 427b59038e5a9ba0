import { and, asc, eq, sql } from "drizzle-orm";
import { operationsFeatureFlags as flags, operationsFeatureFlagsClients as clients, type FeatureFlagsClient, type LegacyScope } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { UnleashFlagRow } from "../entities/unleash";

/** `FeatureFlagsClient.find_for_project_and_token`: the project's client with this instance id. */
export async function findClient(db: Executor, projectId: number, token: string): Promise<FeatureFlagsClient | null> {
  const rows = await db.select().from(clients).where(and(eq(clients.projectId, projectId), eq(clients.token, token))).limit(1);
  return rows[0] ?? null;
}

/** The project's client, made on first use (`project.feature_flags_client || create!`). */
export async function ensureClient(db: Executor, projectId: number, newToken: string): Promise<FeatureFlagsClient> {
  const rows = await db
    .insert(clients)
    .values({ projectId, token: newToken })
    .onConflictDoUpdate({ target: clients.projectId, set: { projectId: sql`excluded.project_id` } })
    .returning();
  return rows[0];
}

/** `reset_token`: a new instance id (the old one stops working at once). */
export async function resetClientToken(db: Executor, projectId: number, newToken: string): Promise<FeatureFlagsClient> {
  const rows = await db
    .insert(clients)
    .values({ projectId, token: newToken })
    .onConflictDoUpdate({ target: clients.projectId, set: { token: newToken } })
    .returning();
  return rows[0];
}

/** Every flag of the project with its strategies (scopes, user list) and legacy scopes, by id. */
export async function flagsForClient(db: Executor, projectId: number): Promise<UnleashFlagRow[]> {
  const id = sql.raw(`"operations_feature_flags"."id"`);
  const rows = await db
    .select({
      flag: flags,
      strategies: sql<UnleashFlagRow["strategies"]>`COALESCE((SELECT json_agg(json_build_object(
          'name', s.name, 'parameters', s.parameters, 'userXids', ul.user_xids,
          'scopes', COALESCE((SELECT json_agg(sc.environment_scope ORDER BY sc.id) FROM operations_scopes sc WHERE sc.strategy_id = s.id), '[]'::json))
          ORDER BY s.id)
        FROM operations_strategies s LEFT JOIN operations_user_lists ul ON ul.id = s.user_list_id WHERE s.feature_flag_id = ${id}), '[]'::json)`,
      legacyScopes: sql<Pick<LegacyScope, "active" | "environmentScope" | "strategies">[]>`COALESCE((SELECT json_agg(json_build_object(
          'active', ls.active, 'environmentScope', ls.environment_scope, 'strategies', ls.strategies) ORDER BY ls.id)
        FROM operations_feature_flag_scopes ls WHERE ls.feature_flag_id = ${id}), '[]'::json)`,
    })
    .from(flags)
    .where(eq(flags.projectId, projectId))
    .orderBy(asc(flags.id));
  return rows.map((r) => ({ ...r.flag, strategies: r.strategies, legacyScopes: r.legacyScopes }));
}

/** `client/register`: one row per application and instance, refreshed on every registration. */
export async function registerClient(
  db: Executor,
  projectId: number,
  v: { appName: string; instanceId: string; sdkVersion: string | null; strategies: string[]; interval: number | null; startedAt: Date | null },
): Promise<void> {
  await db.execute(sql`
    INSERT INTO operations_unleash_clients (project_id, app_name, instance_id, sdk_version, strategies, interval, started_at, last_seen_at)
    VALUES (${projectId}::int, ${v.appName}::text, ${v.instanceId}::text, ${v.sdkVersion}::text, ${`{${v.strategies.map((s) => JSON.stringify(s)).join(",")}}`}::text[],
      ${v.interval}::int, ${v.startedAt ? v.startedAt.toISOString() : null}::timestamptz, now())
    ON CONFLICT (project_id, app_name, instance_id) DO UPDATE SET sdk_version = EXCLUDED.sdk_version, strategies = EXCLUDED.strategies,
      interval = EXCLUDED.interval, started_at = EXCLUDED.started_at, last_seen_at = now()`);
}

/** `client/metrics`: adds each flag's yes/no counts to its hourly row. */
export async function addMetrics(db: Executor, projectId: number, appName: string, hour: Date, toggles: { name: string; yes: number; no: number }[]): Promise<void> {
  if (toggles.length === 0) return;
  await db.execute(sql`
    INSERT INTO operations_unleash_metrics (project_id, app_name, feature_name, hour, yes, no)
    SELECT ${projectId}::int, ${appName}::text, t.name, ${hour.toISOString()}::timestamptz, t.yes, t.no
    FROM jsonb_to_recordset(${JSON.stringify(toggles)}::jsonb) AS t(name text, yes int, no int)
    ON CONFLICT (project_id, app_name, feature_name, hour) DO UPDATE
      SET yes = operations_unleash_metrics.yes + EXCLUDED.yes, no = operations_unleash_metrics.no + EXCLUDED.no`);
}

/** The row type routes name (routes never import db/schema). */
export type { FeatureFlagsClient } from "../../db/schema";
