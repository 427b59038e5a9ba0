// The OpenAPI document (GET /api/v4/openapi.json, functions/kernel/openapi.ts) cannot drift from the router:
// every route `app.routes` has is an operation of the document, with its domain's tag, its path parameters,
// security and GitLab's errors; the document passes an OpenAPI 3.1 validator; openapi-typescript generates
// types from it. The contract test (test/helpers/contract.ts) checks it against the responses of the
// endpoint tests.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import openapiTS, { astToString } from "openapi-typescript";
import { loadApp } from "../../scripts/docs-api.mjs";

const { app, openApiDocument, openApiPath, routesOf } = await loadApp();
const document = await openApiDocument(app);
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** What is wrong between the routes of `root` and `doc`: one line per problem. */
function problems(root, doc) {
  const out = [];
  const operationIds = new Set();
  for (const { method, path } of routesOf(root)) {
    const name = `${method} ${path}`;
    const operation = doc.paths[openApiPath(path)]?.[method.toLowerCase()];
    if (!operation) {
      out.push(`${name}: not in the document`);
      continue;
    }
    if (operation["x-hono-path"] !== path) out.push(`${name}: documented as ${operation["x-hono-path"]}`);
    if (operation.tags?.length !== 1) out.push(`${name}: no domain (mount it with domain() in functions/app.ts)`);
    if (operationIds.has(operation.operationId)) out.push(`${name}: operationId ${operation.operationId} twice`);
    operationIds.add(operation.operationId);
    if (!operation.security?.length) out.push(`${name}: no security`);
    const templated = [...openApiPath(path).matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    const declared = (operation.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name).sort();
    if (JSON.stringify(templated) !== JSON.stringify(declared)) out.push(`${name}: path parameters ${declared} for ${templated}`);
    for (const status of path.startsWith("/api/v4/") ? ["400", "401", "403", "404"] : ["401", "404"]) {
      if (!operation.responses?.[status]) out.push(`${name}: no ${status}`);
    }
    if (!Object.keys(operation.responses ?? {}).some((s) => s.startsWith("2"))) out.push(`${name}: no success response`);
  }
  return out;
}

test("every route the router has is in the document, with its domain, parameters, security and errors", () => {
  const routes = routesOf(app);
  assert.ok(routes.length > 650, `only ${routes.length} routes`);
  assert.deepEqual(problems(app, document), []);
  const count = Object.values(document.paths).reduce((n, methods) => n + Object.keys(methods).filter((m) => METHODS.includes(m.toUpperCase())).length, 0);
  assert.equal(count, routes.length, "the document has operations the router does not have");
});

/** Operations whose success response has a JSON body schema (an entity of functions/entities). */
function withResponseSchema(doc) {
  const out = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!METHODS.includes(method.toUpperCase())) continue;
      const success = Object.entries(operation.responses ?? {}).find(([status]) => /^2\d\d$/.test(status));
      if (success?.[1].content?.["application/json"]?.schema) out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out;
}

/** The routes that declare a response schema: it only grows as the entities are given schemas. */
const ROUTES_WITH_RESPONSE_SCHEMA = 616;

test("routes declare their response schemas", () => {
  const described = withResponseSchema(document);
  const total = routesOf(app).length;
  console.log(`routes with a response schema: ${described.length} of ${total}`);
  assert.ok(described.length >= ROUTES_WITH_RESPONSE_SCHEMA, `only ${described.length} routes with a response schema (was ${ROUTES_WITH_RESPONSE_SCHEMA})`);
  assert.ok(described.includes("GET /api/v4/version"));
  // Entities are components, nested ones by reference; a route presenting one of two entities says so.
  const json = (path, method, status) => document.paths[path][method].responses[status].content["application/json"].schema;
  assert.deepEqual(json("/api/v4/projects/{id}/issues", "get", "200"), { type: "array", items: { $ref: "#/components/schemas/Issue" } });
  assert.deepEqual(json("/api/v4/projects/{id}", "get", "200"), {
    anyOf: [{ $ref: "#/components/schemas/ProjectWithAccess" }, { $ref: "#/components/schemas/BasicProjectDetails" }],
  });
  assert.deepEqual(document.components.schemas.Issue.properties.author, { anyOf: [{ $ref: "#/components/schemas/UserBasic" }, { type: "null" }] });
  // A status below 400 besides the success one has no body (a star that changes nothing).
  assert.deepEqual(document.paths["/api/v4/projects/{id}/star"].post.responses["304"], { description: "Not Modified: nothing changed, no body" });
});

test("the route check fails on a route missing from the document and on a route without a domain", async () => {
  const stale = structuredClone(document);
  delete stale.paths["/api/v4/version"].get;
  assert.deepEqual(problems(app, stale), ["GET /api/v4/version: not in the document"]);
  // A route added outside `domain()` is documented (the document is generated) but has no tag.
  const { Hono } = await import("hono");
  const planted = new Hono();
  planted.route("/", app);
  planted.get("/api/v4/planted/:thing", (c) => c.text("x"));
  assert.deepEqual(problems(planted, await openApiDocument(planted)), ["GET /api/v4/planted/:thing: no domain (mount it with domain() in functions/app.ts)"]);
});

test("GitLab's deprecated aliases are marked deprecated, and list routes carry the pagination headers", () => {
  assert.equal(document.paths["/api/v4/projects/{id}/services"].get.deprecated, true);
  assert.equal(document.paths["/api/v4/projects/{id}/integrations"].get.deprecated, undefined);
  assert.equal(document.paths["/api/v4/projects/{id}/labels"].put.deprecated, true);
  const list = document.paths["/api/v4/projects/{id}/issues"].get.responses["200"];
  assert.deepEqual(Object.keys(list.headers), ["X-Page", "X-Per-Page", "X-Next-Page", "X-Prev-Page", "X-Total", "X-Total-Pages", "Link"]);
  assert.deepEqual(Object.keys(document.components.securitySchemes), ["PrivateToken", "PrivateTokenQuery", "OAuth2", "JobToken", "JobTokenQuery", "Basic"]);
});

test("the document is valid OpenAPI 3.1", async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document));
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
  assert.equal(validator.version, "3.1");
  // The validator does fail: a path parameter is always required.
  const broken = structuredClone(document);
  broken.paths["/api/v4/projects/{id}"].get.parameters[0].required = false;
  assert.equal((await new Validator().validate(broken)).valid, false);
});

test("openapi-typescript generates types from the document", async () => {
  const ast = await openapiTS(structuredClone(document));
  const types = astToString(ast);
  assert.match(types, /"\/api\/v4\/projects\/\{id\}\/issues": \{/);
  assert.match(types, /Version: \{\s+version: string;\s+revision: string;\s+\};/);
});

// Routes whose handler reads query or body parameters declare them (`params`), so that the document lists
// them: scripts/undeclared-params.mjs finds the ones that do not. test/node/undeclared-params.json lists
// those not converted yet; it only shrinks (an entry that now declares its params must leave it).
test("every route whose handler reads query or body parameters declares them, but those of the allow-list", async () => {
  const { readFileSync } = await import("node:fs");
  const { undeclaredParamRoutes } = await import("../../scripts/undeclared-params.mjs");
  const allowed = new Set(JSON.parse(readFileSync(new URL("./undeclared-params.json", import.meta.url), "utf8")));
  const undeclared = undeclaredParamRoutes(app, routesOf).map((r) => `${r.method} ${r.path}`);
  assert.deepEqual(undeclared.filter((r) => !allowed.has(r)), [], "these routes read parameters without declaring them (routes.get(path, { params: Schema }, handler))");
  assert.deepEqual([...allowed].filter((r) => !undeclared.includes(r)), [], "these routes declare their params now: remove them from test/node/undeclared-params.json");
  console.log(`undeclared params: ${allowed.size} routes allowed`);
});

test("the params check finds a planted route that reads parameters without declaring them", async () => {
  const { undeclaredParamRoutes } = await import("../../scripts/undeclared-params.mjs");
  const { Hono } = await import("hono");
  const planted = new Hono();
  planted.route("/", app);
  planted.get("/api/v4/planted", async (c) => c.json(await c.req.query("x")));
  const found = undeclaredParamRoutes(planted, routesOf).map((r) => `${r.method} ${r.path}`);
  assert.ok(found.includes("GET /api/v4/planted"), "the planted route is not found");
});

test("declared parameters carry GitLab's descriptions and kinds (notes)", () => {
  const create = document.paths["/api/v4/projects/{id}/issues/{noteable_id}/notes"].post;
  const body = create.requestBody.content["application/json"].schema;
  assert.deepEqual(body.required, ["body"]);
  assert.deepEqual(body.properties.body, { type: "string", description: "The content of a note" });
  assert.deepEqual(body.properties.internal, { type: "boolean", description: "Internal note flag, default is false" });
  assert.equal(create.parameters.find((p) => p.name === "noteable_id").description, "The ID of the noteable");
  const list = document.paths["/api/v4/projects/{id}/merge_requests/{noteable_id}/notes"].get.parameters;
  assert.deepEqual(list.find((p) => p.name === "order_by"), {
    in: "query",
    name: "order_by",
    required: false,
    schema: { enum: ["created_at", "updated_at"] },
    description: "Return notes ordered by `created_at` or `updated_at` fields.",
  });
  assert.deepEqual(list.find((p) => p.name === "per_page")?.in, "query");
});

/** Parameters (query, path and body fields) with a description: it only grows as GitLab's `desc:` texts are added. */
const PARAMS_WITH_DESCRIPTION = 718;

test("declared parameters of the most used domains carry GitLab's descriptions", () => {
  let described = 0;
  for (const methods of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!METHODS.includes(method.toUpperCase())) continue;
      const body = operation.requestBody?.content?.["multipart/form-data"]?.schema;
      const fields = [...(operation.parameters ?? []), ...Object.values(body?.properties ?? {})];
      described += fields.filter((field) => field.description).length;
    }
  }
  console.log(`parameters with a description: ${described}`);
  assert.ok(described >= PARAMS_WITH_DESCRIPTION, `only ${described} parameters with a description (was ${PARAMS_WITH_DESCRIPTION})`);
  const issues = document.paths["/api/v4/projects/{id}/issues"];
  assert.equal(issues.get.parameters.find((p) => p.name === "labels").description, "Comma-separated list of label names");
  assert.equal(issues.post.requestBody.content["application/json"].schema.properties.title.description, "The title of an issue");
  const mergeRequests = document.paths["/api/v4/projects/{id}/merge_requests"].get.parameters;
  assert.equal(mergeRequests.find((p) => p.name === "source_branch").description, "Return merge requests with the given source branch");
  const pipelines = document.paths["/api/v4/projects/{id}/pipelines"].get.parameters;
  assert.equal(pipelines.find((p) => p.name === "yaml_errors").description, "Returns pipelines with invalid configurations");
});

// Two entity schemas under one component name would share one entry of the document: the second's
// routes would be documented (and contract-checked) with the first's shape.
test("entity schemas have distinct component names", async () => {
  const { readdirSync, readFileSync } = await import("node:fs");
  const dir = new URL("../../functions/entities/", import.meta.url);
  const seen = new Map();
  const twice = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".ts"))) {
    for (const m of readFileSync(new URL(file, dir), "utf8").matchAll(/\.meta\(\{\s*id: "(\w+)"/g)) {
      if (seen.has(m[1])) twice.push(`${m[1]}: ${seen.get(m[1])} and ${file}`);
      else seen.set(m[1], file);
    }
  }
  assert.deepEqual(twice, []);
  assert.ok(seen.size > 100, `only ${seen.size} named entity schemas`);
});
