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
