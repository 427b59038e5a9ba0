import type { ErrorHandler, NotFoundHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "./env";

/**
 * An error that renders GitLab's exact status and body (GITLAB-COMPAT.md §4). Routes never write these
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
    for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
    return c.json(err.body as object, err.status as ContentfulStatusCode);
  }
  console.error(`[${c.var.requestId ?? "-"}] ${c.req.method} ${new URL(c.req.url).pathname}:`, err);
  return c.json({ message: "500 Internal Server Error" }, 500);
};

/** GitLab's catch-all `route :any, '*path'`: `error`, not `message`. */
export const onNotFound: NotFoundHandler<AppEnv> = (c) => c.json({ error: "404 Not Found" }, 404);
