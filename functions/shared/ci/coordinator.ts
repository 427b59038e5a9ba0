import type { JobOutcome } from "./processing";
import type { PipelineCoordinator, PipelineSnapshot } from "./pipeline_coordinator";
import type { ExternalStatusInput, ExternalStatusResult } from "./external";
import type { Bindings } from "../../kernel/env";
import { hookEvent } from "../webhooks";
import { mirrorsForPush } from "../remote_mirrors";

/**
 * The typed facade of the `PipelineCoordinator` Durable Object (docs/ci.md, "The pipeline coordinator"): how `jobs`, `runners`,
 * `commits` and the git push path reach the pipeline engine, which lives in `pipelines/`.
 */
export type { ExternalStatusInput, ExternalStatusResult, JobOutcome, PipelineSnapshot };

function stub(env: Bindings, name: string): DurableObjectStub<PipelineCoordinator> {
  return env.PIPELINES.get(env.PIPELINES.idFromName(name)) as DurableObjectStub<PipelineCoordinator>;
}

/** The coordinator of one pipeline; every state change of that pipeline but the runner's claim goes through it. */
export function pipelineStub(env: Bindings, pipelineId: number) {
  const s = stub(env, String(pipelineId));
  return {
    process: () => s.process(pipelineId) as Promise<PipelineSnapshot>,
    cancel: () => s.cancel(pipelineId) as Promise<PipelineSnapshot>,
    retry: (userId: number | null) => s.retry(pipelineId, userId) as Promise<PipelineSnapshot>,
    retryJob: (jobId: number, userId: number | null) => s.retryJob(pipelineId, jobId, userId) as Promise<number | null>,
    playJob: (jobId: number, userId: number | null) => s.playJob(pipelineId, jobId, userId) as Promise<boolean>,
    cancelJob: (jobId: number) => s.cancelJob(pipelineId, jobId) as Promise<PipelineSnapshot>,
    finishJob: (jobId: number, outcome: JobOutcome) => s.finishJob(pipelineId, jobId, outcome) as Promise<{ status: string }>,
    postStatus: (input: ExternalStatusInput) => s.postStatus(pipelineId, input) as Promise<ExternalStatusResult>,
  };
}

/**
 * An external commit status (lib/api/commit_statuses.rb): attached to `pipelineId` when the caller found
 * the commit's pipeline, else to the one the project's coordinator finds or creates (`match` is the
 * caller's `ref` and `pipeline_id`), then written by that pipeline's coordinator, the one writer of its state.
 */
export async function postExternalStatus(
  env: Bindings,
  input: ExternalStatusInput & { pipelineId: number | null; match: { ref?: string; pipelineId?: number } },
): Promise<ExternalStatusResult> {
  const { pipelineId: found, match, ...status } = input;
  const pipelineId =
    found ??
    ((await stub(env, `project:${input.projectId}`).externalPipeline({ projectId: input.projectId, sha: input.sha, ref: input.ref, userId: input.userId, match })) as number);
  return pipelineStub(env, pipelineId).postStatus(status);
}

/**
 * Call after any ref update of a project (API commits, branch and tag writes, git push over smart
 * HTTP): the git core has already written one `push_events` row per updated ref in the same statement
 * as the ref's compare-and-swap; this creates the `push` pipelines of the project's unprocessed events
 * (branches and tags with a `.gitlab-ci.yml`; `[skip ci]` in the head commit, or `ciSkip` for the
 * `ci.skip` push option, skips) and processes them. Serialised per project; safe to call twice; the
 * `*\/5` cron sweep picks up events whose call was lost. Use it as
 * `c.executionCtx.waitUntil(pipelinesForPush(c.env, project.id, { baseUrl }))`.
 */
export async function pipelinesForPush(env: Bindings, projectId: number, opts: { ciSkip?: boolean; baseUrl?: string } = {}): Promise<number[]> {
  // Push and tag push hooks read the same push events through their own cursor (functions/shared/webhooks):
  // this is the one place every ref update passes.
  await hookEvent(env, opts.baseUrl ?? (env.EXTERNAL_URL ?? "http://localhost").replace(/\/+$/, ""), { kind: "push", projectId });
  // …and so do push mirrors (shared/remote_mirrors): the consumer pushes the refs as they are then.
  await mirrorsForPush(env, projectId);
  return stub(env, `project:${projectId}`).pushed(projectId, opts) as Promise<number[]>;
}
