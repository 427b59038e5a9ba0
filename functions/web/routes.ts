import { canReadGroup, canReadProject } from "../kernel/abilities";
import { requireUser, TOKEN_SCOPES } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { ApiError, onError, onNotFound } from "../kernel/errors";
import { loadGroup, loadProject, loadUserByIdOrUsername } from "../kernel/lookup";
import { pathRowId, readParams } from "../kernel/params";
import { router } from "../kernel/router";
import { createToken, findToken, mayRevoke, revokeToken, tokenErrors } from "../personal_access_tokens/public";
import { verifyPassword } from "../shared/passwords";
import { commitPage, commitsPage } from "./commits";
import { projectsPage } from "./home";
import { HIGHLIGHT_SCRIPT } from "./highlight";
import { errorPage, notFoundPage } from "./layout";
import { groupPage, profilePage } from "./namespaces";
import { CommitsQuery, CreateToken, FormToken, PageNumber, RedirectTo, SignIn } from "./params";
import { projectHome } from "./project";
import { blobPage, rawBlob, treePage } from "./repository";
import { requireCsrf, signIn, signOut, webSession } from "./session";
import { signInPage } from "./sign_in";
import { tokensPage, TOKENS_PATH } from "./tokens";
import { issuePages } from "./issues";
import { mergeRequestPages } from "./merge_requests";
import { pipelinePages } from "./pipelines";
import { wikiPages } from "./wikis";

/**
 * The web front: server-rendered pages at GitLab's own paths, mounted after every other route
 * (functions/app.ts), so the API, git, LFS, uploads and badges keep precedence. Pages read through the
 * API's finders and abilities (what the API hides, the page hides: the HTML 404); forms POST with a
 * CSRF token (session.ts) and call the API's services.
 *
 * `tokenInBody`: the router's guard would answer an anonymous POST 401 (`authenticate_non_get!`); the
 * sign-in form is such a POST, and the other forms ask for a user themselves (`requireUser`, which
 * sends an anonymous visitor to the sign-in page). `anyScope`: a session acts with the `api` scope.
 */
export const webRoutes = router({ tokenInBody: true, anyScope: true });
/** What page sets register on (`issuePages(webRoutes)`): routes declared like the API's. */
export type WebRoutes = typeof webRoutes;

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

const pageNumber = (page: number | undefined) => Math.max(1, Math.min(page ?? 1, 10_000));

// --- Home, sign-in, sign-out -------------------------------------------------------------------

/** GET /: explore projects (anonymous) or the dashboard of the user's projects, with what Edgeforge is. */
webRoutes.get("/", { summary: "Web: home (explore projects; the dashboard when signed in)", params: PageNumber }, async (c) => {
  const { page } = await readParams(c, PageNumber);
  return projectsPage(c, { dashboard: true, path: "/", page: pageNumber(page) });
});

/** GET /explore/projects */
webRoutes.get("/explore/projects", { summary: "Web: explore projects", params: PageNumber }, async (c) => {
  const { page } = await readParams(c, PageNumber);
  return projectsPage(c, { dashboard: false, path: "/explore/projects", page: pageNumber(page) });
});

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

// --- Personal access tokens --------------------------------------------------------------------

/** GET /-/user_settings/personal_access_tokens */
webRoutes.get(TOKENS_PATH, { summary: "Web: the user's personal access tokens" }, async (c) => {
  requireUser(c);
  return tokensPage(c);
});

/** POST /-/user_settings/personal_access_tokens: PersonalAccessTokens::CreateService, as POST /users/:id/personal_access_tokens. */
webRoutes.post(TOKENS_PATH, { summary: "Web: create a personal access token", params: CreateToken }, requireCsrf, async (c) => {
  const actor = requireUser(c);
  const params = await readParams(c, CreateToken);
  const name = params.name ?? "";
  const scopes = (params.scopes ?? []).filter((s) => (TOKEN_SCOPES as readonly string[]).includes(s));
  const expiresAt = params.expires_at || null;
  const errors = [...tokenErrors({ name, scopes }), ...(expiresAt && !/^\d{4}-\d{2}-\d{2}$/.test(expiresAt) ? ["Expires at is invalid"] : [])];
  if (errors.length) return tokensPage(c, { errors, status: 400 });
  const created = await createToken(c.var.db(), actor.user.id, { name, scopes, expiresAt });
  return tokensPage(c, { created });
});

/** POST /-/user_settings/personal_access_tokens/:id/revoke: the owner's own token only (else the 404 page). */
webRoutes.post(`${TOKENS_PATH}/:id/revoke`, { summary: "Web: revoke a personal access token", params: FormToken }, requireCsrf, async (c) => {
  const actor = requireUser(c);
  const id = pathRowId(c.req.param("id"));
  const token = id === null ? null : await findToken(c.var.db(), id);
  if (!token || token.userId !== actor.user.id || !mayRevoke(actor, token)) return notFoundPage(c);
  await revokeToken(c.var.db(), token.id);
  return c.redirect(TOKENS_PATH, 303);
});

/**
 * GET /-/web/highlight.js: the blob page's highlighter (functions/web/browser/highlight.js), a static
 * asset built by scripts/assets.mjs, served from the ASSETS binding outside the Worker's bundle.
 */
webRoutes.get(HIGHLIGHT_SCRIPT, { summary: "Web: the blob page's highlighter script (a static asset)" }, async (c) => {
  if (!c.env.ASSETS) return notFoundPage(c);
  const asset = await c.env.ASSETS.fetch(new Request(new URL(HIGHLIGHT_SCRIPT, c.req.url), { headers: c.req.raw.headers }));
  return asset.status === 404 ? notFoundPage(c) : asset;
});

// --- Repository pages --------------------------------------------------------------------------

webRoutes.get("/:project{.+}/-/tree/:rest{.+}", { summary: "Web: a directory of the repository" }, (c) => treePage(c, c.req.param("project"), c.req.param("rest")));
webRoutes.get("/:project{.+}/-/blob/:rest{.+}", { summary: "Web: a file of the repository, highlighted" }, (c) => blobPage(c, c.req.param("project"), c.req.param("rest")));
webRoutes.get("/:project{.+}/-/raw/:rest{.+}", { summary: "Web: a file of the repository, raw" }, (c) => rawBlob(c, c.req.param("project"), c.req.param("rest")));
webRoutes.get("/:project{.+}/-/commits/:rest{.+}", { summary: "Web: the commits of a ref", params: CommitsQuery }, async (c) => {
  const params = await readParams(c, CommitsQuery);
  return commitsPage(c, c.req.param("project"), c.req.param("rest"), { path: params.path, page: pageNumber(params.page) });
});
webRoutes.get("/:project{.+}/-/commit/:sha{[0-9a-fA-F]{7,64}}", { summary: "Web: a commit and its diff" }, (c) => commitPage(c, c.req.param("project"), c.req.param("sha")));

// Page sets of functions/web registered here, before the namespace catch-all below: a project's
// issues, merge requests, pipelines and jobs, wiki (`/<full_path>/-/…`).
issuePages(webRoutes);
mergeRequestPages(webRoutes);
pipelinePages(webRoutes);
wikiPages(webRoutes);

// --- Namespaces: /groups/:group, /:username, /:group, /:namespace/:project ----------------------

/** GET /groups/:group: the group page at the group's `web_url` (GitLab's canonical group path). */
webRoutes.get("/groups/:group_path{.+}", { summary: "Web: a group page", params: PageNumber }, async (c) => {
  const path = c.req.param("group_path");
  const { page } = await readParams(c, PageNumber);
  const group = path.includes("/-/") || /^\d+$/.test(path) ? null : await loadGroup(c, path);
  return group && canReadGroup(c.var.actor, group) ? groupPage(c, group, pageNumber(page)) : notFoundPage(c);
});

/**
 * GET /:full_path: a project (its full path), else a group, else (one segment) a user's profile, as
 * GitLab's routes resolve a namespace path; what the visitor may not read is the 404 page. Ids are
 * not paths here (`/5` is no user).
 */
webRoutes.get("/:full_path{.+}", { summary: "Web: a project, group or user page", params: PageNumber }, async (c) => {
  const path = c.req.param("full_path");
  const { page } = await readParams(c, PageNumber);
  if (path.includes("/-/") || /^\d+$/.test(path)) return notFoundPage(c);
  if (path.includes("/")) {
    const project = await loadProject(c, path);
    if (project && canReadProject(c.var.actor, project)) return projectHome(c, project);
  }
  const group = await loadGroup(c, path);
  if (group) return canReadGroup(c.var.actor, group) ? groupPage(c, group, pageNumber(page)) : notFoundPage(c);
  if (!path.includes("/")) {
    const user = await loadUserByIdOrUsername(c, path);
    if (user) return profilePage(c, user, pageNumber(page));
  }
  return notFoundPage(c);
});

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
