import { DurableObject } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { ciBuilds, ciPipelines } from "../../../db/schema";
import { jobStatusChanged, pipelineFinished, pipelineStatusChanged, type JobStatusChange } from "./finished";
import { useBlobBucket } from "../git";
import { withDb, type Database } from "../../kernel/db";
import type { Bindings } from "../../kernel/env";
import type { JobOutcome, ProcessResult } from "./processing";
import * as engine from "./processing";
import { externalPipelineFor, writeExternalStatus, type ExternalStatusInput, type ExternalStatusResult } from "./external";
import { createChildPipeline, createExternalPipeline, pipelinesForPushEvents } from "./create";

/**
 * Processes a pipeline through its own coordinator (a child, a parent, a pushed pipeline). The instance
 * name is the pipeline id, as `pipelineStub` (shared/ci/coordinator.ts) names it: this file does not
 * import that facade, which names this class's type, so that the two do not import each other.
 */
function processElsewhere(env: Bindings, pipelineId: number): Promise<PipelineSnapshot> {
  const stub = env.PIPELINES.get(env.PIPELINES.idFromName(String(pipelineId))) as DurableObjectStub<PipelineCoordinator>;
  return stub.process(pipelineId) as Promise<PipelineSnapshot>;
}

const SAFETY_RERUN_MS = 5 * 60 * 1000;
const FINAL = ["success", "failed", "canceled", "skipped"];

/**
 * One object per pipeline (`idFromName(String(pipelineId))`), and one per project for push events
 * (`idFromName("project:<id>")`): it serialises every state change of its pipeline but one. The runner's
 * claim (pending → running) is one SQL statement in the Worker (runners/queries.ts, `FOR UPDATE SKIP
 * LOCKED`): a round trip here would sit on the hottest CI path, and the row lock and `lock_version` make it
 * safe against the engine's guarded writes; the claiming route then asks for `process()`. Everything else
 * (runners' final states, cancel, retry, play, bridges, external statuses, scheduled jobs, processing and
 * the pipeline's status) runs here. State lives only in Postgres; our awaits are Postgres I/O, which
 * input gates do not hold back, so every method runs inside a promise-chain mutex (test/node/
 * job_status_writer.test.mjs checks that each does). Other domains reach it through shared/ci/coordinator.ts.
 */
export class PipelineCoordinator extends DurableObject<Bindings> {
  private tail: Promise<unknown> = Promise.resolve();
  /** A queued, not yet started `process()` run that new callers join instead of adding another. */
  private queuedProcess: Promise<PipelineSnapshot> | null = null;
  private pipelineId: number | null = null;

  /** Runs `fn` after every earlier call; errors do not break the chain. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private db<T>(fn: (db: Database) => Promise<T>): Promise<T> {
    // Pipelines read the repository (CI config, includes), whose large blobs live in R2.
    useBlobBucket(this.env.BLOBS);
    return withDb(this.env, fn);
  }

  private baseUrl(): string {
    return (this.env.EXTERNAL_URL ?? "http://localhost").replace(/\/+$/, "");
  }

  /** Processes until nothing changes; creates child pipelines of pending bridges; sets the alarm. */
  private async runProcess(db: Database, pipelineId: number): Promise<PipelineSnapshot> {
    this.pipelineId = pipelineId;
    let result = await this.processAndReport(db, pipelineId);
    for (let round = 0; round < 10 && result.bridges.length > 0; round++) {
      for (const bridgeId of result.bridges) await this.startBridge(db, bridgeId);
      result = await this.processAndReport(db, pipelineId);
    }
    const next = result.nextScheduledAt?.getTime() ?? (result.unprocessed ? Date.now() + SAFETY_RERUN_MS : null);
    if (next !== null) {
      await this.ctx.storage.put("pipelineId", pipelineId);
      await this.ctx.storage.setAlarm(next);
    }
    const pipeline = result.pipeline;
    if (pipeline?.parentPipelineId && pipeline.sourceJobId) await this.settleBridge(db, pipeline.sourceJobId, pipeline.status);
    if (pipeline && !pipeline.parentPipelineId && FINAL.includes(pipeline.status)) {
      const { id, projectId, ref, sha, tag, status } = pipeline;
      await pipelineFinished(this.env, db, { id, projectId, ref, sha, tag, status });
    }
    return { status: pipeline?.status ?? null };
  }

  /**
   * One processing run, then its status change to the registered handlers (shared/ci/finished.ts): the
   * coordinator is the only writer of pipeline status, so it is the one reporter of its changes.
   */
  private async processAndReport(db: Database, pipelineId: number): Promise<ProcessResult> {
    const result = await engine.processPipeline(db, pipelineId);
    await this.reportJobs(result.jobChanges);
    const p = result.pipeline;
    if (p && result.previousStatus !== null && result.previousStatus !== p.status) {
      await pipelineStatusChanged(this.env, { id: p.id, projectId: p.projectId, status: p.status, previousStatus: result.previousStatus });
    }
    return result;
  }

  /**
   * Every job status the engine wrote goes to the one reporter (shared/ci/finished.ts `jobStatusChanged`):
   * each engine call that writes `ci_builds.status` returns its changes, and each is passed here.
   */
  private async reportJobs(changes: JobStatusChange[]): Promise<void> {
    await jobStatusChanged(this.env, changes);
  }

  /** A pending bridge creates its child; without `strategy: depend` it succeeds at once. */
  private async startBridge(db: Database, bridgeId: number): Promise<void> {
    const [bridge] = await db.select().from(ciBuilds).where(eq(ciBuilds.id, bridgeId));
    if (!bridge || bridge.status !== "pending") return;
    const child = await createChildPipeline(db, bridgeId, this.baseUrl());
    const depend = (bridge.options.trigger as { strategy: string | null } | null)?.strategy === "depend";
    const failed = !child || child.status === "failed";
    await this.reportJobs(await engine.startBridge(db, bridgeId, failed ? "failed" : depend ? "running" : "success"));
    if (child && child.status !== "failed") await processElsewhere(this.env, child.id);
  }

  /** A child pipeline's final status reaches a `strategy: depend` bridge, then the parent is processed. */
  private async settleBridge(db: Database, bridgeId: number, childStatus: string): Promise<void> {
    if (!["success", "failed", "canceled", "skipped"].includes(childStatus)) return;
    const [bridge] = await db.select().from(ciBuilds).where(eq(ciBuilds.id, bridgeId));
    if (!bridge || bridge.status !== "running") return;
    const status = childStatus === "success" ? "success" : childStatus === "canceled" ? "canceled" : "failed";
    await this.reportJobs(await engine.settleBridge(db, bridgeId, status));
    const parentId = bridge.pipelineId;
    this.ctx.waitUntil(processElsewhere(this.env, parentId));
  }

  /** Idempotent; concurrent callers that arrive while a run is queued share it. */
  process(pipelineId: number): Promise<PipelineSnapshot> {
    if (this.queuedProcess) return this.queuedProcess;
    const queued = this.serial(async () => {
      if (this.queuedProcess === queued) this.queuedProcess = null;
      return this.db((db) => this.runProcess(db, pipelineId));
    });
    this.queuedProcess = queued;
    return queued;
  }

  cancel(pipelineId: number): Promise<PipelineSnapshot> {
    return this.serial(() =>
      this.db(async (db) => {
        await this.reportJobs(await engine.cancelPipeline(db, pipelineId));
        const children = await db.select({ id: ciPipelines.id }).from(ciPipelines).where(eq(ciPipelines.parentPipelineId, pipelineId));
        for (const child of children) await this.processAndReport(db, child.id);
        return this.runProcess(db, pipelineId);
      }),
    );
  }

  retry(pipelineId: number, userId: number | null): Promise<PipelineSnapshot> {
    return this.serial(() =>
      this.db(async (db) => {
        await this.reportJobs(await engine.retryPipeline(db, pipelineId, userId));
        return this.runProcess(db, pipelineId);
      }),
    );
  }

  retryJob(pipelineId: number, jobId: number, userId: number | null): Promise<number | null> {
    return this.serial(() =>
      this.db(async (db) => {
        const retried = await engine.retryJob(db, jobId, userId);
        if (retried === null) return null;
        await this.reportJobs(retried.changes);
        await this.runProcess(db, pipelineId);
        return retried.id;
      }),
    );
  }

  playJob(pipelineId: number, jobId: number, userId: number | null): Promise<boolean> {
    return this.serial(() =>
      this.db(async (db) => {
        const played = await engine.playJob(db, jobId, userId);
        await this.reportJobs(played);
        if (played.length > 0) await this.runProcess(db, pipelineId);
        return played.length > 0;
      }),
    );
  }

  cancelJob(pipelineId: number, jobId: number): Promise<PipelineSnapshot> {
    return this.serial(() =>
      this.db(async (db) => {
        await this.reportJobs(await engine.cancelJob(db, jobId));
        return this.runProcess(db, pipelineId);
      }),
    );
  }

  /**
   * The runner's final state; the processing that follows is the coalesced `process()`, so a burst of
   * finishes of one pipeline costs a few processing runs, not one each.
   */
  async finishJob(pipelineId: number, jobId: number, outcome: JobOutcome): Promise<{ status: string }> {
    const result = await this.serial(() =>
      this.db(async (db) => {
        const finished = await engine.finishJob(db, jobId, outcome);
        await this.reportJobs(finished.changes);
        return finished;
      }),
    );
    await this.process(pipelineId);
    return { status: result.status };
  }

  /**
   * An external status (POST /projects/:id/statuses/:sha) written in this pipeline's chain, like a
   * job's outcome, then the processing that makes it count in the pipeline's status (and, once the
   * pipeline is final, merges what waits on it). A refused transition writes nothing.
   */
  postStatus(pipelineId: number, input: ExternalStatusInput): Promise<ExternalStatusResult> {
    return this.serial(() =>
      this.db(async (db) => {
        const result = await writeExternalStatus(db, pipelineId, input);
        if (result.ok) await this.runProcess(db, pipelineId);
        return result;
      }),
    );
  }

  /** Per-project instance: the pipeline an external status attaches to, found or created in order. */
  externalPipeline(input: { projectId: number; sha: string; ref: string; userId: number; match: { ref?: string; pipelineId?: number } }): Promise<number> {
    return this.serial(() => this.db((db) => externalPipelineFor(db, (row) => createExternalPipeline(db, row), input)));
  }

  /** Per-project instance: pipelines for the project's unprocessed push events, then their processing. */
  pushed(projectId: number, opts: { ciSkip?: boolean; baseUrl?: string } = {}): Promise<number[]> {
    return this.serial(async () => {
      const ids = await this.db((db) => pipelinesForPushEvents(db, projectId, opts.baseUrl ?? this.baseUrl(), opts));
      for (const id of ids) await processElsewhere(this.env, id);
      return ids;
    });
  }

  async alarm(): Promise<void> {
    const pipelineId = this.pipelineId ?? (await this.ctx.storage.get<number>("pipelineId")) ?? null;
    if (pipelineId === null) return;
    await this.serial(() =>
      this.db(async (db) => {
        await this.reportJobs(await engine.enqueueDueScheduled(db, pipelineId));
        return this.runProcess(db, pipelineId);
      }),
    );
  }
}

export type PipelineSnapshot = { status: string | null };
