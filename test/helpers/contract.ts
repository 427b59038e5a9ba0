import { z } from "zod";

/**
 * The OpenAPI contract check: every response a test receives through `request()`
 * (test/helpers/client.ts) is checked against the document the Worker serves (`GET /api/v4/openapi.json`).
 * The Worker names the route that answered in `X-Route` (ROUTE_HEADER=1, test/vitest.config.ts); the check
 * fails the test when
 * - that route is not in the document;
 * - the status is not documented, for a route whose responses are declared (an undescribed route documents
 *   its success as `2XX`);
 * - the JSON body does not match the documented schema (entities from functions/entities, GitLab's error bodies);
 * - a declared route answers with pagination headers that its document does not list.
 * So a declaration that is wrong (a field missing from an entity's schema, a status not listed) fails the
 * existing endpoint tests that reach it.
 */
type Json = Record<string, any>;
type Operation = { responses: Record<string, Json>; "x-hono-path": string };
type Index = { operations: Map<string, Operation>; document: Json };

/** The document by where it came from: the Worker's, or one a test planted. */
const loaded = new Map<string, Promise<Index>>();
const validators = new WeakMap<object, z.ZodType>();

function load(fetchDocument: () => Promise<Response>, key: string): Promise<Index> {
  let found = loaded.get(key);
  if (found) return found;
  found = (async () => {
    const res = await fetchDocument();
    if (res.status !== 200) throw new Error(`GET /api/v4/openapi.json answered ${res.status}`);
    const document = (await res.json()) as Json;
    const operations = new Map<string, Operation>();
    for (const methods of Object.values(document.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, operation] of Object.entries(methods)) operations.set(`${method.toUpperCase()} ${operation["x-hono-path"]}`, operation);
    }
    return { operations, document };
  })();
  loaded.set(key, found);
  return found;
}

/** `$ref`s to components, as a schema of its own with the components as `$defs`. */
const asDefs = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', '"#/$defs/'));

function validatorOf(schema: Json, document: Json): z.ZodType {
  let found = validators.get(schema);
  if (!found) {
    found = z.fromJSONSchema({ ...asDefs(schema), $defs: asDefs(document.components.schemas) });
    validators.set(schema, found);
  }
  return found;
}

function resolve(response: Json, document: Json): Json {
  const ref = response.$ref as string | undefined;
  return ref ? document.components.responses[ref.replace("#/components/responses/", "")] : response;
}

/** Throws when `res` contradicts the document (see above); the response itself is left unread. */
export async function checkContract(res: Response, fetchDocument: () => Promise<Response>, key = "worker"): Promise<void> {
  const route = res.headers.get("X-Route");
  if (!route) return;
  const [method, path] = [route.slice(0, route.indexOf(" ")), route.slice(route.indexOf(" ") + 1)];
  // Middleware paths (`/api/v4/*`) answer for no route: an unknown path's 404.
  if (path.endsWith("*") && !path.includes(":")) return;
  const { operations, document } = await load(fetchDocument, key);
  const operation = operations.get(`${method === "HEAD" ? "GET" : method} ${path}`);
  if (!operation) throw new Error(`OpenAPI contract: ${route} answered ${res.status} but is not in the document`);
  const { responses } = operation;
  const status = String(res.status);
  const described = !("2XX" in responses);
  const entry = responses[status] ?? responses[`${status[0]}XX`];
  if (!entry) {
    if (described) throw new Error(`OpenAPI contract: ${route} answered ${status}, which its document does not list (${Object.keys(responses).join(", ")})`);
    return;
  }
  const response = resolve(entry, document);
  if (described && res.status < 300 && res.headers.has("X-Page") && !response.headers?.["X-Page"]) {
    throw new Error(`OpenAPI contract: ${route} answered with pagination headers its document does not list`);
  }
  const schema = response.content?.["application/json"]?.schema as Json | undefined;
  if (!schema || method === "HEAD" || !(res.headers.get("Content-Type") ?? "").includes("json")) return;
  const text = await res.clone().text();
  if (text === "") return;
  const result = validatorOf(schema, document).safeParse(JSON.parse(text));
  if (!result.success) {
    const issues = result.error.issues.slice(0, 5).map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`);
    throw new Error(`OpenAPI contract: ${route} answered ${status} with a body its schema rejects:\n  ${issues.join("\n  ")}\n  body: ${text.slice(0, 500)}`);
  }
}
