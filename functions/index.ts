import { app } from "./app";
import type { Bindings } from "./kernel/env";
import { queue } from "./queue";
import { scheduled } from "./scheduled";
import { onJobStatusChanged, onPipelineFinished, onPipelineStatusChanged } from "./shared/ci/finished";
import { deploymentJobHookEvents, hookEvents, jobHookEvents } from "./shared/webhooks";
import { autoMergeAfterPipeline } from "./merge_requests/auto_merge";
import { useBlobBucket } from "./shared/git";
import { pagesJobsFinished } from "./pages/consumer";

// What other domains do when a pipeline finishes (shared/ci/finished.ts): the pipeline engine calls
// them without importing them.
onPipelineFinished(autoMergeAfterPipeline);
// Each pipeline status transition is a pipeline hook event (PipelineHooksWorker), carrying its status.
const externalUrl = (env: Bindings) => (env.EXTERNAL_URL ?? "http://localhost").replace(/\/+$/, "");
onPipelineStatusChanged((env, p) => hookEvents(env, externalUrl(env), [{ kind: "pipeline", projectId: p.projectId, id: p.id, status: p.status }]));
// Each job status change the one reporter passes on is a job hook event (BuildHooksWorker), carrying its
// status, for projects with job hooks.
onJobStatusChanged((env, changes) => jobHookEvents(env, externalUrl(env), changes));
// A job's deployment moves with it (the `ci_builds` trigger): its moves into running, success, failed and
// canceled are Deployment Hook events (Deployments::HooksWorker), for projects with deployment hooks.
onJobStatusChanged((env, changes) => deploymentJobHookEvents(env, externalUrl(env), changes));
// A succeeded `pages` job is published (functions/pages/consumer.ts, docs/pages.md).
onJobStatusChanged(pagesJobsFinished);

export { PipelineCoordinator } from "./shared/ci/pipeline_coordinator";

/** The Worker entry: fetch, the queue consumers and the crons; the Durable Object classes are re-exported above. */
export default {
  // The git store's large blobs live in this R2 bucket (shared/git/store/blobs.ts says why it is registered).
  fetch: (request: Request, env: Bindings, ctx: ExecutionContext) => {
    useBlobBucket(env.BLOBS);
    return app.fetch(request, env, ctx);
  },
  queue,
  scheduled,
} satisfies ExportedHandler<Bindings>;
