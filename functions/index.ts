import { app } from "./app";
import type { Bindings } from "./kernel/env";
import { scheduled } from "./kernel/cron";
import { queue } from "./queues/dispatch";

export { PipelineCoordinator } from "./pipelines/coordinator";

/** The Worker entry: fetch, the crons and the queues; the Durable Object classes are re-exported above. */
export default {
  fetch: app.fetch,
  scheduled,
  queue,
} satisfies ExportedHandler<Bindings>;
