import { app } from "./app";
import type { Bindings } from "./kernel/env";
import { scheduled } from "./scheduled";

export { PipelineCoordinator } from "./pipelines/coordinator";

/** The Worker entry: fetch and the crons; the Durable Object classes are re-exported above. */
export default {
  fetch: app.fetch,
  scheduled,
} satisfies ExportedHandler<Bindings>;
