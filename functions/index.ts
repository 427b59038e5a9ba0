import { app } from "./app";
import type { Bindings } from "./kernel/env";

/** The Worker entry: fetch now; queue, scheduled and the Durable Object classes land with their issues. */
export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Bindings>;
