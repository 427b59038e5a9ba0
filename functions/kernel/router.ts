import { Hono, type MiddlewareHandler } from "hono";
import { checkScope, requireUser } from "./auth";
import type { AppEnv, ErrorFormat } from "./env";

/**
 * The only way a domain creates its sub-app. Every route it registers is preceded by the guard that
 * GitLab runs on matched endpoints only, so an unknown route stays a plain 404: the token's scope
 * (A3) and `authenticate_non_get!` (A4: anonymous writes are 401).
 *
 * `errorFormat`: the Grape API declares its own `error_formatter`; the routes' errors are written
 * with it by `onError` (kernel/errors.ts `formatBody`), whatever raised them (the parameters' reader,
 * a handler).
 */
export function router(opts: { readUserScope?: boolean; anyScope?: boolean; tokenInBody?: boolean; errorFormat?: ErrorFormat } = {}) {
  const app = new Hono<AppEnv>();
  const guard: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (opts.errorFormat) c.set("errorFormat", opts.errorFormat);
    // `tokenInBody`: the runner protocol (lib/api/ci/runner.rb) authenticates runner and job tokens
    // itself, so anonymous writes reach the route.
    if (!opts.tokenInBody && c.req.method !== "GET" && c.req.method !== "HEAD") requireUser(c);
    // `anyScope`: `allow_access_with_scope(Gitlab::Auth.all_available_scopes)`, e.g. a token reading
    // or revoking itself (lib/api/personal_access_tokens/self_*.rb).
    if (!opts.anyScope) checkScope(c, { readUser: opts.readUserScope });
    await next();
  };
  for (const method of ["get", "post", "put", "delete", "patch"] as const) {
    const register = app[method].bind(app) as (path: string, ...handlers: unknown[]) => unknown;
    (app as unknown as Record<string, unknown>)[method] = (path: string, ...handlers: unknown[]) => {
      register(path, guard, ...handlers);
      return app;
    };
  }
  return app;
}

/** A domain's routes made of its sub-resources' routers, mounted in order (an earlier one matches first). */
export function mounted(...parts: Hono<AppEnv>[]) {
  const app = router();
  for (const part of parts) app.route("/", part);
  return app;
}
