import type { Database } from "../../kernel/db";
import type { Bindings } from "../../kernel/env";

/** What a pipeline that reached a final status tells the domains that wait on it. */
export type FinishedPipeline = { id: number; projectId: number; ref: string; sha: string; tag: boolean; status: string };
type Handler = (env: Bindings, db: Database, pipeline: FinishedPipeline) => Promise<void>;

const handlers: Handler[] = [];

/**
 * Registered once per isolate by the Worker entry (functions/index.ts), so that the pipeline engine
 * (`pipelines/coordinator.ts`) calls other domains without importing them (docs/architecture.md,
 * "Import rules"): today the merge requests that merge when their pipeline succeeds.
 */
export function onPipelineFinished(handler: Handler): void {
  if (!handlers.includes(handler)) handlers.push(handler);
}

/** Called by the pipeline's coordinator after each run that leaves it final; handlers must be idempotent. */
export async function pipelineFinished(env: Bindings, db: Database, pipeline: FinishedPipeline): Promise<void> {
  for (const handler of handlers) {
    try {
      await handler(env, db, pipeline);
    } catch (error) {
      console.error(`pipeline ${pipeline.id} finished: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** A pipeline whose status moved in one processing run (parent or child pipeline). */
export type PipelineStatusChange = { id: number; projectId: number; status: string; previousStatus: string };
type ChangeHandler = (env: Bindings, pipeline: PipelineStatusChange) => Promise<void>;

const changeHandlers: ChangeHandler[] = [];

/**
 * The Ci::Pipeline state machine's `after_transition` (PipelineHooksWorker): registered by the Worker
 * entry like `onPipelineFinished`; today the webhook queue's pipeline events.
 */
export function onPipelineStatusChanged(handler: ChangeHandler): void {
  if (!changeHandlers.includes(handler)) changeHandlers.push(handler);
}

/** Called only by the pipeline's coordinator, once per processing run whose status differs from before it. */
export async function pipelineStatusChanged(env: Bindings, pipeline: PipelineStatusChange): Promise<void> {
  if (pipeline.status === pipeline.previousStatus) return;
  for (const handler of changeHandlers) {
    try {
      await handler(env, pipeline);
    } catch (error) {
      console.error(`pipeline ${pipeline.id} status changed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/**
 * One job status change (Ci::Build's state machine): `created` marks a new row (`after_create`), any
 * other status a transition into it. Bridges (`type: "bridge"`) are reported too and dropped here, as
 * GitLab's Ci::Bridge runs no build hooks.
 */
export type JobStatusChange = { id: number; projectId: number; type: string; status: string; created?: boolean };
type JobChangeHandler = (env: Bindings, changes: JobStatusChange[]) => Promise<void>;

const jobHandlers: JobChangeHandler[] = [];

/**
 * The statuses whose transition GitLab's Ci::Build reports to job hooks (BuildHooksWorker,
 * `execute_hooks`): any → pending, pending → running, any → success/failed/canceled; plus the creation
 * of a job. Moves to `manual`, `scheduled`, `skipped` and back to `created` send nothing there either.
 */
export const HOOKED_JOB_STATUSES: readonly string[] = ["pending", "running", "success", "failed", "canceled"];

/** Registered by the Worker entry like `onPipelineStatusChanged`; today the webhook queue's job events. */
export function onJobStatusChanged(handler: JobChangeHandler): void {
  if (!jobHandlers.includes(handler)) jobHandlers.push(handler);
}

/**
 * The one reporter of job status changes. Its callers are the places that write `ci_builds.status`
 * (test/node/job_status_writer.test.mjs): the pipeline coordinator, after each engine call
 * (pipelines/processing.ts returns what its statements changed), and the runner's claim (runners/routes.ts).
 */
export async function jobStatusChanged(env: Bindings, changes: JobStatusChange[]): Promise<void> {
  const reported = changes.filter((c) => c.type === "build" && (c.created || HOOKED_JOB_STATUSES.includes(c.status)));
  if (reported.length === 0) return;
  for (const handler of jobHandlers) {
    try {
      await handler(env, reported);
    } catch (error) {
      console.error(`jobs ${reported.map((c) => c.id).join(",")} status changed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
