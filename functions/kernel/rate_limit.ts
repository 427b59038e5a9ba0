import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "./db";
import { tooManyRequests } from "./errors";

/**
 * Gitlab::ApplicationRateLimiter and Rack::Attack's throttles, on one fixed-window counter kept in
 * Postgres (`application_rate_limits`), so that a limit holds across every Worker instance and isolate.
 * A window of `period` seconds starts at a multiple of `period` since the epoch (Rack::Attack's
 * `(now / period).to_i`); each hit is one statement, which also drops the scope's past windows.
 */
export async function hit(db: Executor, scope: string, period: number, extra: SQL = sql`NULL`) {
  const result = await db.execute<{ count: number; extra: unknown; reset_epoch: number; now_epoch: number }>(sql`
    WITH w AS (SELECT to_timestamp(floor(extract(epoch FROM now()) / ${period}) * ${period}) AS start),
    expired AS (DELETE FROM application_rate_limits WHERE key = ${scope} AND window_start < (SELECT start FROM w))
    INSERT INTO application_rate_limits (key, window_start, count)
    SELECT ${scope}, start, 1 FROM w
    ON CONFLICT (key, window_start) DO UPDATE SET count = application_rate_limits.count + 1
    RETURNING count, ${extra} AS extra,
      ceil(extract(epoch FROM window_start) + ${period})::bigint AS reset_epoch, floor(extract(epoch FROM now()))::bigint AS now_epoch`);
  const row = result.rows[0];
  return { count: Number(row.count), extra: row.extra, resetEpoch: Number(row.reset_epoch), nowEpoch: Number(row.now_epoch) };
}

/** Limits stored as instance settings, checked by the endpoint (`check_rate_limit!`). */
export type RateLimitKey = "issues_create" | "notes_create" | "project_export" | "group_export" | "group_download_export";

/** Gitlab::ApplicationRateLimiter.rate_limits: each key's threshold (its setting, or the setting's default), per minute. */
const LIMIT_OF: Record<RateLimitKey, SQL> = {
  issues_create: sql`COALESCE((SELECT issues_create_limit FROM application_settings WHERE id = 1), 300)`,
  notes_create: sql`COALESCE((SELECT notes_create_limit FROM application_settings WHERE id = 1), 300)`,
  project_export: sql`COALESCE((SELECT (settings->>'project_export_limit')::int FROM application_settings WHERE id = 1), 6)`,
  group_export: sql`COALESCE((SELECT (settings->>'group_export_limit')::int FROM application_settings WHERE id = 1), 6)`,
  group_download_export: sql`COALESCE((SELECT (settings->>'group_download_export_limit')::int FROM application_settings WHERE id = 1), 1)`,
};

/**
 * `check_rate_limit!(key, scope:)`: 429 with GitLab's body and `Retry-After` when over the limit (0 = unlimited).
 * `scope` is what the limit is counted per (a user's id, or `user:group` for `[current_user, group]`).
 */
export async function checkRateLimit(db: Executor, key: RateLimitKey, scope: number | string): Promise<void> {
  const { count, extra, resetEpoch, nowEpoch } = await hit(db, `${key}:${scope}`, 60, LIMIT_OF[key]);
  const limit = Number(extra);
  if (limit > 0 && count > limit)
    throw tooManyRequests(Math.max(1, resetEpoch - nowEpoch), {
      error: "This endpoint has been requested too many times. Try again later.",
    });
}
