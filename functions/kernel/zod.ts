// The `zod` module of the deployed bundle (wrangler.toml `[alias]`): zod's entry without its locales.
// See zod_external.ts for why.
import * as z from "./zod_external";
export * from "./zod_external";
export { z, z as default };
