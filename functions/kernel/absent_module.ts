/**
 * Stands for the schema libraries hono-openapi's converters import on demand (`@valibot/to-json-schema`,
 * `effect`, `sury`, `zod-to-json-schema`; wrangler.toml `[alias]`): Edgeforge's schemas are zod 4's, which
 * kernel/openapi.ts converts itself, so these are never loaded. Importing one is a bug.
 */
throw new Error("kernel/absent_module.ts: a schema library hono-openapi asked for is not part of this Worker");
