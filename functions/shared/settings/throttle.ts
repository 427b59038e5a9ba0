import { sql } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { createDb } from "../../kernel/db";
import type { Actor, AppEnv, Bindings, Ctx } from "../../kernel/env";
import { ApiError } from "../../kernel/errors";
import { hit } from "../../kernel/rate_limit";
import { settingsFromRow, type Settings } from "../../entities/settings_catalog";

/**
 * Rack::Attack's request throttles (Gitlab::Throttle::REGULAR_THROTTLES): each API request falls under
 * one of them by its path, per user when authenticated and per IP address otherwise.
 */
type Throttle = "api" | "packages_api" | "files_api" | "deprecated_api";

/** Gitlab::Regex::Packages::API_PATH_REGEX. */
const PACKAGES_PATH = /^\/api\/v\d+\/(projects\/[^/]+\/|groups?\/[^/]+\/-\/)?packages\/[A-Za-z]+/;
/** Gitlab::RackAttack::Request::FILES_PATH_REGEX. */
const FILES_PATH = /^\/api\/v\d+\/projects\/[^/]+\/repository\/files\/.+/;
/** `deprecated_api_request?`: GET /groups/:id with its projects (`with_projects` defaults to true). */
const DEPRECATED_PATH = /^\/api\/v\d+\/groups\/[^/]+\/?$/;

function throttleOf(c: Ctx, settings: Settings, authenticated: boolean): Throttle {
  const kind = authenticated ? "authenticated" : "unauthenticated";
  const enabled = (t: Throttle) => settings[`throttle_${kind}_${t}_enabled` as keyof Settings] === true;
  const path = c.req.path;
  // A path with its own throttle leaves the general API throttle only while that throttle is enabled.
  if (PACKAGES_PATH.test(path) && enabled("packages_api")) return "packages_api";
  if (FILES_PATH.test(path) && enabled("files_api")) return "files_api";
  const withProjects = (c.req.query("with_projects") ?? "").toLowerCase();
  if (c.req.method === "GET" && DEPRECATED_PATH.test(path) && !["false", "0", "no", "f", "n"].includes(withProjects) && enabled("deprecated_api"))
    return "deprecated_api";
  return "api";
}

/**
 * The settings the throttles read, per isolate: GitLab too reads them from an in-process cache
 * (`Gitlab::CurrentSettings`, 60 s). A stale or missing copy is reloaded after the response, on a
 * connection of its own, so no request waits for it or counts its statement; until the first load an
 * isolate throttles nothing. PUT /application/settings replaces the copy of its isolate at once.
 */
const SETTINGS_TTL_MS = 60_000;
let cached: { settings: Settings; at: number } | null = null;
let reloading = false;

export function rememberThrottleSettings(settings: Settings): void {
  cached = { settings, at: Date.now() };
}

async function reload(env: Bindings): Promise<void> {
  const { db, pool } = createDb(env);
  try {
    const rows = await db.execute<{ settings: Record<string, unknown> | null }>(sql`SELECT settings FROM application_settings WHERE id = 1`);
    const row = rows.rows[0];
    rememberThrottleSettings(settingsFromRow(row ? ({ settings: row.settings ?? {} } as never) : null));
  } finally {
    reloading = false;
    await pool.end();
  }
}

function currentSettings(c: Ctx): Settings | null {
  if ((!cached || Date.now() - cached.at > SETTINGS_TTL_MS) && !reloading) {
    reloading = true;
    const pending = reload(c.env).catch(() => {});
    try {
      c.executionCtx.waitUntil(pending);
    } catch {
      // No execution context (a unit test calling the app directly): the reload runs on its own.
    }
  }
  return cached?.settings ?? null;
}

/** The client's address as the edge saw it (`req.ip`). */
const clientIp = (c: Ctx) => c.req.header("cf-connecting-ip") ?? c.req.header("x-real-ip") ?? c.req.header("x-forwarded-for")?.split(",")[0].trim() ?? "unknown";

/**
 * Gitlab::RackAttack's throttled response: 429, `text/plain`, the `rate_limiting_response_text`
 * (default `Retry later`) and a newline, with the RateLimit-* headers and `Retry-After`.
 */
function throttled(name: string, settings: Settings, count: number, limit: number, period: number, resetEpoch: number, nowEpoch: number): ApiError {
  const text = typeof settings.rate_limiting_response_text === "string" && settings.rate_limiting_response_text.trim() !== "" ? settings.rate_limiting_response_text : "Retry later";
  const retryAfter = Math.max(1, resetEpoch - nowEpoch);
  return new ApiError(429, `${text}\n`, {
    "Content-Type": "text/plain",
    "RateLimit-Name": name,
    "RateLimit-Limit": String(Math.ceil((limit * 60) / period)),
    "RateLimit-Observed": String(count),
    "RateLimit-Remaining": String(limit > count ? limit - count : 0),
    "RateLimit-Reset": String(resetEpoch),
    "RateLimit-ResetTime": new Date(resetEpoch * 1000).toUTCString(),
    "Retry-After": String(retryAfter),
  });
}

/**
 * The API throttles, after authentication: when the request's throttle is enabled, one counted hit on
 * `throttle_<kind>_<name>:<user or ip>`; over `requests_per_period` in the current window is a 429.
 * Internal traffic (`/api/v4/internal`, `/api/v4/jobs/…` of runners) is not throttled, as GitLab's
 * `should_be_skipped?` and runner requests.
 */
export const throttleRequests: MiddlewareHandler<AppEnv> = async (c, next) => {
  const settings = currentSettings(c);
  if (!settings || /^\/api\/v\d+\/(internal|jobs\/request)\b/.test(c.req.path)) return next();
  const actor = c.var.actor;
  const kind = actor ? "authenticated" : "unauthenticated";
  const throttle = throttleOf(c, settings, !!actor);
  const prefix = `throttle_${kind}_${throttle}`;
  if (settings[`${prefix}_enabled` as keyof Settings] !== true) return next();
  const period = Math.max(1, Number(settings[`${prefix}_period_in_seconds` as keyof Settings]));
  const limit = Number(settings[`${prefix}_requests_per_period` as keyof Settings]);
  const who = actor ? `user:${actor.user.id}` : clientIp(c);
  const { count, resetEpoch, nowEpoch } = await hit(c.var.db(), `${prefix}:${who}`, period);
  if (count > limit) throw throttled(prefix, settings, count, limit, period, resetEpoch, nowEpoch);
  return next();
};

/**
 * Rack::Attack's `throttle_authenticated_git_lfs` (lib/gitlab/rack_attack.rb, GitLab 15.4): a request to
 * a Git LFS path (`/<full_path>.git/info/lfs/…`, `/<full_path>.git/gitlab-lfs/…`) by a signed-in user
 * counts against `throttle_authenticated_git_lfs_requests_per_period` per period, per user.
 * Differs from GitLab: counted once git's Basic credentials are read (functions/lfs/access.ts), not
 * before the request reaches the application; an anonymous LFS request is not throttled (GitLab counts
 * it under `throttle_unauthenticated_web`, which has no other request here).
 */
export async function throttleGitLfs(c: Ctx, actor: Actor | null): Promise<void> {
  const settings = currentSettings(c);
  if (!actor || !settings || settings.throttle_authenticated_git_lfs_enabled !== true) return;
  const prefix = "throttle_authenticated_git_lfs";
  const period = Math.max(1, Number(settings.throttle_authenticated_git_lfs_period_in_seconds));
  const limit = Number(settings.throttle_authenticated_git_lfs_requests_per_period);
  const { count, resetEpoch, nowEpoch } = await hit(c.var.db(), `${prefix}:user:${actor.user.id}`, period);
  if (count > limit) throw throttled(prefix, settings, count, limit, period, resetEpoch, nowEpoch);
}
