import type { Hono } from "hono";
import type { AppEnv, Ctx } from "../kernel/env";
import { ApiError, onError, onNotFound } from "../kernel/errors";
import { readParams } from "../kernel/params";
import { router } from "../kernel/router";
import { verifyPassword } from "../shared/passwords";
import { errorPage, notFoundPage } from "./layout";
import { homePage } from "./home";
import { signInPage } from "./sign_in";
import { RedirectTo, SignIn, FormToken } from "./params";
import { requireCsrf, signIn, signOut, webSession } from "./session";
import { issuePages } from "./issues";
import { mergeRequestPages } from "./merge_requests";
import { pipelinePages } from "./pipelines";

/**
 * The web front: server-rendered pages at GitLab's own paths, mounted after every other route
 * (functions/app.ts), so the API, git, LFS, uploads and badges keep precedence. Pages read through the
 * API's finders and abilities; forms POST with a CSRF token (session.ts).
 *
 * `tokenInBody`: the router's guard would answer an anonymous POST 401 (`authenticate_non_get!`); the
 * sign-in form is such a POST, and the other forms check the session themselves.
 * `anyScope`: a session acts with the `api` scope.
 */
export const webRoutes = router({ tokenInBody: true, anyScope: true });

// A path under /api/ that no API route matched keeps the API's JSON 404.
webRoutes.use("*", async (c, next) => {
  if (c.req.path === "/api" || c.req.path.startsWith("/api/")) return onNotFound(c);
  await next();
});
webRoutes.use("*", webSession);
webRoutes.onError(webError);

/** A local path to return to after signing in: never another origin (`//evil`, `/\evil`, `https://…`). */
export function localPath(value: string | undefined, fallback = "/"): string {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return fallback;
  return value;
}

/** GET / : explore (anonymous) or the dashboard (signed in), with what Edgeforge is. */
webRoutes.get("/", { summary: "Web: home (explore projects, or the dashboard when signed in)" }, (c) => homePage(c));

/** GET /users/sign_in */
webRoutes.get("/users/sign_in", { summary: "Web: the sign-in form", params: RedirectTo }, async (c) => {
  const { redirect_to } = await readParams(c, RedirectTo);
  if (c.var.actor) return c.redirect(localPath(redirect_to));
  return signInPage(c, { redirectTo: localPath(redirect_to, "") });
});

/** POST /users/sign_in: username or e-mail and password; 10 failures lock the account for 10 minutes. */
webRoutes.post("/users/sign_in", { summary: "Web: sign in", params: SignIn }, requireCsrf, async (c) => {
  const params = await readParams(c, SignIn);
  const login = params.user?.login?.trim() ?? "";
  const result = await signIn(c, login, params.user?.password ?? "", verifyPassword);
  if (!result.ok) return signInPage(c, { redirectTo: localPath(params.redirect_to, ""), alert: result.alert, login }, 401);
  return c.redirect(localPath(params.redirect_to), 303);
});

/** POST /users/sign_out (GitLab: `DELETE /users/sign_out` through rails-ujs; a form POST here, without JavaScript). */
webRoutes.post("/users/sign_out", { summary: "Web: sign out", params: FormToken }, requireCsrf, async (c) => {
  await signOut(c);
  return c.redirect("/", 303);
});

// A project's issues, merge requests, pipelines and jobs (`/<full_path>/-/…`), registered before the
// project and namespace pages so that their `-/` paths are matched first.
issuePages(webRoutes);
mergeRequestPages(webRoutes);
pipelinePages(webRoutes);

/**
 * Errors of web pages as HTML: what the visitor may not read, like what does not exist, is the 404
 * page; a page that needs a user sends an anonymous visitor to sign in; a refused CSRF token is 422.
 */
function webError(err: Error, c: Ctx) {
  if (!(err instanceof ApiError)) return onError(err, c);
  if (err.status === 404 || err.status === 403) return notFoundPage(c);
  if (err.status === 401) return c.redirect(`/users/sign_in?redirect_to=${encodeURIComponent(c.req.path)}`, 303);
  if (err.status === 422) return errorPage(c, 422, "The change you requested was rejected", "The form was sent without its security token, or with an old one. Reload the page and try again.");
  if (err.status === 400) return errorPage(c, 400, "Bad request", "The form or the address has a value that cannot be read.");
  if (err.status === 429) return errorPage(c, 429, "Too many requests", "Wait a little and try again.");
  return onError(err, c);
}

/** The HTML 404 of an unknown path outside /api/ (the app's `notFound`); /api/ keeps GitLab's JSON. */
export function webNotFound(c: Ctx) {
  if (c.req.path === "/api" || c.req.path.startsWith("/api/")) return onNotFound(c);
  return notFoundPage(c);
}

export type WebApp = Hono<AppEnv>;
