import { app } from "./app";
import type { Bindings } from "./kernel/env";
import { queue } from "./queue";
import { scheduled } from "./scheduled";
import { onPipelineFinished, onPipelineStatusChanged } from "./shared/ci/finished";
import { hookEvent } from "./shared/webhooks";
import { autoMergeAfterPipeline } from "./merge_requests/auto_merge";

// What other domains do when a pipeline finishes (shared/ci/finished.ts): the pipeline engine calls
// them without importing them.
onPipelineFinished(autoMergeAfterPipeline);
// Each pipeline status transition is a pipeline hook event (PipelineHooksWorker), carrying its status.
onPipelineStatusChanged((env, p) =>
  hookEvent(env, (env.EXTERNAL_URL ?? "http://localhost").replace(/\/+$/, ""), { kind: "pipeline", projectId: p.projectId, id: p.id, status: p.status }),
);

export { PipelineCoordinator } from "./pipelines/coordinator";

/** The Worker entry: fetch, the queue consumers and the crons; the Durable Object classes are re-exported above. */
export default {
  fetch: app.fetch,
  queue,
  scheduled,
} satisfies ExportedHandler<Bindings>;
