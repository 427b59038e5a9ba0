import { and, asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { ciBuildTraceChunks, ciBuilds, ciJobArtifacts, ciPipelines, ciRunners, users, type CiJobArtifact, type GitCommitRow } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { readCommitRows } from "../shared/git";
import { cappedCount, type Page } from "../kernel/pagination";
import type { JobRow } from "../entities/jobs";
import type { ListParams } from "./params";

/** Which jobs a list shows: a project's builds, or one pipeline's builds or bridges. */
export type JobSource = { pipelineId?: number; type: "build" | "bridge" };

function jobsWhere(projectId: number, source: JobSource, f: ListParams): SQL {
  const where: SQL[] = [eq(ciBuilds.projectId, projectId), eq(ciBuilds.type, source.type)];
  if (source.pipelineId !== undefined) where.push(eq(ciBuilds.pipelineId, source.pipelineId));
  if (source.pipelineId !== undefined && !f.include_retried) where.push(eq(ciBuilds.retried, false));
  if (f.scope && f.scope.length) where.push(inArray(ciBuilds.status, f.scope));
  return and(...where)!;
}

async function withRelations(db: Executor, projectId: number, base: { job: JobRow; pipeline: JobRow["pipeline"]; user: JobRow["user"]; runner: JobRow["runner"] }[]) {
  const ids = base.map((r) => r.job.id);
  const artifacts: CiJobArtifact[] = ids.length ? await db.select().from(ciJobArtifacts).where(inArray(ciJobArtifacts.jobId, ids)).orderBy(asc(ciJobArtifacts.id)) : [];
  const bridgeIds = base.filter((r) => r.job.type === "bridge").map((r) => r.job.id);
  const downstream = bridgeIds.length ? await db.select().from(ciPipelines).where(inArray(ciPipelines.sourceJobId, bridgeIds)) : [];
  const rows: JobRow[] = base.map((r) => ({
    ...r.job,
    pipeline: r.pipeline,
    user: r.user,
    runner: r.runner,
    artifacts: artifacts.filter((a) => a.jobId === r.job.id),
    downstream: downstream.find((p) => p.sourceJobId === r.job.id) ?? null,
  }));
  const commits: Map<string, GitCommitRow> = await readCommitRows(db, projectId, [...new Set(rows.map((r) => r.pipeline.sha))]);
  return { rows, commits };
}

function selectJobs(db: Executor) {
  return db
    .select({ job: ciBuilds, pipeline: ciPipelines, user: users, runner: ciRunners })
    .from(ciBuilds)
    .innerJoin(ciPipelines, eq(ciPipelines.id, ciBuilds.pipelineId))
    .leftJoin(users, eq(users.id, ciBuilds.userId))
    .leftJoin(ciRunners, eq(ciRunners.id, ciBuilds.runnerId));
}

/** Jobs of a project or a pipeline, id descending: page, count, artifacts, commits (4 statements). */
export async function listJobs(db: Executor, projectId: number, source: JobSource, f: ListParams, page: Page) {
  const where = jobsWhere(projectId, source, f);
  const base = await selectJobs(db).where(where).orderBy(desc(ciBuilds.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(ciBuilds).where(where), page);
  const { rows, commits } = await withRelations(db, projectId, base as never);
  return { rows, total, commits };
}

export async function findJob(db: Executor, projectId: number, jobId: number) {
  if (!Number.isSafeInteger(jobId) || jobId > 2147483647) return null;
  const base = await selectJobs(db).where(and(eq(ciBuilds.projectId, projectId), eq(ciBuilds.id, jobId)));
  if (!base.length) return null;
  const { rows, commits } = await withRelations(db, projectId, base as never);
  return { row: rows[0], commits };
}

/** The job a job token belongs to, while running (docs/ci.md, "Job token and variables"), with its relations. */
export async function findJobByToken(db: Executor, digest: string) {
  const base = await selectJobs(db).where(and(eq(ciBuilds.tokenDigest, digest), inArray(ciBuilds.status, ["running", "canceling"])));
  if (!base.length) return null;
  const { rows, commits } = await withRelations(db, base[0].job.projectId, base as never);
  return { row: rows[0], commits };
}

export async function pipelineExists(db: Executor, projectId: number, pipelineId: number): Promise<boolean> {
  if (!Number.isSafeInteger(pipelineId) || pipelineId > 2147483647) return false;
  const rows = await db.select({ id: ciPipelines.id }).from(ciPipelines).where(and(eq(ciPipelines.projectId, projectId), eq(ciPipelines.id, pipelineId)));
  return rows.length > 0;
}

/** The trace: its chunks in order, concatenated. */
export async function readTrace(db: Executor, jobId: number): Promise<Uint8Array> {
  const chunks = await db.select().from(ciBuildTraceChunks).where(eq(ciBuildTraceChunks.buildId, jobId)).orderBy(asc(ciBuildTraceChunks.offset));
  const total = chunks.reduce((n, c) => n + c.data.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c.data, at);
    at += c.data.length;
  }
  return out;
}

/** Erase: trace and artifacts go; `erased_at` set (returns the artifact keys to delete from R2). */
export async function eraseJob(db: Executor, jobId: number, userId: number): Promise<string[]> {
  return db.transaction(async (tx) => {
    const removed = await tx.delete(ciJobArtifacts).where(eq(ciJobArtifacts.jobId, jobId)).returning({ key: ciJobArtifacts.r2Key });
    await tx.delete(ciBuildTraceChunks).where(eq(ciBuildTraceChunks.buildId, jobId));
    await tx.update(ciBuilds).set({ erasedAt: sql`now()`, traceSize: 0, artifactsExpireAt: null, userId }).where(eq(ciBuilds.id, jobId));
    return removed.map((r) => r.key);
  });
}

/** The newest successful job of `name` on `ref` with an archive (artifacts by ref and job name). */
export async function latestJobWithArtifacts(db: Executor, projectId: number, ref: string, name: string) {
  const rows = await db
    .select({ id: ciBuilds.id })
    .from(ciBuilds)
    .innerJoin(ciPipelines, eq(ciPipelines.id, ciBuilds.pipelineId))
    .innerJoin(ciJobArtifacts, and(eq(ciJobArtifacts.jobId, ciBuilds.id), eq(ciJobArtifacts.fileType, "archive")))
    .where(and(eq(ciBuilds.projectId, projectId), eq(ciPipelines.ref, ref), eq(ciBuilds.name, name), eq(ciBuilds.status, "success")))
    .orderBy(desc(ciBuilds.id))
    .limit(1);
  return rows[0]?.id ?? null;
}

/** The row type routes name (routes never import db/schema). */
export type { GitCommitRow } from "../../db/schema";

/**
 * Jobs by id with the Job entity's relations (pipeline, user, runner, artifacts, commits), for the
 * entities that embed a job (a deployment's `deployable`): 3 statements whatever the number of ids.
 */
export async function jobRowsByIds(db: Executor, projectId: number, ids: number[]): Promise<{ rows: Map<number, JobRow>; commits: Map<string, GitCommitRow> }> {
  if (ids.length === 0) return { rows: new Map(), commits: new Map() };
  const base = await selectJobs(db).where(and(eq(ciBuilds.projectId, projectId), inArray(ciBuilds.id, ids)));
  const { rows, commits } = await withRelations(db, projectId, base as never);
  return { rows: new Map(rows.map((r) => [r.id, r])), commits };
}
