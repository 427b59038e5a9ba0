import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { operationsFeatureFlags as flags, operationsUserLists, type FeatureFlag, type LegacyScope } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { nextIidSql } from "../shared/issuables/iids";
import { cappedCount, type Page } from "../kernel/pagination";
import type { FeatureFlagRow, StrategyRow } from "../entities/feature_flags";

/**
 * A flag with its strategies (scopes and user list nested) and its legacy scopes, as JSON built by
 * the same statement that selects the flag: lists and single reads are one statement each.
 */
const FLAG_ID = sql.raw(`"operations_feature_flags"."id"`);
const withRelations = {
  flag: flags,
  strategies: sql<StrategyRow[]>`COALESCE((SELECT json_agg(json_build_object(
      'id', s.id, 'name', s.name, 'parameters', s.parameters,
      'scopes', COALESCE((SELECT json_agg(json_build_object('id', sc.id, 'environmentScope', sc.environment_scope) ORDER BY sc.id)
        FROM operations_scopes sc WHERE sc.strategy_id = s.id), '[]'::json),
      'userList', CASE WHEN ul.id IS NULL THEN NULL
        ELSE json_build_object('id', ul.id, 'iid', ul.iid, 'name', ul.name, 'userXids', ul.user_xids) END) ORDER BY s.id)
    FROM operations_strategies s LEFT JOIN operations_user_lists ul ON ul.id = s.user_list_id
    WHERE s.feature_flag_id = ${FLAG_ID}), '[]'::json)`,
  legacyScopes: sql<(Omit<LegacyScope, "createdAt" | "updatedAt"> & { createdAt: string; updatedAt: string })[]>`COALESCE((SELECT json_agg(json_build_object(
      'id', ls.id, 'featureFlagId', ls.feature_flag_id, 'active', ls.active, 'environmentScope', ls.environment_scope,
      'strategies', ls.strategies, 'createdAt', ls.created_at, 'updatedAt', ls.updated_at) ORDER BY ls.id)
    FROM operations_feature_flag_scopes ls WHERE ls.feature_flag_id = ${FLAG_ID}), '[]'::json)`,
};

type Selected = { flag: FeatureFlag; strategies: StrategyRow[]; legacyScopes: { createdAt: string; updatedAt: string }[] };

function toRow(r: Selected): FeatureFlagRow {
  return {
    ...r.flag,
    strategies: r.strategies,
    legacyScopes: (r.legacyScopes as unknown as LegacyScope[]).map((s) => ({
      ...s,
      createdAt: new Date(s.createdAt as unknown as string),
      updatedAt: new Date(s.updatedAt as unknown as string),
    })),
  };
}

/** FeatureFlagsFinder: the project's flags by name, `scope` enabled or disabled. */
export async function listFlags(
  db: Executor,
  projectId: number,
  scope: "enabled" | "disabled" | undefined,
  page: Page,
): Promise<{ rows: FeatureFlagRow[]; total: number }> {
  const where = and(eq(flags.projectId, projectId), scope ? eq(flags.active, scope === "enabled") : undefined);
  const rows = await db.select(withRelations).from(flags).where(where).orderBy(asc(flags.name), asc(flags.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(flags).where(where), page);
  return { rows: rows.map(toRow), total };
}

export async function findFlag(db: Executor, projectId: number, name: string): Promise<FeatureFlagRow | null> {
  const rows = await db.select(withRelations).from(flags).where(and(eq(flags.projectId, projectId), eq(flags.name, name))).limit(1);
  return rows[0] ? toRow(rows[0]) : null;
}

/** The project's user lists among `ids` (to check that strategies only name lists of this project). */
export async function userListIdsOf(db: Executor, projectId: number, ids: number[]): Promise<{ id: number; projectId: number }[]> {
  if (ids.length === 0) return [];
  return db.select({ id: operationsUserLists.id, projectId: operationsUserLists.projectId }).from(operationsUserLists).where(inArray(operationsUserLists.id, ids));
}

export type NewStrategy = { name: string; parameters: Record<string, unknown>; userListId: number | null; scopes: string[] };
export type NewLegacyScope = { environmentScope: string; active: boolean; strategies: unknown };

/**
 * Inserts a flag, its strategies with their scopes, or its legacy scopes, in one statement: strategy
 * ids are drawn from the sequence first so that their scopes can name them. Null when the name is taken.
 */
export async function insertFlag(
  db: Executor,
  projectId: number,
  v: { name: string; description: string | null; active: boolean; version: string; strategies: NewStrategy[]; legacyScopes: NewLegacyScope[] },
): Promise<boolean> {
  const result = await db.execute<{ id: number }>(sql`
    WITH taken AS (SELECT 1 FROM operations_feature_flags WHERE project_id = ${projectId}::int AND name = ${v.name}::text),
    iid AS (${nextIidSql("operations_feature_flags", { projectId }, { when: sql`NOT EXISTS (SELECT 1 FROM taken)` })}),
    flag AS (INSERT INTO operations_feature_flags (project_id, iid, name, description, active, version)
      SELECT ${projectId}::int, iid.last_value, ${v.name}::text, ${v.description}::text, ${v.active}::boolean, ${v.version}::text FROM iid
      ON CONFLICT DO NOTHING RETURNING id),
    ${strategyCtes(sql`(SELECT id FROM flag)`, v.strategies)},
    legacy AS (INSERT INTO operations_feature_flag_scopes (feature_flag_id, environment_scope, active, strategies)
      SELECT flag.id, l->>'environmentScope', (l->>'active')::boolean, l->'strategies'
      FROM flag, jsonb_array_elements(${JSON.stringify(v.legacyScopes)}::jsonb) WITH ORDINALITY AS t(l, ord) ORDER BY ord)
    SELECT id FROM flag`);
  return result.rows.length > 0;
}

/** CTEs `new_strategies` (ids from the sequence), `ins_strategies` and `ins_scopes` for `flagId`. */
function strategyCtes(flagId: SQL, strategies: NewStrategy[]): SQL {
  return sql`new_strategies AS MATERIALIZED (SELECT t.s, t.ord, nextval(pg_get_serial_sequence('operations_strategies', 'id'))::int AS sid
      FROM jsonb_array_elements(${JSON.stringify(strategies)}::jsonb) WITH ORDINALITY AS t(s, ord) WHERE ${flagId} IS NOT NULL),
    ins_strategies AS (INSERT INTO operations_strategies (id, feature_flag_id, name, parameters, user_list_id) OVERRIDING SYSTEM VALUE
      SELECT sid, ${flagId}, s->>'name', s->'parameters', (s->>'userListId')::int FROM new_strategies ORDER BY ord),
    ins_scopes AS (INSERT INTO operations_scopes (strategy_id, environment_scope)
      SELECT n.sid, sc.value #>> '{}' FROM new_strategies n, jsonb_array_elements(n.s->'scopes') WITH ORDINALITY AS sc(value, ord) ORDER BY n.ord, sc.ord)`;
}

export type FlagChanges = {
  name?: string;
  description?: string | null;
  active?: boolean;
  destroyStrategyIds: number[];
  updateStrategies: { id: number; name: string; parameters: Record<string, unknown>; userListId: number | null }[];
  destroyScopeIds: number[];
  updateScopes: { id: number; environmentScope: string }[];
  addScopes: { strategyId: number; environmentScope: string }[];
  newStrategies: NewStrategy[];
};

/**
 * Applies an update (`accepts_nested_attributes_for :strategies, allow_destroy: true` and the same for
 * scopes) in one statement. Returns the ids of the strategies it added. Throws a unique violation when
 * the new name is taken.
 */
export async function updateFlag(db: Executor, flagId: number, c: FlagChanges): Promise<number[]> {
  const set: SQL[] = [sql`updated_at = now()`];
  if (c.name !== undefined) set.push(sql`name = ${c.name}::text`);
  if (c.description !== undefined) set.push(sql`description = ${c.description}::text`);
  if (c.active !== undefined) set.push(sql`active = ${c.active}::boolean`);
  const ints = (ids: number[]) => sql`${`{${ids.join(",")}}`}::int[]`;
  const result = await db.execute<{ sid: number }>(sql`
    WITH flag AS (UPDATE operations_feature_flags SET ${sql.join(set, sql`, `)} WHERE id = ${flagId}::int RETURNING id),
    del_strategies AS (DELETE FROM operations_strategies WHERE feature_flag_id = ${flagId}::int AND id = ANY(${ints(c.destroyStrategyIds)})),
    upd_strategies AS (UPDATE operations_strategies s SET name = u.name, parameters = u.parameters, user_list_id = u.user_list_id
      FROM jsonb_to_recordset(${JSON.stringify(c.updateStrategies.map((u) => ({ id: u.id, name: u.name, parameters: u.parameters, user_list_id: u.userListId })))}::jsonb)
        AS u(id int, name text, parameters jsonb, user_list_id int)
      WHERE s.id = u.id AND s.feature_flag_id = ${flagId}::int),
    del_scopes AS (DELETE FROM operations_scopes WHERE id = ANY(${ints(c.destroyScopeIds)})
      AND strategy_id IN (SELECT id FROM operations_strategies WHERE feature_flag_id = ${flagId}::int)),
    upd_scopes AS (UPDATE operations_scopes sc SET environment_scope = u.environment_scope
      FROM jsonb_to_recordset(${JSON.stringify(c.updateScopes.map((u) => ({ id: u.id, environment_scope: u.environmentScope })))}::jsonb)
        AS u(id int, environment_scope text)
      WHERE sc.id = u.id AND sc.strategy_id IN (SELECT id FROM operations_strategies WHERE feature_flag_id = ${flagId}::int)),
    add_scopes AS (INSERT INTO operations_scopes (strategy_id, environment_scope)
      SELECT a.strategy_id, a.environment_scope
      FROM jsonb_to_recordset(${JSON.stringify(c.addScopes.map((a) => ({ strategy_id: a.strategyId, environment_scope: a.environmentScope })))}::jsonb)
        AS a(strategy_id int, environment_scope text)),
    ${strategyCtes(sql`${flagId}::int`, c.newStrategies)}
    SELECT sid FROM new_strategies ORDER BY ord`);
  return result.rows.map((r) => Number(r.sid));
}

/** Deletes the flag (strategies, scopes and legacy scopes cascade). */
export async function deleteFlag(db: Executor, flagId: number): Promise<void> {
  await db.delete(flags).where(eq(flags.id, flagId));
}
