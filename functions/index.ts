import { app } from "./app";
import type { Bindings } from "./kernel/env";
import { queue } from "./queue";
import { scheduled } from "./scheduled";

export { PipelineCoordinator } from "./pipelines/coordinator";

/** The Worker entry: fetch, the queue consumers and the crons; the Durable Object classes are re-exported above. */
export default {
  fetch: app.fetch,
  queue,
  scheduled,
} satisfies ExportedHandler<Bindings>;
