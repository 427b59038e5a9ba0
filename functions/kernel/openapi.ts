import type { Hono, MiddlewareHandler } from "hono";
import { describeRoute, generateSpecs } from "hono-openapi";
import { findTargetHandler } from "hono/utils/handler";
import * as z from "zod";
import { paramKind, type ParamKind } from "./params";

/**
 * The OpenAPI 3.1 document of the API (`GET /api/v4/openapi.json`), generated from the routes the app
 * registers, never written by hand. Every route registered through `router()` carries its declaration
 * (`RouteDoc`, optional) where it is registered; the composition (functions/app.ts) names each router's
 * domain with `domain()`. `openApiDocument(app)` walks `app.routes`, so a route is in the document the
 * moment it is routed: with its method, path and path parameters, its domain's tag, the security
 * schemes that reach it, GitLab's error bodies, and what its declaration adds (parameters, request
 * body, response schema, pagination headers, `deprecated`). hono-openapi (`describeRoute`,
 * `generateSpecs`) assembles the operations.
 *
 * The parameter schemas of a declaration are the very objects the handler passes to `readParams`, so
 * the document describes what is validated (kernel/params.ts `paramKind` says what each coerces to); it
 * never validates anything itself.
 */

/** A zod schema whose JSON Schema is a response body (an entity: functions/entities/*.ts). */
type Entity = z.ZodType;

export type RouteDoc = {
  summary?: string;
  description?: string;
  /**
   * The parameter schemas the handler reads (`readParams` / `readParamsWithPath`): keys that name a path
   * parameter describe it; the others are the query string on GET, HEAD and DELETE, and the body (JSON,
   * urlencoded or multipart, as Grape reads any of them) on writes.
   */
  params?: z.ZodType | z.ZodType[];
  /** The 2xx body: an entity schema, or `[entity]` for a list (then paginated unless `paginated: false`). */
  response?: Entity | readonly [Entity];
  /** The success status (default: 201 for POST, 204 for DELETE, 200 otherwise). */
  status?: number;
  /** Offset pagination headers (`X-Page`, `X-Total`, `Link`, …) on the success response. */
  paginated?: boolean;
  /** Statuses the route answers besides 2xx, 400, 401, 403, 404 (409, 422, …), with GitLab's `{"message"}` body (none below 400: 204, 304). */
  errors?: number[];
  /** A GitLab alias kept for compatibility (`/projects/:id/services`, the labels' 12.4 forms). */
  deprecated?: boolean;
};

type RouterOptions = { tokenInBody?: boolean };
type Declared = { doc: RouteDoc; opts: RouterOptions };

/** The per-route guard of each route `router()` registered → its declaration (kernel/router.ts). */
const declarations = new WeakMap<object, Declared>();
/** Route handlers → the domain (folder) whose router registered them (`domain()`). */
const domains = new WeakMap<object, string>();

/** Called by `router()` for every route it registers: `handler` is the route's own first handler. */
export function declareRoute(handler: MiddlewareHandler, doc: RouteDoc, opts: RouterOptions): void {
  declarations.set(handler, { doc, opts });
}

/** True for a route declaration passed where a handler could be (`routes.get(path, { … }, handler)`). */
export function isRouteDoc(value: unknown): value is RouteDoc {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Names the domain (the folder under functions/) of every route `app` has: the document's tag. The
 * composition wraps each router it mounts: `api.route("/", domain("issues", issuesRoutes))`. A handler
 * already named keeps its first domain (a router mounted inside another is named by the outer one first).
 */
export function domain<T extends Hono<any>>(name: string, app: T): T {
  for (const route of app.routes) {
    const handler = findTargetHandler(route.handler);
    if (route.method !== "ALL" && !domains.has(handler)) domains.set(handler, name);
  }
  return app;
}

/** Hono's path → OpenAPI's: `:id{[0-9]+}` is `{id}`, a trailing `*` the `{path}` it captures. */
export function openApiPath(honoPath: string): string {
  return honoPath
    .split("/")
    .map((segment) => (segment === "*" ? "{path}" : segment.startsWith(":") ? `{${/^:([^{?]+)/.exec(segment)![1]}}` : segment))
    .join("/");
}

/** The path parameters of a Hono path, with the pattern the router requires (`:id{[0-9]+}`). */
function pathParams(honoPath: string): { name: string; pattern?: string }[] {
  const out: { name: string; pattern?: string }[] = [];
  for (const segment of honoPath.split("/")) {
    if (segment === "*") out.push({ name: "path" });
    const m = /^:([^{?]+)(?:\{(.+)\})?$/.exec(segment);
    if (m) out.push({ name: m[1], pattern: m[2] && `^(?:${m[2]})$` });
  }
  return out;
}

type JsonSchema = Record<string, unknown>;

/** The JSON Schema of what a `p.*` parameter accepts (kernel/params.ts), as Grape's docs would say. */
export function kindSchema(kind: ParamKind): JsonSchema {
  switch (kind.kind) {
    case "string":
      return { type: "string" };
    case "int":
      return { type: "integer", minimum: -2147483648, maximum: 2147483647 };
    case "id":
      return { type: "integer" };
    case "intIn":
      return { type: "integer", minimum: kind.min, maximum: kind.max };
    case "bool":
      return { type: "boolean" };
    case "datetime":
      return { type: "string", format: "date-time" };
    case "date":
      return { type: "string", format: "date" };
    case "hash":
      return { type: "object" };
    case "file":
      return { type: "string", contentMediaType: "application/octet-stream" };
    case "oneOf":
      return { enum: kind.values };
    case "array":
      return { type: "array", items: kindSchema(kind.of), ...(kind.comma ? { description: "An array, or its values separated by commas" } : {}) };
    case "hashes":
      return { type: "array", items: { type: "object", properties: Object.fromEntries(Object.entries(kind.shape).map(([k, v]) => [k, kindSchema(v)])) } };
    default:
      return {};
  }
}

type Field = { name: string; schema: JsonSchema; required: boolean; nullable: boolean; description?: string };

/** The fields of a declared parameter schema (an object, possibly refined or piped). */
function fieldsOf(schema: z.ZodType): Field[] {
  let node: z.ZodType = schema;
  for (let i = 0; i < 4 && !(node instanceof z.ZodObject); i++) {
    const def = (node as unknown as { _zod: { def: { type: string; in?: z.ZodType; innerType?: z.ZodType } } })._zod.def;
    if (def.type === "pipe" && def.in) node = def.in;
    else if (def.innerType) node = def.innerType;
    else break;
  }
  if (!(node instanceof z.ZodObject)) return [];
  return Object.entries(node.shape as Record<string, z.ZodType>).map(([name, field]) => ({
    name,
    schema: kindSchema(paramKind(field)),
    // Required: what is missing answers `<name> is missing`; JSON null is a change only where accepted.
    required: !field.safeParse(undefined).success,
    nullable: acceptsNull(field),
    description: field.description,
  }));
}

/** `.nullable()` somewhere in the wrapping (JSON null is then a change, kernel/params.ts `withoutNulls`). */
function acceptsNull(schema: z.ZodType): boolean {
  let node = schema as unknown as { _zod: { def: { type: string; innerType?: unknown } } };
  for (let i = 0; i < 6; i++) {
    if (node._zod.def.type === "nullable") return true;
    if (!node._zod.def.innerType) return false;
    node = node._zod.def.innerType as typeof node;
  }
  return false;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** GitLab's error bodies (kernel/errors.ts): `{"message": …}` (a string, or the model's errors), or `{"error": …}`. */
const ERROR_SCHEMAS = {
  ErrorMessage: {
    type: "object",
    description: '`{"message": "404 Project Not Found"}`, a model\'s errors `{"message": {"name": ["has already been taken"]}}`, or a rate limit\'s `{"message": {"error": "…"}}`',
    required: ["message"],
    properties: { message: { anyOf: [{ type: "string" }, { type: "object" }, { type: "array" }] } },
  },
  Error: {
    type: "object",
    description: 'Grape\'s parameter errors `{"error": "title is missing"}`, OAuth\'s `{"error": "insufficient_scope", …}`, an unknown route\'s `{"error": "404 Not Found"}`',
    required: ["error"],
    properties: { error: { type: "string" }, error_description: { type: "string" }, scope: { type: "string" } },
  },
  /** `render_api_error!(messages, 403)` with a bare list, as `POST /projects` over the personal project limit. */
  MessageList: { type: "array", items: { type: "string" } },
  GitLabError: { anyOf: [ref("ErrorMessage"), ref("Error"), ref("MessageList")] },
} as const;

const jsonError = (description: string) => ({
  description,
  content: { "application/json": { schema: ref("GitLabError") } },
});

/** The responses every route under /api/v4 may give (docs/compat.md: errors), as `components.responses`. */
const API_ERROR_RESPONSES: Record<string, unknown> = {
  BadRequest: {
    description: 'Bad request: Grape\'s `{"error": "<param> is missing"}`, `{"message": "400 Bad request - …"}`, a model\'s `{"message": {…}}`; a malformed string (NUL, bad escape) is `text/plain` "Bad Request"',
    content: { "application/json": { schema: ref("GitLabError") }, "text/plain": { schema: { type: "string", const: "Bad Request" } } },
  },
  Unauthorized: jsonError('`{"message": "401 Unauthorized"}`, or an expired or revoked token\'s `{"error": "invalid_token", …}`'),
  Forbidden: jsonError('`{"message": "403 Forbidden"}`, or a token without the scope: `{"error": "insufficient_scope", …}`'),
  NotFound: jsonError('`{"message": "404 <Resource> Not Found"}`: missing, or not readable by the caller'),
  TooManyRequests: jsonError('`{"message": "429 Too Many Requests"}` with `Retry-After` (application settings `throttle_*`)'),
  ServiceUnavailable: jsonError('`{"message": "503 Service Unavailable"}`: the database could not be reached'),
};
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });
const API_ERRORS: Record<string, unknown> = {
  "400": responseRef("BadRequest"),
  "401": responseRef("Unauthorized"),
  "403": responseRef("Forbidden"),
  "404": responseRef("NotFound"),
  "429": responseRef("TooManyRequests"),
  "503": responseRef("ServiceUnavailable"),
};

/** Outside /api/v4 (git, LFS, uploads, badges, the alert receiver): plain text or JSON, as each protocol answers. */
const OTHER_ERRORS: Record<string, unknown> = {
  "400": { description: "Bad request" },
  "401": { description: 'Unauthorized (git and LFS challenge with `WWW-Authenticate: Basic realm="GitLab"`)' },
  "403": { description: "Forbidden" },
  "404": { description: "Not found, or not readable by the caller" },
};

const PAGINATION_HEADERS = {
  "X-Page": { description: "The page of this response", schema: { type: "integer" } },
  "X-Per-Page": { description: "Items per page", schema: { type: "integer" } },
  "X-Next-Page": { description: "The next page, empty on the last", schema: { type: "string" } },
  "X-Prev-Page": { description: "The previous page, empty on the first", schema: { type: "string" } },
  "X-Total": { description: "The number of items; omitted above 10,000", schema: { type: "integer" } },
  "X-Total-Pages": { description: "The number of pages; omitted above 10,000 items", schema: { type: "integer" } },
  Link: { description: 'RFC 8288 links: `rel="prev"`, `"next"`, `"first"`, `"last"`', schema: { type: "string" } },
};

const SECURITY_SCHEMES = {
  PrivateToken: { type: "apiKey", in: "header", name: "PRIVATE-TOKEN", description: "A personal, impersonation or project access token" },
  PrivateTokenQuery: { type: "apiKey", in: "query", name: "private_token", description: "The same token as a query parameter" },
  OAuth2: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <token>`: the same tokens, as OAuth clients send them" },
  JobToken: { type: "apiKey", in: "header", name: "JOB-TOKEN", description: "A running CI job's token (package registries)" },
  JobTokenQuery: { type: "apiKey", in: "query", name: "job_token", description: "A running CI job's token as a query parameter" },
  Basic: {
    type: "http",
    scheme: "basic",
    description: "Git over HTTP and Git LFS: any user name with a personal access token as password, or `gitlab-ci-token` with a CI job token",
  },
};

/** `Gitlab::Auth` forms a route accepts (kernel/auth.ts; shared/git_http/access.ts). */
function securityOf(path: string, opts: RouterOptions | null, method: string): Record<string, string[]>[] {
  const anonymous = method === "GET" || method === "HEAD" || opts?.tokenInBody ? [{}] : [];
  if (!path.startsWith("/api/v4/")) {
    if (/\.git\//.test(path) || path.includes("{repo}")) return [{ Basic: [] }, {}];
    return [{ PrivateToken: [] }, { PrivateTokenQuery: [] }, {}];
  }
  const tokens: Record<string, string[]>[] = [{ PrivateToken: [] }, { PrivateTokenQuery: [] }, { OAuth2: [] }];
  // kernel/auth.ts JOB_TOKEN_ROUTES: the generic and npm package registries take a job token too.
  if (/^\/api\/v4\/projects\/\{id\}\/packages\/(generic|npm)\//.test(path)) tokens.push({ JobToken: [] }, { JobTokenQuery: [] }, { Basic: [] });
  return [...tokens, ...anonymous];
}

/** Zod entity schemas → JSON Schema, their named parts (`.meta({ id })`) as components. */
function entitySchema(schema: Entity, components: Record<string, unknown>): JsonSchema {
  // Named parts (`.meta({ id })`) come out as `$defs`, which become components.
  const raw = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output", unrepresentable: "any", reused: "inline" });
  const json = JSON.parse(JSON.stringify(raw).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  for (const [name, def] of Object.entries(json.$defs ?? {})) components[name] = def;
  delete json.$defs;
  delete json.$schema;
  // A named root comes out as a `$ref` to its own `$defs` entry, now a component.
  const id = (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;
  if (id && !(id in components)) {
    delete json.id;
    components[id] = json;
  }
  return id ? ref(id) : json;
}

const pascal = (text: string) =>
  text
    .split(/[\W_]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join("");

/** `getApiV4ProjectsByIdIssues`, as hono-openapi names operations, but `/-/` kept (`…ByIdDashEpics`), so ids stay unique. */
function operationId(method: string, path: string): string {
  const segments = path.split("/").filter(Boolean);
  return method.toLowerCase() + segments.map((s) => (s === "-" ? "Dash" : s.startsWith("{") ? `By${pascal(s)}` : pascal(s))).join("");
}

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH"]);

function operationOf(method: string, honoPath: string, declared: Declared | null, tag: string | undefined, components: Record<string, unknown>) {
  const doc = declared?.doc ?? {};
  const path = openApiPath(honoPath);
  const inBody = WRITE_METHODS.has(method);
  const params = doc.params === undefined ? [] : Array.isArray(doc.params) ? doc.params : [doc.params];
  const fields = new Map<string, Field>();
  for (const schema of params) for (const field of fieldsOf(schema)) if (!fields.has(field.name)) fields.set(field.name, field);

  const parameters: unknown[] = [];
  for (const { name, pattern } of pathParams(honoPath)) {
    const declaredField = fields.get(name);
    fields.delete(name);
    const schema = { type: "string", ...(pattern ? { pattern } : {}) };
    parameters.push({ in: "path", name, required: true, schema, ...(declaredField?.description ? { description: declaredField.description } : {}) });
  }
  let requestBody: unknown;
  if (inBody && fields.size > 0) {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    let file = false;
    for (const field of fields.values()) {
      properties[field.name] = field.nullable ? { anyOf: [field.schema, { type: "null" }] } : field.schema;
      if (field.description) (properties[field.name] as JsonSchema).description = field.description;
      if (field.required) required.push(field.name);
      if ((field.schema as { contentMediaType?: string }).contentMediaType) file = true;
    }
    const schema = { type: "object", properties, ...(required.length ? { required } : {}) };
    // Grape reads any of them (kernel/params.ts); the query string also works and is not repeated here.
    requestBody = {
      required: required.length > 0,
      content: {
        ...(file ? {} : { "application/json": { schema } }),
        "application/x-www-form-urlencoded": { schema },
        "multipart/form-data": { schema },
      },
    };
  } else {
    for (const field of fields.values()) {
      parameters.push({ in: "query", name: field.name, required: field.required, schema: field.schema, ...(field.description ? { description: field.description } : {}) });
    }
  }

  const status = String(doc.status ?? (method === "POST" ? 201 : method === "DELETE" ? 204 : 200));
  const list = Array.isArray(doc.response);
  const entity = doc.response === undefined ? undefined : list ? (doc.response as readonly [Entity])[0] : (doc.response as Entity);
  const paginated = doc.paginated ?? list;
  const responses: Record<string, unknown> = {};
  if (declared && (doc.response || doc.status || doc.paginated)) {
    const schema = entity ? entitySchema(entity, components) : undefined;
    responses[status] = {
      description: "Success",
      ...(paginated ? { headers: Object.fromEntries(Object.keys(PAGINATION_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }])) } : {}),
      ...(schema ? { content: { "application/json": { schema: list ? { type: "array", items: schema } : schema } } } : {}),
    };
  } else {
    // Not described yet: success is documented as a range, its body unspecified.
    responses["2XX"] = { description: "Success (the body is not described yet)" };
  }
  const api = honoPath.startsWith("/api/v4/");
  Object.assign(responses, api ? API_ERRORS : OTHER_ERRORS);
  // A list paged by offset past 50,000 rows answers 405 and asks for keyset pagination (docs/compat.md).
  if (api && paginated) responses["405"] = jsonError('`{"message": "405 Method Not Allowed"}` or the offset limit\'s `{"error": …}`: offset pagination past 50,000 rows');
  for (const code of doc.errors ?? []) {
    // Below 400, a status without a body: Grape's `not_modified!` (304), a HEAD request's 204.
    responses[String(code)] = code < 400 ? { description: code === 304 ? "Not Modified: nothing changed, no body" : "No body" } : jsonError(`\`{"message": "${code} …"}\``);
  }

  return {
    operationId: operationId(method, path),
    ...(tag ? { tags: [tag] } : {}),
    ...(doc.summary ? { summary: doc.summary } : {}),
    ...(doc.description ? { description: doc.description } : {}),
    ...(doc.deprecated ? { deprecated: true } : {}),
    security: securityOf(path, declared?.opts ?? null, method),
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses,
    // Where the route is declared, for readers and for the test that walks the router.
    "x-hono-path": honoPath,
  };
}

/** One route of the app: its method, Hono path, declaration and domain. */
export type RouteInfo = { method: string; path: string; declared: boolean; domain: string | undefined };

/** The routes of `app` (middleware left out), each once, in registration order. */
export function routesOf(app: Hono<any>): (RouteInfo & { doc: Declared | null })[] {
  const byKey = new Map<string, RouteInfo & { doc: Declared | null }>();
  for (const route of app.routes) {
    if (route.method === "ALL") continue;
    const key = `${route.method} ${route.path}`;
    let info = byKey.get(key);
    if (!info) byKey.set(key, (info = { method: route.method, path: route.path, declared: false, domain: undefined, doc: null }));
    // A sub-app with its own error handler wraps its handlers when mounted (Hono's COMPOSED_HANDLER).
    const handler = findTargetHandler(route.handler);
    const found = declarations.get(handler);
    if (found && !info.doc) {
      info.doc = found;
      info.declared = true;
    }
    info.domain ??= domains.get(handler);
  }
  return [...byKey.values()];
}

export const OPENAPI_INFO = {
  title: "Edgeforge REST API v4",
  version: "15.4.0-ee",
  description:
    "GitLab's REST API v4 as GitLab 15.4 (Enterprise) answers it: paths, parameters, status codes, error bodies and pagination headers. " +
    "Generated from the routes the Worker registers. Parameters are read as Grape reads them: from the query string, and on writes from a JSON, urlencoded or multipart body.",
};

/** The document of every route `app` has (`GET /api/v4/openapi.json`; built once per isolate by its caller). */
export async function openApiDocument(app: Hono<any>): Promise<Record<string, unknown>> {
  const components: Record<string, unknown> = { ...ERROR_SCHEMAS };
  const routes = routesOf(app).map((route) => ({
    method: route.method,
    path: openApiPath(route.path),
    handler: describeRoute(operationOf(route.method, route.path, route.doc, route.domain, components) as never),
  }));
  const tags = [...new Set(routesOf(app).map((r) => r.domain).filter((d): d is string => !!d))].sort().map((name) => ({ name }));
  const spec = await generateSpecs({ routes } as unknown as Hono, {
    documentation: {
      info: OPENAPI_INFO,
      tags,
      components: { securitySchemes: SECURITY_SCHEMES as never },
    },
    excludeStaticFile: false,
    excludeMethods: [],
  });
  return { ...spec, components: { schemas: components, responses: API_ERROR_RESPONSES, headers: PAGINATION_HEADERS, securitySchemes: SECURITY_SCHEMES } };
}
