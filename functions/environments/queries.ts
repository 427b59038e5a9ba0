import { and, asc, desc, eq, sql } from "drizzle-orm";
import { deployments, environments, users, type Environment, type GitCommitRow } from "../../db/schema";
import { jobRowsByIds } from "../jobs/public";
import type { Executor } from "../kernel/db";
import { escapeLike } from "../kernel/fuzzy_search";
import { cappedCount, type Page } from "../kernel/pagination";
import type { ListParams } from "./params";

/** Environments::EnvironmentsFinder: `name` exact, `search` a name prefix (case-insensitive), `states`. */
export async function listEnvironments(db: Executor, projectId: number, f: ListParams, page: Page): Promise<{ rows: Environment[]; total: number }> {
  const where = and(
    eq(environments.projectId, projectId),
    f.name ? eq(environments.name, f.name) : undefined,
    f.search ? sql`lower(${environments.name}) LIKE ${`${escapeLike(f.search.toLowerCase())}%`}` : undefined,
    f.states ? eq(environments.state, f.states) : undefined,
  );
  const rows = await db.select().from(environments).where(where).orderBy(asc(environments.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(environments).where(where), page);
  return { rows, total };
}

export async function findEnvironment(db: Executor, projectId: number, id: number): Promise<Environment | null> {
  const rows = await db.select().from(environments).where(and(eq(environments.projectId, projectId), eq(environments.id, id))).limit(1);
  return rows[0] ?? null;
}

export type EnvironmentValues = { name: string; slug: string; externalUrl: string | null; tier: string; environmentType?: string | null };

function uniqueViolation(e: unknown): boolean {
  for (let err = e as { code?: unknown; cause?: unknown } | undefined; err; err = err.cause as typeof err) if (err.code === "23505") return true;
  return false;
}

/** Null when the project has an environment of this name (or slug). */
export async function insertEnvironment(db: Executor, projectId: number, v: EnvironmentValues): Promise<Environment | null> {
  const rows = await db.insert(environments).values({ projectId, ...v }).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

export async function updateEnvironment(db: Executor, id: number, v: Partial<EnvironmentValues> & { state?: string }): Promise<Environment | null> {
  try {
    const rows = await db.update(environments).set({ ...v, updatedAt: new Date() }).where(eq(environments.id, id)).returning();
    return rows[0] ?? null;
  } catch (e) {
    if (uniqueViolation(e)) return null;
    throw e;
  }
}

export async function deleteEnvironment(db: Executor, id: number): Promise<void> {
  await db.delete(environments).where(eq(environments.id, id));
}

/** The row type routes name (routes never import db/schema). */
export type { Environment, GitCommitRow } from "../../db/schema";

/**
 * Environment#stop_actions: the `on_stop` jobs of the last deployment's pipeline (its deployments of
 * this environment, `last_deployment_group`) that are still manual and may be played.
 */
export async function stopActions(db: Executor, environmentId: number): Promise<{ id: number; pipelineId: number; userId: number | null }[]> {
  const result = await db.execute<{ id: number; pipeline_id: number; user_id: number | null }>(sql`
    WITH last AS (
      SELECT j.pipeline_id FROM deployments d JOIN ci_builds j ON j.id = d.deployable_id
      WHERE d.environment_id = ${environmentId} AND d.status = 'success'
      ORDER BY d.finished_at DESC NULLS LAST, d.id DESC LIMIT 1
    )
    SELECT DISTINCT b.id, b.pipeline_id, b.user_id
    FROM last
    JOIN ci_builds dj ON dj.pipeline_id = last.pipeline_id
    JOIN deployments d ON d.deployable_id = dj.id AND d.environment_id = ${environmentId} AND d.on_stop IS NOT NULL
    JOIN ci_builds b ON b.pipeline_id = last.pipeline_id AND b.name = d.on_stop AND b.status = 'manual' AND NOT b.retried
    ORDER BY b.id`);
  return result.rows.map((r) => ({ id: Number(r.id), pipelineId: Number(r.pipeline_id), userId: r.user_id === null ? null : Number(r.user_id) }));
}

/** Environment#stop!: `available` → `stopping` when stop jobs will finish the stop, else `stopped` (guarded on the state read). */
export async function markStopping(db: Executor, id: number, from: string, to: "stopping" | "stopped"): Promise<Environment | null> {
  const rows = await db
    .update(environments)
    .set({ state: to, updatedAt: new Date(), ...(to === "stopped" ? { autoStopAt: null } : {}) })
    .where(and(eq(environments.id, id), eq(environments.state, from)))
    .returning();
  return rows[0] ?? null;
}

/** Environment.auto_stoppable: available environments whose `auto_stop_at` has passed (bounded). */
export async function dueForAutoStop(db: Executor, limit: number): Promise<Environment[]> {
  return db
    .select()
    .from(environments)
    .where(and(eq(environments.state, "available"), sql`${environments.autoStopAt} IS NOT NULL AND ${environments.autoStopAt} <= now()`))
    .orderBy(asc(environments.autoStopAt))
    .limit(limit);
}

/**
 * Environment.deployed_and_updated_before (StopStaleService): available environments of the project not
 * updated since `before` whose deployments all finished before it.
 */
export async function staleEnvironments(db: Executor, projectId: number, before: Date): Promise<Environment[]> {
  return db
    .select()
    .from(environments)
    .where(
      and(
        eq(environments.projectId, projectId),
        eq(environments.state, "available"),
        sql`${environments.updatedAt} < ${before.toISOString()}::timestamptz`,
        sql`EXISTS (SELECT 1 FROM deployments d WHERE d.environment_id = ${environments.id})`,
        sql`(SELECT max(d.finished_at) FROM deployments d WHERE d.environment_id = ${environments.id}) < ${before.toISOString()}::timestamptz`,
      ),
    )
    .orderBy(asc(environments.id));
}

/** The environment's last deployment (`last_deployment`) with its relations, for the single read. */
export async function lastDeployment(db: Executor, projectId: number, environmentId: number) {
  const [row] = await db
    .select({ deployment: deployments, user: users })
    .from(deployments)
    .leftJoin(users, eq(users.id, deployments.userId))
    .where(and(eq(deployments.environmentId, environmentId), eq(deployments.status, "success")))
    .orderBy(sql`${deployments.finishedAt} DESC NULLS LAST`, desc(deployments.id))
    .limit(1);
  if (!row) return { row: null, commits: new Map<string, GitCommitRow>() };
  const jobs = await jobRowsByIds(db, projectId, row.deployment.deployableId === null ? [] : [row.deployment.deployableId]);
  return { row: { ...row.deployment, user: row.user, deployable: jobs.rows.get(row.deployment.deployableId ?? -1) ?? null }, commits: jobs.commits };
}
