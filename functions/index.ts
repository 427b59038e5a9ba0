import { app } from "./app";
import type { Bindings } from "./kernel/env";
import { scheduled } from "./kernel/cron";
import { queue } from "./kernel/queue";

export { PipelineCoordinator } from "./pipelines/coordinator";

/** The Worker entry: fetch, the queue consumers and the crons; the Durable Object classes are re-exported above. */
export default {
  fetch: app.fetch,
  queue,
  scheduled,
} satisfies ExportedHandler<Bindings>;
