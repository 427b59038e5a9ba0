// docs/api.md cannot drift from the router: its generated section is exactly what `npm run docs:api`
// writes from `app.routes` (functions/app.ts), and every `METHOD /path` written by hand in docs/api.md
// and README.md names a registered route.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { apiDoc, normalizePath, registeredRoutes, renderRoutes, unknownEndpoints, withSection, writtenEndpoints } from "../../scripts/docs-api.mjs";

const readme = fileURLToPath(new URL("../../README.md", import.meta.url));
const routes = await registeredRoutes();

test("the router registers the routes the API serves", () => {
  assert.ok(routes.length > 600, `only ${routes.length} routes`);
  assert.ok(routes.some((r) => r.method === "GET" && r.path === "/api/v4/projects/:id"));
});

test("docs/api.md's generated section lists exactly the registered routes (npm run docs:api)", () => {
  const text = readFileSync(apiDoc, "utf8");
  assert.equal(withSection(text, renderRoutes(routes)), text, "docs/api.md is stale: run `npm run docs:api`");
});

test("every endpoint written by hand in docs/api.md and README.md is a registered route", () => {
  for (const file of [apiDoc, readme]) {
    const text = readFileSync(file, "utf8");
    assert.deepEqual(unknownEndpoints(text, routes).map((e) => `${e.method} ${e.path}`), [], file);
  }
  assert.ok(writtenEndpoints(readFileSync(apiDoc, "utf8")).length > 100);
});

test("the checks fail on a route that is missing, and on one that does not exist", () => {
  const text = readFileSync(apiDoc, "utf8");
  const fewer = routes.filter((r) => !(r.method === "GET" && r.path === "/api/v4/version"));
  assert.notEqual(withSection(text, renderRoutes(fewer)), text);
  assert.deepEqual(unknownEndpoints("`GET /projects/:id/nothing_here` and `GET/PUT /version`", routes).map((e) => `${e.method} ${e.path}`), [
    "GET /projects/:id/nothing_here",
    "PUT /version",
  ]);
  assert.equal(normalizePath("/:repo{.+\\.git}/gitlab-lfs/objects/:oid{[0-9a-f]{64}}"), "/:/gitlab-lfs/objects/:");
});
