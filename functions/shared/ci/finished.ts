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
