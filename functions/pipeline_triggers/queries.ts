import { and, asc, count, eq, sql } from "drizzle-orm";
import { ciPipelines, ciTriggers, gitCommits, namespaces, projects, users } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Page } from "../kernel/pagination";
import { projectAccessLevel } from "../kernel/visibility";
import type { PipelineRow } from "../entities/pipelines";
import { isRowId } from "../kernel/params";
import type { TriggerRow } from "../entities/pipeline_triggers";

const withOwner = { trigger: ciTriggers, owner: users };

/** `user_project.triggers`, id ascending, with their owners (1 + 1 statements). */
export async function listTriggers(db: Executor, projectId: number, page: Page) {
  const where = eq(ciTriggers.projectId, projectId);
  const [rows, [{ total }]] = await Promise.all([
    db.select(withOwner).from(ciTriggers).leftJoin(users, eq(users.id, ciTriggers.ownerId)).where(where).orderBy(asc(ciTriggers.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(ciTriggers).where(where),
  ]);
  return { rows: rows.map((r) => ({ ...r.trigger, owner: r.owner })), total };
}

export async function findTrigger(db: Executor, projectId: number, id: number): Promise<TriggerRow | null> {
  if (!isRowId(id)) return null;
  const [row] = await db.select(withOwner).from(ciTriggers).leftJoin(users, eq(users.id, ciTriggers.ownerId)).where(and(eq(ciTriggers.projectId, projectId), eq(ciTriggers.id, id)));
  return row ? { ...row.trigger, owner: row.owner } : null;
}

export async function insertTrigger(db: Executor, v: { projectId: number; ownerId: number; description: string; token: string }) {
  const [row] = await db.insert(ciTriggers).values(v).returning({ id: ciTriggers.id });
  return row.id;
}

export async function updateTrigger(db: Executor, id: number, v: { description?: string }) {
  await db.update(ciTriggers).set({ ...v, updatedAt: new Date() }).where(eq(ciTriggers.id, id));
}

export async function deleteTrigger(db: Executor, id: number) {
  await db.delete(ciTriggers).where(eq(ciTriggers.id, id));
}

/**
 * The trigger a token names inside the project, with what creating its pipeline needs to know of its
 * owner: the owner's row and effective access level to the project (1 statement).
 */
export async function triggerByToken(db: Executor, projectId: number, token: string) {
  const [row] = await db
    .select({ trigger: ciTriggers, owner: users, ownerAccess: projectAccessLevel(sql`${ciTriggers.ownerId}`) })
    .from(ciTriggers)
    .innerJoin(projects, eq(projects.id, ciTriggers.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .leftJoin(users, eq(users.id, ciTriggers.ownerId))
    .where(and(eq(ciTriggers.token, token), eq(ciTriggers.projectId, projectId)));
  return row ? { ...row.trigger, owner: row.owner, ownerAccess: Number(row.ownerAccess) } : null;
}

/** `trigger_requests` stand-in: the time a token last ran a pipeline, which the entity shows as `last_used`. */
export async function touchTrigger(db: Executor, id: number) {
  await db.update(ciTriggers).set({ lastUsed: sql`now()` }).where(eq(ciTriggers.id, id));
}

/** A pipeline with its user and the commit's date, for the Pipeline entity (1 statement). */
export async function pipelineForEntity(db: Executor, pipelineId: number): Promise<PipelineRow | null> {
  const [row] = await db
    .select({ pipeline: ciPipelines, user: users, committedAt: gitCommits.committedAt })
    .from(ciPipelines)
    .leftJoin(users, eq(users.id, ciPipelines.userId))
    .leftJoin(gitCommits, and(eq(gitCommits.poolId, ciPipelines.projectId), eq(gitCommits.oid, ciPipelines.sha)))
    .where(eq(ciPipelines.id, pipelineId));
  return row ? { ...row.pipeline, user: row.user, committedAt: row.committedAt } : null;
}
