import type { ErrorHandler, NotFoundHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv, ErrorFormat } from "./env";

/**
 * An error that renders GitLab's exact status and body (docs/compat.md, "Error bodies"). Routes never write these
 * strings themselves: they throw one of the constructors below.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === "object" ? JSON.stringify(body) : String(body));
  }
}

const message = (status: number, text: unknown, headers?: Record<string, string>) =>
  new ApiError(status, { message: text }, headers);

/** `not_found!(resource)`: `404 Project Not Found`; without a name `404 Not Found`. */
export const notFound = (resource?: string) => message(404, resource ? `404 ${resource} Not Found` : "404 Not Found");
/** ActiveRecord::RecordNotFound: lower-case "found". */
export const recordNotFound = () => message(404, "404 Not found");
export const unauthorized = () => message(401, "401 Unauthorized");
/** The same 401 with the Basic challenge package managers answer with their credentials (pip, twine). */
export const unauthorizedBasic = () => message(401, "401 Unauthorized", { "WWW-Authenticate": 'Basic realm="GitLab Packages Registry"' });
export const forbidden = (reason?: string) => message(403, reason ? `403 Forbidden - ${reason}` : "403 Forbidden");
export const badRequest = (reason?: string) => message(400, reason ? `400 Bad request - ${reason}` : "400 Bad request");
/** `bad_request_missing_attribute!`: `400 Bad request - "attr" not given`. */
export const missingAttribute = (attr: string) => badRequest(`"${attr}" not given`);
/** Grape parameter validation: `{"error":"title is missing, …"}`. */
export const paramsError = (text: string) => new ApiError(400, { error: text });
/** `render_validation_error!`: `{"message":{"attr":["msg"]}}`. */
export const validation = (errors: Record<string, string[]>) => message(400, errors);
/** `render_api_error!(text, status)`. */
export const apiError = (text: unknown, status: number) => message(status, text);
export const conflict = (text = "409 Conflict") => message(409, text);
export const unprocessable = (text = "422 Unprocessable Entity") => message(422, text);
export const tooLarge = () => message(413, "413 Request Entity Too Large");
export const tooManyRequests = (retryAfterSeconds: number, text: unknown = "429 Too Many Requests") =>
  message(429, text, { "Retry-After": String(retryAfterSeconds) });
export const accepted = () => message(202, "202 Accepted");
/**
 * Gitlab::Middleware::HandleMalformedStrings: a NUL byte or undecodable escape anywhere in the request
 * answers `400` with `Content-Type: text/plain` and the body `Bad Request` (not JSON, as GitLab does).
 */
export const malformedRequest = () => new ApiError(400, "Bad Request", { "Content-Type": "text/plain" });
export const preconditionFailed = () => message(412, "412 Precondition Failed");

/**
 * `check_unmodified_since!` of `destroy_conditionally!` (lib/api/helpers.rb): an `If-Unmodified-Since`
 * older than the record's last change answers 412; an unparsable header is ignored.
 */
export function checkUnmodifiedSince(header: string | undefined, lastModified: Date | string | null): void {
  if (!header || !lastModified) return;
  const since = Date.parse(header);
  if (Number.isNaN(since)) return;
  if (new Date(lastModified).getTime() > since) throw preconditionFailed();
}
export const methodNotAllowed = (text: string) => new ApiError(405, { error: text });

export const insufficientScope = (scope: string) =>
  new ApiError(403, {
    error: "insufficient_scope",
    error_description: "The request requires higher privileges than provided by the access token.",
    scope,
  });
export const expiredToken = () =>
  new ApiError(401, {
    error: "invalid_token",
    error_description: "Token is expired. You can either do re-authorization or token refresh.",
  });
export const revokedToken = () =>
  new ApiError(401, {
    error: "invalid_token",
    error_description: "Token was revoked. You have to re-authorize from the user.",
  });

/** The body of `{"message":"202 Accepted"}` for handlers that succeed with it (DELETE /projects/:id). */
export const acceptedBody = { message: "202 Accepted" } as const;

export const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (err instanceof ApiError) {
    // A 4xx is the caller's mistake: never logged, never carrying SQL.
    if (typeof err.body === "string") return c.body(err.body, err.status as ContentfulStatusCode, err.headers);
    for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
    return c.json(formatBody(err.body, c.var.errorFormat) as object, err.status as ContentfulStatusCode);
  }
  const gone = parentGone(err);
  if (gone) return c.json({ message: gone.body }, 404);
  console.error(describeFailure(c.var.requestId, c.req.method, c.req.routePath, err));
  return c.json({ message: "500 Internal Server Error" }, 500);
};

/**
 * The body of an error under a route's `errorFormat` (kernel/router.ts). GitLab's default formatter
 * writes a string error as `{"error": "…"}` (Grape's parameter validation, `error!("…")`: here the
 * bodies of `paramsError`, `methodNotAllowed`, …), and `message` writes it `{"message": "…"}`;
 * a body with other keys, or a `message` already (`render_api_error!`), is an object in Grape too and
 * stays as it is.
 */
export function formatBody(body: unknown, format: ErrorFormat | undefined): unknown {
  if (format !== "message" || !body || typeof body !== "object") return body;
  const keys = Object.keys(body);
  const text = (body as { error?: unknown }).error;
  return keys.length === 1 && typeof text === "string" ? { message: text } : body;
}

/**
 * A foreign-key violation (23503) on INSERT or UPDATE means the row referenced was deleted between the
 * route's lookup and its write (a project deleted while a snippet or trigger is created): the parent is
 * gone, so the answer is the 404 its lookup would now give (`404 Project Not Found`), never a 500.
 * Postgres names the referenced table in `detail` (`Key (project_id)=(7) is not present in table
 * "projects".`); a table this does not name answers `404 Not Found`. A violation raised by a DELETE
 * (`update or delete on table … violates …`) is a bug, not a race, and stays a 500.
 */
export function parentGone(err: unknown): { table: string | null; body: string } | null {
  const db = databaseError(err);
  if (!db || db.code !== "23503" || !/^insert or update on table/.test(db.message)) return null;
  const table = /is not present in table "([^"]+)"/.exec(db.detail ?? "")?.[1] ?? null;
  const resource = table ? FK_RESOURCES[table] : undefined;
  return { table, body: resource ? `404 ${resource} Not Found` : "404 Not Found" };
}

/** Referenced tables and the resource name of GitLab's `not_found!` for them. */
const FK_RESOURCES: Record<string, string> = {
  projects: "Project",
  namespaces: "Namespace",
  users: "User",
  issues: "Issue",
  merge_requests: "Merge Request",
  snippets: "Snippet",
  labels: "Label",
  milestones: "Milestone",
  epics: "Epic",
  notes: "Note",
};

/**
 * One log line for a 5xx: request id, method and route pattern (`/api/v4/projects/:id/issues`, not
 * the path with its values), and for a database error its SQLSTATE code and message, never the SQL
 * text or its parameters (Drizzle's `Failed query: … params: …` carries tokens' digests and user
 * content). Quoted values inside Postgres' own message are masked too.
 */
export function describeFailure(requestId: string | undefined, method: string, route: string, err: unknown): string {
  const head = `[${requestId ?? "-"}] ${method} ${route}`;
  const db = databaseError(err);
  if (db) {
    const parts = [`SQLSTATE ${db.code}`, maskValues(db.message)];
    for (const key of ["table", "column", "constraint"] as const) if (db[key]) parts.push(`${key}=${db[key]}`);
    return `${head}: database error ${parts.join(" ")}`;
  }
  const e = err instanceof Error ? err : new Error(String(err));
  const frames = (e.stack ?? "").split("\n").filter((line) => line.trimStart().startsWith("at ")).slice(0, 8);
  // What the error wraps (Drizzle's `cause`: a dropped connection, a driver error), masked alike.
  const causes: string[] = [];
  for (let inner = (e as { cause?: unknown }).cause, depth = 0; inner && typeof inner === "object" && depth < 4; depth++) {
    const { name, message, type } = inner as { name?: unknown; message?: unknown; type?: unknown };
    causes.push(`${String(name ?? type ?? "cause")}: ${maskValues(String(message ?? ""))}`);
    inner = (inner as { cause?: unknown }).cause;
  }
  const because = causes.length ? ` (caused by ${causes.join("; ")})` : "";
  return `${head}: ${e.name}: ${maskValues(e.message)}${because}${frames.length ? "\n" + frames.join("\n") : ""}`;
}

/**
 * True when `err` is Postgres' unique violation (23505) of `constraint` (of any unique index when not
 * named): the loser of a race on a unique index, to be answered with GitLab's conflict body rather than a 500.
 */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const db = databaseError(err);
  return !!db && db.code === "23505" && (constraint === undefined || db.constraint === constraint);
}

type DatabaseError = { code: string; message: string; detail?: string; table?: string; column?: string; constraint?: string };

/** The Postgres error behind `err` (Drizzle wraps it in `cause`), if there is one. */
function databaseError(err: unknown): DatabaseError | null {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return e as DatabaseError;
  }
  return null;
}

/**
 * `value "2147483648" is out of range for type integer` → `value "…" is out of range for type integer`:
 * quoted names of schema objects stay (`constraint "labels_title_index"`), every other quoted or
 * trailing value is masked.
 */
export function maskValues(text: string): string {
  if (text.startsWith("Failed query:")) return "Failed query (SQL and parameters not logged)";
  return text
    .replace(/(\b(?:constraint|relation|column|table|index|type|encoding|function|schema|sequence|database|role|operator)\s+)?"[^"]*"/gi, (match, named) =>
      named ? match : '"…"',
    )
    .replace(/(: )(?!")(.{40,})$/s, "$1…");
}

/** GitLab's catch-all `route :any, '*path'`: `error`, not `message`. */
export const onNotFound: NotFoundHandler<AppEnv> = (c) => c.json({ error: "404 Not Found" }, 404);
