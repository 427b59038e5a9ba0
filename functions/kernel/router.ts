import { Hono, type MiddlewareHandler } from "hono";
import { checkScope, requireUser } from "./auth";
import type { H } from "hono/types";
import type { AppEnv, ErrorFormat } from "./env";
import { declareRoute, isRouteDoc, type RouteDoc } from "./openapi";

type Handler = MiddlewareHandler<AppEnv>;

/**
 * The only way a domain creates its sub-app. Every route it registers is preceded by the guard that
 * GitLab runs on matched endpoints only, so an unknown route stays a plain 404: the token's scope
 * (A3) and `authenticate_non_get!` (A4: anonymous writes are 401).
 *
 * `errorFormat`: the Grape API declares its own `error_formatter`; the routes' errors are written
 * with it by `onError` (kernel/errors.ts `formatBody`), whatever raised them (the parameters' reader,
 * a handler).
 *
 * A route may declare what the OpenAPI document says of it (kernel/openapi.ts `RouteDoc`) between its
 * path and its handlers: `routes.get("/projects/:id/issues", { params: ListIssues, response: [Issue] }, handler)`,
 * with the very schemas the handler reads and presents. Undeclared routes are in the document all the same.
 */
export function router(opts: { readUserScope?: boolean; readApiWrites?: boolean; anyScope?: boolean; tokenInBody?: boolean; anonymousWrites?: boolean; errorFormat?: ErrorFormat } = {}) {
  const app = new Hono<AppEnv>();
  const guard: Handler = async (c, next) => {
    if (opts.errorFormat) c.set("errorFormat", opts.errorFormat);
    // `tokenInBody`: the runner protocol (lib/api/ci/runner.rb) authenticates runner and job tokens
    // itself, so anonymous writes reach the route.
    // `anonymousWrites`: an API class that never calls `authenticate_non_get!` (lib/api/lint.rb decides itself).
    // A deploy token (set only on the package registries, kernel/auth.ts) is authenticated: the route's
    // abilities decide what it may do.
    if (!opts.tokenInBody && !opts.anonymousWrites && !c.var.deployToken && c.req.method !== "GET" && c.req.method !== "HEAD") requireUser(c);
    // `anyScope`: `allow_access_with_scope(Gitlab::Auth.all_available_scopes)`, e.g. a token reading
    // or revoking itself (lib/api/personal_access_tokens/self_*.rb).
    // `readApiWrites`: the API's writes only read (`allow_access_with_scope :read_api`), so `read_api` tokens may call them.
    if (!opts.anyScope) checkScope(c, { readUser: opts.readUserScope, readOnly: opts.readApiWrites });
    await next();
  };
  for (const method of ["get", "post", "put", "delete", "patch"] as const) {
    const register = app[method].bind(app) as (path: string, ...handlers: unknown[]) => unknown;
    (app as unknown as Record<string, unknown>)[method] = (path: string, ...handlers: unknown[]) => {
      const doc: RouteDoc = isRouteDoc(handlers[0]) ? (handlers.shift() as RouteDoc) : {};
      // The route's own guard: the handle by which the document finds the route's declaration.
      const routeGuard: Handler = (c, next) => guard(c, next);
      declareRoute(routeGuard, doc, opts);
      register(path, routeGuard, ...handlers);
      return app;
    };
  }
  return app as RouteRegistrar<typeof app>;
}

type Methods = "get" | "post" | "put" | "delete" | "patch";
/** Hono's registration methods, also taking a `RouteDoc` between the path and the handlers. */
type WithDoc<T> = <P extends string>(path: P, doc: RouteDoc, ...handlers: H<AppEnv, P>[]) => T;
type RouteRegistrar<T extends Hono<AppEnv>> = T & { [M in Methods]: WithDoc<T> & T[M] };

/** A domain's routes made of its sub-resources' routers, mounted in order (an earlier one matches first). */
export function mounted(...parts: Hono<AppEnv>[]) {
  const app = router();
  for (const part of parts) app.route("/", part);
  return app;
}
