#!/usr/bin/env node
// `node scripts/undeclared-params.mjs`: the routes whose handler reads query or body parameters
// (`readParams`, `readParamsWithPath`, `validateParams`, `rawParams`, `sent`, `c.req.query()`, …) but whose
// registration declares no `params` (kernel/openapi.ts `RouteDoc`), so that the OpenAPI document lacks
// their parameters. One line per route, by domain; `--count` prints the counts only.
// test/node/openapi.test.mjs runs the same check against its allow-list (test/node/undeclared-params.json).
//
// A handler is read as the router holds it (its source text in the Node bundle of functions/app.ts,
// scripts/docs-api.mjs `loadApp`), with the functions it calls with the context (`helper(c, …)`) one
// level down, found by name among the top-level functions of functions/: those of the route's own domain
// folder when it defines that name, else every definition (a name defined twice counts if either reads). Each route declares the schema object its handler passes to the reader, never a copy.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** What reading the query string or the body looks like in a handler's source. */
export const READS_PARAMS = /\b(?:readParams|readParamsWithPath|validateParams|rawParams|readBody|sent)\d*\(|\.req\.(?:query|queries|json|parseBody|formData)\(/;

/** Hono wraps the handlers of a sub-app with its own error handler (hono/utils/handler `findTargetHandler`). */
const target = (handler) => (handler && handler.__COMPOSED_HANDLER ? target(handler.__COMPOSED_HANDLER) : handler);

/** Top-level function name → its definitions under functions/: `{ dir, body }`, `dir` the folder under functions/. */
function helperBodies() {
  const bodies = new Map();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith(".ts")) {
        const text = readFileSync(file, "utf8");
        // A top-level definition runs over the indented (or blank) lines that follow it, and the line that
        // closes it at column 0 if any: an arrow function's expression body ends before the next statement.
        for (const m of text.matchAll(/^(?:export )?(?:async )?(?:function\*? (\w+)|const (\w+) = (?:async )?\().*(?:\n(?:[ \t].*)?)*(?:\n\}.*)?/gm)) {
          const name = m[1] ?? m[2];
          const dir = path.relative(path.join(root, "functions"), file).split(path.sep)[0];
          bodies.set(name, [...(bodies.get(name) ?? []), { dir, body: m[0] }]);
        }
      }
    }
  };
  walk(path.join(root, "functions"));
  return bodies;
}

/**
 * `source` without what reads no query or body parameter: a validation of path parameters alone
 * (`validateParams({ merge_request_iid: c.req.param(…) }, …)`), and a bare `await rawParams(c);`, which
 * only rejects a malformed body.
 */
const withoutPathOnlyReads = (source) => source.replace(/validateParams\(\s*\{[^{}]*\}/g, "").replace(/await rawParams\(c\d*\);/g, "");

/**
 * The body of the helper `name` as `domain`'s routes call it: the domain folder's own definition when it has
 * one (the bundle keeps a module's local helper beside another module's of the same name), else all of them.
 */
function helperBody(bodies, name, domain) {
  const all = bodies.get(name) ?? [];
  const own = all.filter((def) => def.dir === domain);
  return (own.length ? own : all).map((def) => def.body).join("\n");
}

/** True when `source`, or a function it calls with the context `c` first, reads parameters. */
function readsParams(text, bodies, domain) {
  const source = withoutPathOnlyReads(text);
  if (READS_PARAMS.test(source)) return true;
  // The bundle renames the context (`c3`) and clashing names (`loadPipeline2`).
  for (const m of source.matchAll(/\b(\w+)\(c\d*\b/g)) {
    if ([m[1], m[1].replace(/\d+$/, "")].some((name) => READS_PARAMS.test(withoutPathOnlyReads(helperBody(bodies, name, domain))))) return true;
  }
  return false;
}

/**
 * `{ method, path, domain }` of every route of `app` whose handlers read parameters while its declaration
 * has no `params`. `routesOf` is kernel/openapi.ts's, from the same bundle as `app`.
 */
export function undeclaredParamRoutes(app, routesOf) {
  const sources = new Map();
  for (const route of app.routes) {
    if (route.method === "ALL") continue;
    const key = `${route.method} ${route.path}`;
    sources.set(key, `${sources.get(key) ?? ""}\n${String(target(route.handler))}`);
  }
  const bodies = helperBodies();
  return routesOf(app)
    .filter((route) => route.doc?.doc.params === undefined && readsParams(sources.get(`${route.method} ${route.path}`) ?? "", bodies, route.domain))
    .map(({ method, path: routePath, domain }) => ({ method, path: routePath, domain }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { loadApp } = await import("./docs-api.mjs");
  const { app, routesOf } = await loadApp();
  const routes = undeclaredParamRoutes(app, routesOf);
  const byDomain = new Map();
  for (const route of routes) byDomain.set(route.domain ?? "(none)", [...(byDomain.get(route.domain ?? "(none)") ?? []), route]);
  const sorted = [...byDomain.entries()].sort((a, b) => b[1].length - a[1].length);
  for (const [domain, list] of sorted) {
    console.log(`${domain}: ${list.length}`);
    if (!process.argv.includes("--count")) for (const r of list) console.log(`  ${r.method} ${r.path}`);
  }
  const declared = routesOf(app).filter((r) => r.doc?.doc.params !== undefined).length;
  console.log(`${routes.length} routes read parameters without declaring them; ${declared} of ${routesOf(app).length} routes declare params`);
}
