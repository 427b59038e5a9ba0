import { and, eq, inArray, sql } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { ciBuilds, deployTokens, personalAccessTokens, users, type DeployToken, type User } from "../../db/schema";
import { preparedQuery, withDb } from "./db";
import type { Actor, AppEnv, Ctx } from "./env";
import { loadUserByIdOrUsername } from "./lookup";
import { baseUrl } from "./present";
import { expiredToken, forbidden, insufficientScope, notFound, revokedToken, unauthorized } from "./errors";

/** Scopes of personal access tokens (lib/gitlab/auth.rb), in GitLab's order. */
export const TOKEN_SCOPES = ["api", "read_api", "read_user", "read_repository", "write_repository", "read_registry", "write_registry", "sudo", "admin_mode"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** 20 random URL-safe characters after the prefix (`glpat-`), from crypto.getRandomValues. */
export function generateToken(prefix = "glpat-"): string {
  const bytes = crypto.getRandomValues(new Uint8Array(15));
  const base64 = btoa(String.fromCharCode(...bytes));
  return prefix + base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Routes whose clients send HTTP Basic (GitLab's `basic_auth_personal_access_token` route setting):
 * twine and pip, curl on the generic registry (lib/api/generic_packages.rb), and Terraform's `http` backend
 * (lib/api/terraform/state.rb), send `<any user>:<personal
 * access token>`, or `gitlab-ci-token:<job token>` (taken by `jobTokenCredential`), or a deploy
 * token's `<username>:<token>` on `DEPLOY_TOKEN_ROUTES`.
 */
const BASIC_AUTH_ROUTES = /^\/api\/v4\/((projects|groups)\/[^/]+\/(-\/)?packages\/pypi(\/|$)|projects\/[^/]+\/packages\/generic\/|projects\/[^/]+\/terraform\/state\/)/;

/**
 * Routes that take a deploy token (GitLab's `deploy_token_allowed` route setting) with its
 * `read_package_registry`/`write_package_registry` scopes: the package registries of a project (PyPI,
 * npm, generic) and a group's PyPI registry. Elsewhere a deploy token is an unknown credential (401);
 * the container registry and git over HTTP read it themselves.
 */
const DEPLOY_TOKEN_ROUTES = /^\/api\/v4\/(projects\/[^/]+\/packages\/(pypi|npm|generic)(\/|$)|groups\/[^/]+\/-\/packages\/pypi(\/|$))/;

/** The login and password of a Basic header on the routes above (not a job token's). */
function basicCredentials(c: Ctx): { login: string; password: string } | null {
  if (!BASIC_AUTH_ROUTES.test(new URL(c.req.url).pathname)) return null;
  const basic = /^Basic\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
  if (!basic) return null;
  let decoded: string;
  try {
    decoded = atob(basic[1]);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  if (colon < 0 || decoded.slice(0, colon) === "gitlab-ci-token" || colon === decoded.length - 1) return null;
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The credential of the request, from the forms of docs/compat.md, "Authentication and permissions", A1. */
function credential(c: Ctx): string | null {
  const header = c.req.header("private-token");
  if (header) return header.trim();
  const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "");
  if (bearer) return bearer[1].trim();
  const query = new URL(c.req.url).searchParams.get("private_token");
  return query ? query.trim() : (basicCredentials(c)?.password ?? null);
}

/** The `Deploy-Token` header, read on `DEPLOY_TOKEN_ROUTES` only (curl on the generic registry sends it). */
function deployTokenHeader(c: Ctx): string | null {
  const header = c.req.header("deploy-token")?.trim();
  return header && DEPLOY_TOKEN_ROUTES.test(new URL(c.req.url).pathname) ? header : null;
}

function sudoIdentifier(c: Ctx): string | null {
  const value = c.req.header("sudo") ?? new URL(c.req.url).searchParams.get("sudo");
  return value ? value.trim() : null;
}

/** The token by its digest, with its user: every authenticated request runs it, so it is prepared once. */
const tokenWithUser = preparedQuery((db) =>
  db
    .select({ token: personalAccessTokens, user: users })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .where(eq(personalAccessTokens.tokenDigest, sql.placeholder("digest")))
    .limit(1),
);

/**
 * The deploy token of the request on `DEPLOY_TOKEN_ROUTES` (AuthFinders#deploy_token_from_request):
 * the `Deploy-Token` header, a Bearer token (npm's `_authToken`), or a Basic password whose login is
 * the token's username (Gitlab::Auth#deploy_token_check). "denied" when it is revoked or expired, null
 * for no deploy token.
 */
async function deployTokenOf(c: Ctx, credential: string, digest: string): Promise<DeployToken | "denied" | null> {
  if (!DEPLOY_TOKEN_ROUTES.test(new URL(c.req.url).pathname)) return null;
  const basic = basicCredentials(c);
  const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1].trim();
  const header = c.req.header("deploy-token")?.trim();
  // The token must be the one of those forms, not a PRIVATE-TOKEN or `private_token` beside them.
  const login = basic && basic.password === credential && !bearer ? basic.login : null;
  if (login === null && bearer !== credential && header !== credential) return null;
  const [token] = await c.var.db().select().from(deployTokens).where(eq(deployTokens.tokenDigest, digest)).limit(1);
  if (!token || (login !== null && token.username !== login)) return null;
  return token.revoked || (token.expiresAt && token.expiresAt <= new Date()) ? "denied" : token;
}

/**
 * Routes that take a CI job token as credential (GitLab's `job_token_allowed` route setting): the
 * generic and npm package registries, where a job publishes and installs packages. A job token is
 * the `JOB-TOKEN` header, the `job_token` parameter, Basic `gitlab-ci-token:<token>`, or (npm's
 * `_authToken`) a Bearer token that is no personal access token. Elsewhere a job token is unknown (401).
 */
const JOB_TOKEN_ROUTES = /^\/api\/v4\/(projects\/[^/]+\/(packages\/(generic\/|npm\/|pypi(\/|$))|terraform\/state\/)|groups\/[^/]+\/-\/packages\/pypi\/)/;

function jobTokenCredential(c: Ctx): string | null {
  const header = c.req.header("job-token");
  if (header) return header.trim();
  const query = new URL(c.req.url).searchParams.get("job_token");
  if (query) return query.trim();
  const basic = /^Basic\s+(.+)$/i.exec(c.req.header("authorization") ?? "");
  if (basic) {
    try {
      const decoded = atob(basic[1].trim());
      if (decoded.startsWith("gitlab-ci-token:")) return decoded.slice("gitlab-ci-token:".length);
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * The actor of a running job's token: the job's user, with the `api` scope on the routes above
 * (Gitlab::Auth#build_authentication_abilities give a job its user's project abilities), and the job.
 * Null for an unknown token, a finished job, a job without a user, or a user who is not active.
 */
async function jobActor(c: Ctx, token: string): Promise<Actor | null> {
  const rows = await c.var
    .db()
    .select({ id: ciBuilds.id, pipelineId: ciBuilds.pipelineId, projectId: ciBuilds.projectId, user: users })
    .from(ciBuilds)
    .innerJoin(users, eq(users.id, ciBuilds.userId))
    .where(and(eq(ciBuilds.tokenDigest, await sha256Hex(token)), inArray(ciBuilds.status, ["running", "canceling"])))
    .limit(1);
  const found = rows[0];
  if (!found || found.user.state !== "active") return null;
  return { user: found.user, isAdmin: found.user.admin, scopes: ["api"], tokenId: 0, sudoFrom: null, job: { id: found.id, pipelineId: found.pipelineId, projectId: found.projectId } };
}

/**
 * Resolves `c.var.actor` when a credential is present: one statement (token and user), two with
 * Sudo. A present but unknown, expired or revoked token ends the request with 401 even where
 * anonymous callers are welcome; no credential means no database work (lib/api/api_guard.rb).
 */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("actor", null);
  const token = credential(c) ?? deployTokenHeader(c);
  const sudo = sudoIdentifier(c);
  const jobRoute = JOB_TOKEN_ROUTES.test(new URL(c.req.url).pathname);
  const jobToken = jobRoute && !token ? jobTokenCredential(c) : null;
  if (jobToken) {
    const actor = await jobActor(c, jobToken);
    if (!actor) throw unauthorized();
    c.set("actor", actor);
    return next();
  }
  if (!token) {
    if (sudo) throw unauthorized();
    return next();
  }
  const digest = await sha256Hex(token);
  const rows = await tokenWithUser(c.var.db(), { digest });
  const found = rows[0];
  // Only when no personal access token matched: their requests pay no statement for it.
  const deployToken = !found && !sudo ? await deployTokenOf(c, token, digest) : null;
  if (deployToken === "denied") throw unauthorized();
  if (deployToken) {
    c.set("deployToken", deployToken);
    return next();
  }
  if (!found && jobRoute && !sudo) {
    // npm sends the job token as its Bearer `_authToken`.
    const actor = await jobActor(c, token);
    if (!actor) throw unauthorized();
    c.set("actor", actor);
    return next();
  }
  if (!found) throw unauthorized();
  // AccessTokenValidationService#validate tests expiry before revocation.
  if (found.token.expiresAt && found.token.expiresAt <= new Date().toISOString().slice(0, 10)) throw expiredToken();
  if (found.token.revoked) throw revokedToken();
  // Gitlab::Auth::UserAccessDeniedReason: banned users are blocked; deactivated ones are told how to
  // reactivate (by signing in on the web, which Edgeforge does not have).
  if (found.user.state === "blocked" || found.user.state === "banned") throw forbidden("Your account has been blocked.");
  if (found.user.state === "deactivated")
    throw forbidden(
      `Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at ${baseUrl(c)}`,
    );

  let actor: Actor = {
    user: found.user,
    isAdmin: found.user.admin,
    scopes: found.token.scopes,
    tokenId: found.token.id,
    sudoFrom: null,
  };
  if (sudo) actor = await impersonate(c, actor, sudo);
  c.set("actor", actor);
  touchLastUsed(c, found.token.id, found.token.lastUsedAt);
  touchActivity(c, found.user);
  return next();
};

/**
 * Users::ActivityService: an API request moves the caller's `last_activity_on` (`GET /user/activities`)
 * to today, at most once a day, after the response like `touchLastUsed`.
 */
function touchActivity(c: Ctx, user: User): void {
  const today = new Date().toISOString().slice(0, 10);
  if (user.lastActivityOn === today) return;
  const touch = withDb(c.env, (db) =>
    db
      .update(users)
      .set({ lastActivityOn: sql`current_date` })
      .where(and(eq(users.id, user.id), sql`${users.lastActivityOn} IS DISTINCT FROM current_date`)),
  ).catch((error) => console.error(`[${c.var.requestId}] last_activity_on:`, error));
  c.executionCtx.waitUntil(touch);
}

/** GitLab's PersonalAccessTokens::LastUsedService: `last_used_at` moves at most once per 10 minutes. */
const LAST_USED_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Records the token's use after the response, on its own short-lived connection, so the request
 * pays no statement for it (and statement counts stay the same whether or not a touch is due).
 */
function touchLastUsed(c: Ctx, tokenId: number, lastUsedAt: Date | null): void {
  if (lastUsedAt && Date.now() - new Date(lastUsedAt).getTime() < LAST_USED_INTERVAL_MS) return;
  const touch = withDb(c.env, (db) =>
    db
      .update(personalAccessTokens)
      .set({ lastUsedAt: sql`now()` })
      .where(
        and(
          eq(personalAccessTokens.id, tokenId),
          sql`(${personalAccessTokens.lastUsedAt} IS NULL OR ${personalAccessTokens.lastUsedAt} < now() - interval '10 minutes')`,
        ),
      ),
  ).catch((error) => console.error(`[${c.var.requestId}] last_used_at:`, error));
  c.executionCtx.waitUntil(touch);
}

/** `sudo!` (lib/api/helpers.rb): admins with the sudo scope act as another user. */
async function impersonate(c: Ctx, actor: Actor, identifier: string): Promise<Actor> {
  if (!actor.user.admin) throw forbidden("Must be admin to use sudo");
  if (!actor.scopes.includes("sudo")) throw insufficientScope("sudo");
  const target = await loadUserByIdOrUsername(c, identifier);
  if (!target) throw notFound(`User with ID or username '${identifier}'`);
  return { ...actor, user: target, isAdmin: target.admin, sudoFrom: actor.user };
}

/**
 * The scope a matched route needs (A3): `api` for writes; `api` or `read_api` for reads, and
 * `read_user` also for the endpoints about users that GitLab opens to it. `readOnly`: a POST that only
 * reads (`allow_access_with_scope :read_api`, e.g. POST /markdown) takes `read_api` too.
 */
export function checkScope(c: Ctx, opts: { readUser?: boolean; readOnly?: boolean }): void {
  const actor = c.var.actor;
  if (!actor) return;
  const read = opts.readOnly || c.req.method === "GET" || c.req.method === "HEAD";
  const scopes = actor.scopes;
  if (scopes.includes("api")) return;
  if (read && scopes.includes("read_api")) return;
  if (read && opts.readUser && scopes.includes("read_user")) return;
  throw insufficientScope("api");
}

/** `authenticate!`: 401 without a user. */
/**
 * A user acting without a request (a Durable Object or a queue consumer doing what the user asked for
 * earlier, such as merging when a pipeline succeeds): full `api` scope, as the request that asked had.
 */
export function actorForUser(user: User): Actor {
  return { user, isAdmin: user.admin, scopes: ["api"], tokenId: 0, sudoFrom: null };
}

export function requireUser(c: Ctx): Actor {
  const actor = c.var.actor;
  if (!actor) throw unauthorized();
  return actor;
}

/**
 * `authenticate!` where a deploy token may be the caller (the package registries): the user, or null
 * for a deploy token, which is no user (what it uploads has no creator, as in GitLab); 401 without either.
 */
export function requireUserOrDeployToken(c: Ctx): Actor | null {
  return c.var.deployToken ? null : requireUser(c);
}

/** `authenticated_as_admin!`: 401 anonymous, 403 for non-admins. */
export function requireAdmin(c: Ctx): Actor {
  const actor = requireUser(c);
  if (!actor.isAdmin) throw forbidden();
  return actor;
}
