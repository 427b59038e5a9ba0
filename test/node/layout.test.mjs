// The import rules of docs/architecture.md ("Import rules"), checked on the source files:
// - route files (`routes.ts`, `routes/*.ts`) import neither `drizzle-orm` nor `db/schema`: SQL lives in
//   queries.ts / services.ts;
// - `functions/kernel/` imports only itself, `db/` and packages: never `shared/` or a domain (types
//   aside: `env.ts` names the webhook queue's message type);
// - `functions/shared/` imports the kernel, itself, `db/` and packages; a domain only for types
//   (`import type`, as the CI facade names the pipeline engine's types) or its `entities.ts`.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const functions = path.join(root, "functions");

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

/** Every import of a file: `{ spec, typeOnly, target }` (target: the resolved path of a relative spec). */
function importsOf(file) {
  const text = readFileSync(file, "utf8");
  const out = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gms)) {
    const spec = m[3];
    out.push({ spec, typeOnly: Boolean(m[2]), target: spec.startsWith(".") ? path.resolve(path.dirname(file), spec) : null });
  }
  return out;
}

const rel = (p) => path.relative(root, p);
const inside = (p, dir) => p === dir || p.startsWith(dir + path.sep);
const files = walk(functions);

test("route files import neither drizzle-orm nor db/schema", () => {
  const routeFiles = files.filter((f) => path.basename(f) === "routes.ts" || path.basename(path.dirname(f)) === "routes");
  assert.ok(routeFiles.length > 20);
  const offenders = routeFiles.flatMap((f) =>
    importsOf(f)
      .filter((i) => i.spec === "drizzle-orm" || i.spec.startsWith("drizzle-orm/") || (i.target && inside(i.target, path.join(root, "db/schema"))))
      .map((i) => `${rel(f)} imports ${i.spec}`),
  );
  assert.deepEqual(offenders, []);
});

test("the kernel imports only itself, db/ and packages", () => {
  const kernel = path.join(functions, "kernel");
  const offenders = files
    .filter((f) => inside(f, kernel))
    .flatMap((f) =>
      importsOf(f)
        .filter((i) => i.target && !i.typeOnly && !inside(i.target, kernel) && !inside(i.target, path.join(root, "db")))
        .map((i) => `${rel(f)} imports ${i.spec}`),
    );
  assert.deepEqual(offenders, []);
});

test("shared/ imports a domain only for its types or its entities", () => {
  const shared = path.join(functions, "shared");
  const allowed = [shared, path.join(functions, "kernel"), path.join(root, "db")];
  const offenders = files
    .filter((f) => inside(f, shared))
    .flatMap((f) =>
      importsOf(f)
        .filter((i) => i.target && !i.typeOnly && path.basename(i.target) !== "entities" && !allowed.some((dir) => inside(i.target, dir)))
        .map((i) => `${rel(f)} imports ${i.spec}`),
    );
  assert.deepEqual(offenders, []);
});

/**
 * A domain's files call their own queries and services: never another domain's `routes`, `queries` or
 * `services` (shared code lives in `shared/` or the kernel). The known exceptions below predate the
 * rule; each names why it stays until it moves, and none may be added.
 */
const CROSS_DOMAIN_EXCEPTIONS = [
  // Incidents are issues: an alert opens and closes its incident with issues' write statement.
  "functions/alert_management/services.ts imports ../issues/queries",
  // Schedules and triggers create pipelines through the engine's one entry point.
  "functions/pipeline_schedules/services.ts imports ../pipelines/services",
  "functions/pipeline_triggers/routes.ts imports ../pipelines/services",
  "functions/pipeline_triggers/services.ts imports ../pipelines/services",
  // The import creates its project as POST /projects does.
  "functions/project_import/services.ts imports ../projects/services",
];

test("a domain imports no other domain's routes, queries or services", () => {
  const domainOf = (p) => {
    const parts = path.relative(functions, p).split(path.sep);
    return parts.length > 1 && !["kernel", "shared"].includes(parts[0]) ? parts[0] : null;
  };
  const offenders = files.flatMap((f) => {
    const own = domainOf(f);
    if (!own) return [];
    return importsOf(f)
      .filter((i) => {
        if (!i.target || i.typeOnly) return false;
        const other = domainOf(i.target);
        if (!other || other === own) return false;
        const inner = path.relative(path.join(functions, other), i.target).split(path.sep);
        return ["routes", "queries", "services"].includes(inner[0]);
      })
      .map((i) => `${rel(f)} imports ${i.spec}`);
  });
  assert.deepEqual(offenders.filter((o) => !CROSS_DOMAIN_EXCEPTIONS.includes(o)), []);
  assert.deepEqual(CROSS_DOMAIN_EXCEPTIONS.filter((e) => !offenders.includes(e)), [], "an exception that no longer occurs is removed from the list");
});
