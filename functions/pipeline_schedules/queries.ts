import { and, asc, count, desc, eq, inArray, lte } from "drizzle-orm";
import { ciPipelineScheduleVariables, ciPipelineSchedules, ciPipelines, users, type CiPipelineSchedule } from "../../db/schema";
import type { Database, Executor } from "../kernel/db";
import type { Page } from "../kernel/pagination";
import type { ScheduleRow } from "../entities/pipeline_schedules";

export type { ScheduleRow };

const withOwner = { schedule: ciPipelineSchedules, owner: users };

/** Ci::PipelineSchedulesFinder: `scope` active or inactive, id ascending, with owners (1 + 1 statements). */
export async function listSchedules(db: Executor, projectId: number, scope: "active" | "inactive" | undefined, page: Page) {
  const where = and(eq(ciPipelineSchedules.projectId, projectId), scope === undefined ? undefined : eq(ciPipelineSchedules.active, scope === "active"));
  const [rows, [{ total }]] = await Promise.all([
    db.select(withOwner).from(ciPipelineSchedules).leftJoin(users, eq(users.id, ciPipelineSchedules.ownerId)).where(where).orderBy(asc(ciPipelineSchedules.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(ciPipelineSchedules).where(where),
  ]);
  return { rows: rows.map((r) => ({ ...r.schedule, owner: r.owner })), total };
}

export async function findSchedule(db: Executor, projectId: number, id: number): Promise<ScheduleRow | null> {
  if (!Number.isSafeInteger(id) || id > 2147483647) return null;
  const [row] = await db.select(withOwner).from(ciPipelineSchedules).leftJoin(users, eq(users.id, ciPipelineSchedules.ownerId)).where(and(eq(ciPipelineSchedules.projectId, projectId), eq(ciPipelineSchedules.id, id)));
  return row ? { ...row.schedule, owner: row.owner } : null;
}

/** What the details entity adds: the variables and the last pipeline (2 statements). */
export async function scheduleDetails(db: Executor, scheduleId: number) {
  const [variables, [lastPipeline]] = await Promise.all([
    db.select().from(ciPipelineScheduleVariables).where(eq(ciPipelineScheduleVariables.pipelineScheduleId, scheduleId)).orderBy(asc(ciPipelineScheduleVariables.id)),
    db.select().from(ciPipelines).where(eq(ciPipelines.pipelineScheduleId, scheduleId)).orderBy(desc(ciPipelines.id)).limit(1),
  ]);
  return { variables, lastPipeline: lastPipeline ?? null };
}

export type ScheduleValues = { description: string; ref: string; cron: string; cronTimezone: string; active: boolean; nextRunAt: Date | null; ownerId?: number | null };

export async function insertSchedule(db: Executor, projectId: number, ownerId: number, v: ScheduleValues) {
  const [row] = await db.insert(ciPipelineSchedules).values({ ...v, projectId, ownerId }).returning({ id: ciPipelineSchedules.id });
  return row.id;
}

export async function updateSchedule(db: Executor, id: number, v: Partial<ScheduleValues>) {
  await db.update(ciPipelineSchedules).set({ ...v, updatedAt: new Date() }).where(eq(ciPipelineSchedules.id, id));
}

export async function deleteSchedule(db: Executor, id: number) {
  await db.delete(ciPipelineSchedules).where(eq(ciPipelineSchedules.id, id));
}

export async function findScheduleVariable(db: Executor, scheduleId: number, key: string) {
  const [row] = await db.select().from(ciPipelineScheduleVariables).where(and(eq(ciPipelineScheduleVariables.pipelineScheduleId, scheduleId), eq(ciPipelineScheduleVariables.key, key)));
  return row ?? null;
}

export async function insertScheduleVariable(db: Executor, scheduleId: number, v: { key: string; value: string; variableType: string }) {
  const [row] = await db.insert(ciPipelineScheduleVariables).values({ ...v, pipelineScheduleId: scheduleId }).returning();
  return row;
}

export async function updateScheduleVariable(db: Executor, id: number, v: { value?: string; variableType?: string }) {
  const [row] = await db.update(ciPipelineScheduleVariables).set({ ...v, updatedAt: new Date() }).where(eq(ciPipelineScheduleVariables.id, id)).returning();
  return row;
}

export async function deleteScheduleVariable(db: Executor, id: number) {
  await db.delete(ciPipelineScheduleVariables).where(eq(ciPipelineScheduleVariables.id, id));
}

/**
 * Claims the due active schedules (at most `limit`, `FOR UPDATE SKIP LOCKED` so two sweeps never run
 * one twice) and moves each to its next run in the same statement; answers what was claimed.
 */
export async function claimDueSchedules(db: Database, now: Date, nextRun: (s: CiPipelineSchedule) => Date | null, limit = 50) {
  return db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(ciPipelineSchedules)
      .where(and(eq(ciPipelineSchedules.active, true), lte(ciPipelineSchedules.nextRunAt, now)))
      .orderBy(asc(ciPipelineSchedules.nextRunAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    for (const s of due) await tx.update(ciPipelineSchedules).set({ nextRunAt: nextRun(s) }).where(eq(ciPipelineSchedules.id, s.id));
    return due;
  });
}

export async function schedulesByIds(db: Executor, ids: number[]) {
  return ids.length ? db.select().from(ciPipelineSchedules).where(inArray(ciPipelineSchedules.id, ids)) : [];
}

export const scheduleVariablesOf = (db: Executor, scheduleId: number) =>
  db.select().from(ciPipelineScheduleVariables).where(eq(ciPipelineScheduleVariables.pipelineScheduleId, scheduleId)).orderBy(asc(ciPipelineScheduleVariables.id));

