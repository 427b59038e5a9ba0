// zod's classic API, as `zod`'s own entry exports it, less `z.locales` (wrangler.toml aliases `zod` here
// for the deployed bundle). zod exports its namespace `z` as a value, so a bundler keeps every property of
// it, and `locales` holds 60-odd translations of its messages (263 KiB of the minified bundle) that
// nothing here reads: English stays the default (classic/schemas.js registers it). Tests, tsc and Node
// tooling import the real package; this module mirrors zod 4.6's `v4/classic/external.js` line for line.
export * as core from "./zod_core";
export * from "../../node_modules/zod/v4/classic/schemas.js";
export * from "../../node_modules/zod/v4/classic/checks.js";
export * from "../../node_modules/zod/v4/classic/errors.js";
export * from "../../node_modules/zod/v4/classic/parse.js";
export * from "../../node_modules/zod/v4/classic/compat.js";
export {
  globalRegistry, registry, config, memoizer, $output, $input, $brand, clone, regexes, treeifyError, prettifyError, formatError, flattenError,
  TimePrecision, util, NEVER, INVALID, toZod, compile, withParser, ZodCompileAsyncError, ZodCompileUnsupportedError, getDiscriminatedOption,
} from "./zod_core";
export { toJSONSchema } from "../../node_modules/zod/v4/core/json-schema-processors.js";
export { fromJSONSchema } from "../../node_modules/zod/v4/classic/from-json-schema.js";
export { deepPartial } from "../../node_modules/zod/v4/classic/deep-partial.js";
export { input, output } from "../../node_modules/zod/v4/classic/in-out.js";
export { ZodISODateTime, ZodISODate, ZodISOTime, ZodISODuration } from "../../node_modules/zod/v4/classic/iso.js";
export * as iso from "../../node_modules/zod/v4/classic/iso.js";
export * as coerce from "../../node_modules/zod/v4/classic/coerce.js";
