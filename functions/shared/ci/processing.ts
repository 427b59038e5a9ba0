import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { ciBuilds, ciPipelines, type CiBuild, type CiPipeline } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import type { JobStatusChange } from "./finished";
import { parseDuration } from "./yaml";
import { CANCELABLE, COMPLETED, compositeStatus } from "./status";
import { latestExternalStatuses } from "./external";
import { createJobDeployment } from "../environments";

/**
 * Pipeline processing and job transitions (docs/ci.md, "Processing and job transitions"; app/services/ci/pipeline_processing/
 * atomic_processing_service.rb, app/models/commit_status.rb, app/models/ci/build.rb). Every function
 * re-reads Postgres; the Durable Object only serialises calls per pipeline.
 *
 * This file holds every statement that writes `ci_builds.status`, except the runner's claim
 * (runners/queries.ts) and the inserts of a new pipeline (services.ts) and of an import
 * (test/node/job_status_writer.test.mjs). Each returns the rows it changed (`CHANGE`), and the coordinator
 * hands them to the one reporter, `jobStatusChanged` (shared/ci/finished.ts), which sends the Job Hook.
 */

/** What a status-writing statement returns: one JobStatusChange per row it changed. */
const CHANGE = { id: ciBuilds.id, projectId: ciBuilds.projectId, type: ciBuilds.type, status: ciBuilds.status };

type Latest = CiBuild;

async function latestJobs(db: Executor, pipelineId: number): Promise<Latest[]> {
  return db
    .select()
    .from(ciBuilds)
    .where(and(eq(ciBuilds.pipelineId, pipelineId), eq(ciBuilds.retried, false)))
    .orderBy(asc(ciBuilds.stageIdx), asc(ciBuilds.id));
}

const statusPair = (j: { status: string; allowFailure: boolean }) => ({ status: j.status, allowFailure: j.allowFailure });

function priorStatus(job: Latest, jobs: Latest[]): string {
  if (job.schedulingType === "dag") {
    const names = new Set(job.needs.map((n) => n.name));
    const needed = jobs.filter((j) => names.has(j.name));
    return compositeStatus(needed.map(statusPair), true) ?? "success";
  }
  const earlier = jobs.filter((j) => j.stageIdx < job.stageIdx);
  return compositeStatus(earlier.map(statusPair)) ?? "success";
}

function allowedPrior(job: Latest): string[] {
  const dag = job.schedulingType === "dag";
  switch (job.when) {
    case "on_failure":
      return ["failed"];
    case "always":
      return ["success", "failed", "skipped"];
    default:
      return dag ? ["success"] : ["success", "skipped"];
  }
}

/** Whole seconds of the union of [started_at, finished_at or now] (lib/gitlab/ci/pipeline/duration.rb). */
export function pipelineDuration(jobs: { startedAt: Date | null; finishedAt: Date | null }[], now = new Date()): number | null {
  const spans = jobs
    .filter((j) => j.startedAt)
    .map((j) => [new Date(j.startedAt!).getTime(), new Date(j.finishedAt ?? now).getTime()] as [number, number])
    .sort((a, b) => a[0] - b[0]);
  if (spans.length === 0) return null;
  let total = 0;
  let [start, end] = spans[0];
  for (const [s, e] of spans.slice(1)) {
    if (s > end) {
      total += end - start;
      [start, end] = [s, e];
    } else end = Math.max(end, e);
  }
  total += end - start;
  return Math.floor(total / 1000);
}

/** `previousStatus`: the pipeline's status before this run (the coordinator reports a change, shared/ci/finished.ts). */
export type ProcessResult = {
  pipeline: CiPipeline | null;
  previousStatus: string | null;
  enqueued: number;
  nextScheduledAt: Date | null;
  unprocessed: boolean;
  bridges: number[];
  /** The jobs this run moved, and the new jobs it saw first (their creation, then the status they were inserted with). */
  jobChanges: JobStatusChange[];
};

/** One idempotent run of pipeline processing. */
export async function processPipeline(db: Executor, pipelineId: number): Promise<ProcessResult> {
  // A conflicting attempt still wrote the rows whose lock matched: their changes are kept for the report.
  const jobChanges: JobStatusChange[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const result = await processOnce(db, pipelineId, jobChanges);
    if (result !== "conflict") return { ...result, jobChanges };
  }
  return { pipeline: null, previousStatus: null, enqueued: 0, nextScheduledAt: null, unprocessed: true, bridges: [], jobChanges };
}

async function processOnce(db: Executor, pipelineId: number, jobChanges: JobStatusChange[]): Promise<ProcessResult | "conflict"> {
  const jobs = await latestJobs(db, pipelineId);
  // External statuses (POST /projects/:id/statuses/:sha, shared/ci/external.ts) count with the jobs, as
  // GitLab's GenericCommitStatus rows do; nothing here moves them, they arrive in their state.
  const external = await latestExternalStatuses(db, pipelineId);
  if (jobs.length === 0 && external.length === 0) {
    // A pipeline without jobs (a stored config error) keeps its status.
    const [pipeline] = await db.select().from(ciPipelines).where(eq(ciPipelines.id, pipelineId));
    return { pipeline: pipeline ?? null, previousStatus: pipeline?.status ?? null, enqueued: 0, nextScheduledAt: null, unprocessed: false, bridges: [], jobChanges: [] };
  }
  // A job nobody has moved or processed yet (lock_version 0, not processed) is new: inserted with a new
  // pipeline (services.ts) or as a retry's clone. Its first processing run reports its creation, once,
  // since that run marks it processed. Imports insert their jobs processed, so they report nothing
  // (Ci::Build's `after_create unless: :importing?`).
  const fresh = new Map(jobs.filter((j) => !j.processed && j.lockVersion === 0).map((j) => [j.id, j.status]));
  const now = new Date();
  const changes: { id: number; lock: number; status: string; scheduledAt: Date | null }[] = [];
  let progressed = true;
  while (progressed) {
    progressed = false;
    for (const job of jobs) {
      if (job.status !== "created") continue;
      const prior = priorStatus(job, jobs);
      if (!COMPLETED.has(prior)) continue;
      let next: string;
      let scheduledAt: Date | null = null;
      if (allowedPrior(job).includes(prior)) {
        if (job.when === "delayed") {
          next = "scheduled";
          scheduledAt = new Date(now.getTime() + (parseDuration(job.options.start_in) ?? 0) * 1000);
        } else if (job.when === "manual") next = "manual";
        else next = "pending";
      } else next = "skipped";
      changes.push({ id: job.id, lock: job.lockVersion, status: next, scheduledAt });
      job.status = next;
      job.scheduledAt = scheduledAt;
      if (next === "pending") job.queuedAt = now;
      progressed = true;
    }
  }

  const seen = jobs.map((j) => ({ id: j.id, lock: j.lockVersion }));
  if (seen.length > 0) {
    // Status changes and the processed mark in one statement, each row guarded by its lock_version.
    // Rows that neither change nor wait for their processed mark are left alone: locking a pending row here
    // made a concurrent claim (FOR UPDATE SKIP LOCKED) pass it over and answer 204 with the current queue
    // version, and with nothing enqueued by this run the version never moved, so the runner's next long poll
    // waited on a queue that had jobs (bench/ci.mjs stalled with 242 pending jobs and 16 waiting runners).
    const values = sql.join(
      seen.map((s) => {
        const change = changes.find((c) => c.id === s.id);
        return sql`(${s.id}::int, ${s.lock}::int, ${change?.status ?? null}::text, ${change?.scheduledAt?.toISOString() ?? null}::timestamptz)`;
      }),
      sql`, `,
    );
    const updated = await db.execute<{ id: number }>(sql`
      UPDATE ci_builds b SET
        status = coalesce(v.status, b.status),
        queued_at = CASE WHEN v.status = 'pending' THEN now() ELSE b.queued_at END,
        scheduled_at = CASE WHEN v.status = 'scheduled' THEN v.scheduled_at ELSE b.scheduled_at END,
        lock_version = CASE WHEN v.status IS NULL THEN b.lock_version ELSE b.lock_version + 1 END,
        updated_at = CASE WHEN v.status IS NULL THEN b.updated_at ELSE now() END,
        processed = true
      FROM (VALUES ${values}) AS v(id, lock, status, scheduled_at)
      WHERE b.id = v.id AND b.lock_version = v.lock AND (v.status IS NOT NULL OR NOT b.processed)
      RETURNING b.id`);
    const changedIds = new Set(updated.rows.map((r) => Number(r.id)));
    for (const job of jobs) {
      if (!changedIds.has(job.id)) continue;
      const base = { id: job.id, projectId: job.projectId, type: job.type };
      const inserted = fresh.get(job.id);
      if (inserted !== undefined) {
        jobChanges.push({ ...base, status: "created", created: true });
        if (inserted !== "created") jobChanges.push({ ...base, status: inserted });
      }
      const change = changes.find((c) => c.id === job.id);
      if (change) jobChanges.push({ ...base, status: change.status });
    }
    if (changes.some((c) => !changedIds.has(c.id))) return "conflict";
  }

  // Stages and the pipeline.
  const stageIds = [...new Set(jobs.map((j) => j.stageId).filter((id): id is number => id !== null))];
  if (stageIds.length > 0) {
    const stageValues = sql.join(
      stageIds.map((id) => sql`(${id}::int, ${compositeStatus(jobs.filter((j) => j.stageId === id).map(statusPair)) ?? "skipped"}::text)`),
      sql`, `,
    );
    await db.execute(sql`UPDATE ci_stages s SET status = v.status FROM (VALUES ${stageValues}) AS v(id, status) WHERE s.id = v.id AND s.status <> v.status`);
  }
  const status = compositeStatus([...jobs, ...external].map(statusPair)) ?? "skipped";
  const finished = ["success", "failed", "canceled", "skipped"].includes(status);
  const duration = finished || status === "manual" ? pipelineDuration([...jobs, ...external], now) : null;
  const coverages = [...jobs, ...external].map((j) => j.coverage).filter((c): c is number => c !== null);
  const coverage = coverages.length ? (coverages.reduce((a, b) => a + b, 0) / coverages.length).toFixed(2) : null;
  // The status before this run: the update below is its only writer (the coordinator serialises runs).
  const [previous] = await db.select({ status: ciPipelines.status }).from(ciPipelines).where(eq(ciPipelines.id, pipelineId));
  const [pipeline] = await db
    .update(ciPipelines)
    .set({
      status,
      startedAt: sql`CASE WHEN ${status} IN ('running') AND ${ciPipelines.startedAt} IS NULL THEN now() ELSE ${ciPipelines.startedAt} END`,
      finishedAt: finished
        ? sql`CASE WHEN ${ciPipelines.status} <> ${status} OR ${ciPipelines.finishedAt} IS NULL THEN now() ELSE ${ciPipelines.finishedAt} END`
        : null,
      duration: sql`coalesce(${duration}::int, ${ciPipelines.duration})`,
      coverage,
      updatedAt: sql`CASE WHEN ${ciPipelines.status} <> ${status} THEN now() ELSE ${ciPipelines.updatedAt} END`,
      lockVersion: sql`${ciPipelines.lockVersion} + 1`,
    })
    .where(eq(ciPipelines.id, pipelineId))
    .returning();

  const enqueued = changes.filter((c) => c.status === "pending").length;
  if (enqueued > 0) await bumpQueue(db);
  const scheduled = jobs.filter((j) => j.status === "scheduled" && j.scheduledAt).map((j) => new Date(j.scheduledAt!).getTime());
  const bridges = jobs.filter((j) => j.type === "bridge" && j.status === "pending").map((j) => j.id);
  return {
    pipeline: pipeline ?? null,
    previousStatus: previous?.status ?? null,
    enqueued,
    nextScheduledAt: scheduled.length ? new Date(Math.min(...scheduled)) : null,
    unprocessed: false,
    bridges,
    jobChanges,
  };
}

export async function bumpQueue(db: Executor): Promise<void> {
  await db.execute(sql`UPDATE ci_queue_state SET version = version + 1 WHERE id = 1`);
}

/** Scheduled jobs that are due become pending (`enqueue`). */
export async function enqueueDueScheduled(db: Executor, pipelineId: number): Promise<JobStatusChange[]> {
  return db
    .update(ciBuilds)
    .set({ status: "pending", queuedAt: sql`now()`, processed: false, lockVersion: sql`${ciBuilds.lockVersion} + 1`, updatedAt: sql`now()` })
    .where(and(eq(ciBuilds.pipelineId, pipelineId), eq(ciBuilds.status, "scheduled"), sql`${ciBuilds.scheduledAt} <= now()`))
    .returning(CHANGE);
}

export type JobOutcome = { state: "success" } | { state: "failed"; failureReason: string; exitCode: number | null };

/**
 * A runner's final state (`success` / `drop`), then auto-retry (app/models/ci/build.rb, auto_retry.rb).
 * Only a running (or canceling) job changes; anything else is left as is and its status returned.
 */
export async function finishJob(db: Executor, jobId: number, outcome: JobOutcome): Promise<{ status: string; retriedAs: number | null; changes: JobStatusChange[] }> {
  const [job] = await db.select().from(ciBuilds).where(eq(ciBuilds.id, jobId));
  if (!job) return { status: "missing", retriedAs: null, changes: [] };
  const droppable = outcome.state === "failed" && ["created", "pending", "scheduled", "manual"].includes(job.status);
  if (job.status !== "running" && job.status !== "canceling" && !droppable) return { status: job.status, retriedAs: null, changes: [] };
  const failed = outcome.state === "failed";
  const exitCode = failed ? outcome.exitCode : null;
  const allowByExitCode = failed && exitCode !== null && (job.allowFailureExitCodes ?? []).includes(exitCode);
  const [updated] = await db
    .update(ciBuilds)
    .set({
      status: job.status === "canceling" ? "canceled" : failed ? "failed" : "success",
      finishedAt: sql`now()`,
      failureReason: failed ? outcome.failureReason : null,
      exitCode,
      allowFailure: allowByExitCode ? true : job.allowFailure,
      processed: false,
      lockVersion: sql`${ciBuilds.lockVersion} + 1`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(ciBuilds.id, jobId), eq(ciBuilds.lockVersion, job.lockVersion)))
    .returning({ ...CHANGE, allowFailure: ciBuilds.allowFailure });
  if (!updated) return finishJob(db, jobId, outcome);
  let retriedAs: number | null = null;
  if (updated.status === "failed" && !allowByExitCode) {
    const retry = (job.options.retry ?? null) as { max: number; when: string[]; exitCodes: number[] } | null;
    if (retry && retry.max > 0 && outcome.state === "failed" && outcome.failureReason !== "missing_dependency_failure") {
      const reasonOk = retry.when.includes("always") || retry.when.includes(outcome.failureReason);
      const codeOk = retry.exitCodes.length === 0 || (exitCode !== null && retry.exitCodes.includes(exitCode));
      if (reasonOk && codeOk) {
        const [{ n }] = (
          await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM ci_builds WHERE pipeline_id = ${job.pipelineId} AND name = ${job.name} AND retried`)
        ).rows;
        if (Number(n) < retry.max) retriedAs = await cloneJob(db, { ...job, allowFailure: updated.allowFailure }, job.userId, "pending");
      }
    }
  }
  // The clone's creation and `pending` are reported by the processing run that follows (its first).
  return { status: updated.status, retriedAs, changes: [{ id: updated.id, projectId: updated.projectId, type: updated.type, status: updated.status }] };
}

/** A new `created` (or `pending`) copy of a job; older rows of that name become retried (Ci::RetryJobService). */
async function cloneJob(db: Executor, job: CiBuild, userId: number | null, status: "created" | "pending" = "created"): Promise<number> {
  await db
    .update(ciBuilds)
    .set({ retried: true, processed: true })
    .where(and(eq(ciBuilds.pipelineId, job.pipelineId), eq(ciBuilds.name, job.name), eq(ciBuilds.retried, false)));
  const [clone] = await db
    .insert(ciBuilds)
    .values({
      pipelineId: job.pipelineId,
      projectId: job.projectId,
      stageId: job.stageId,
      stageIdx: job.stageIdx,
      stage: job.stage,
      name: job.name,
      type: job.type,
      status,
      when: job.when,
      allowFailure: job.allowFailure,
      allowFailureExitCodes: job.allowFailureExitCodes,
      schedulingType: job.schedulingType,
      options: job.options,
      yamlVariables: job.yamlVariables,
      needs: job.needs,
      tagList: job.tagList,
      coverageRegex: job.coverageRegex,
      timeout: job.timeout,
      userId,
      queuedAt: status === "pending" ? sql`now()` : null,
      processed: false,
    })
    .returning({ id: ciBuilds.id, projectId: ciBuilds.projectId, options: ciBuilds.options });
  // Ci::RetryJobService gives the clone a deployment of its own (the old one keeps the old job's status).
  await createJobDeployment(db, clone);
  if (status === "pending") await bumpQueue(db);
  return clone.id;
}

/** Later skipped jobs go back to `created` so processing reconsiders them (`process` event). */
async function reopenSkipped(db: Executor, pipelineId: number, afterStageIdx: number | null): Promise<JobStatusChange[]> {
  return db
    .update(ciBuilds)
    .set({ status: "created", processed: false, lockVersion: sql`${ciBuilds.lockVersion} + 1`, updatedAt: sql`now()` })
    .where(
      and(
        eq(ciBuilds.pipelineId, pipelineId),
        eq(ciBuilds.retried, false),
        eq(ciBuilds.status, "skipped"),
        afterStageIdx === null ? sql`true` : sql`${ciBuilds.stageIdx} >= ${afterStageIdx}`,
      ),
    )
    .returning(CHANGE);
}

/** POST /pipelines/:id/retry: clone latest failed or canceled jobs; skipped ones go back to created. */
export async function retryPipeline(db: Executor, pipelineId: number, userId: number | null): Promise<JobStatusChange[]> {
  const jobs = await latestJobs(db, pipelineId);
  for (const job of jobs) if ((job.status === "failed" || job.status === "canceled") && job.type === "build") await cloneJob(db, job, userId);
  return reopenSkipped(db, pipelineId, null);
}

/** POST /jobs/:id/retry → the new job's id, or null when not retryable. */
export async function retryJob(db: Executor, jobId: number, userId: number | null): Promise<{ id: number; changes: JobStatusChange[] } | null> {
  const [job] = await db.select().from(ciBuilds).where(eq(ciBuilds.id, jobId));
  if (!job || job.retried || !["success", "failed", "canceled"].includes(job.status)) return null;
  const id = await cloneJob(db, job, userId);
  return { id, changes: await reopenSkipped(db, job.pipelineId, job.stageIdx) };
}

/** POST /jobs/:id/play: manual → pending (false when not playable). */
export async function playJob(db: Executor, jobId: number, userId: number | null): Promise<JobStatusChange[]> {
  const rows = await db
    .update(ciBuilds)
    .set({ status: "pending", queuedAt: sql`now()`, userId, processed: false, lockVersion: sql`${ciBuilds.lockVersion} + 1`, updatedAt: sql`now()` })
    .where(and(eq(ciBuilds.id, jobId), eq(ciBuilds.status, "manual")))
    .returning(CHANGE);
  if (rows.length) await bumpQueue(db);
  return rows;
}

/** Cancels every cancelable latest job of a pipeline (and of its child pipelines). */
export async function cancelPipeline(db: Executor, pipelineId: number): Promise<JobStatusChange[]> {
  const children = await db.select({ id: ciPipelines.id }).from(ciPipelines).where(eq(ciPipelines.parentPipelineId, pipelineId));
  const ids = [pipelineId, ...children.map((c) => c.id)];
  return db
    .update(ciBuilds)
    .set({ status: "canceled", finishedAt: sql`now()`, processed: false, lockVersion: sql`${ciBuilds.lockVersion} + 1`, updatedAt: sql`now()` })
    .where(and(inArray(ciBuilds.pipelineId, ids), inArray(ciBuilds.status, [...CANCELABLE])))
    .returning(CHANGE);
}

/** Cancels one job (no-op when finished). */
export async function cancelJob(db: Executor, jobId: number): Promise<JobStatusChange[]> {
  return db
    .update(ciBuilds)
    .set({ status: "canceled", finishedAt: sql`now()`, processed: false, lockVersion: sql`${ciBuilds.lockVersion} + 1`, updatedAt: sql`now()` })
    .where(and(eq(ciBuilds.id, jobId), inArray(ciBuilds.status, [...CANCELABLE])))
    .returning(CHANGE);
}

/**
 * A pending bridge whose child pipeline was just made (or failed to be): `failed`, `running` while a
 * `strategy: depend` child runs, else `success` at once.
 */
export async function startBridge(db: Executor, bridgeId: number, outcome: "failed" | "running" | "success"): Promise<JobStatusChange[]> {
  return db
    .update(ciBuilds)
    .set({
      status: outcome,
      failureReason: outcome === "failed" ? "downstream_pipeline_creation_failed" : null,
      startedAt: new Date(),
      finishedAt: outcome === "running" ? null : new Date(),
      processed: false,
      lockVersion: sql`${ciBuilds.lockVersion} + 1`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(ciBuilds.id, bridgeId), eq(ciBuilds.status, "pending")))
    .returning(CHANGE);
}

/** A running `strategy: depend` bridge takes its child pipeline's final status. */
export async function settleBridge(db: Executor, bridgeId: number, status: "success" | "failed" | "canceled"): Promise<JobStatusChange[]> {
  return db
    .update(ciBuilds)
    .set({
      status,
      finishedAt: new Date(),
      processed: false,
      failureReason: status === "failed" ? "downstream_pipeline_creation_failed" : null,
      lockVersion: sql`${ciBuilds.lockVersion} + 1`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(ciBuilds.id, bridgeId), eq(ciBuilds.status, "running")))
    .returning(CHANGE);
}

