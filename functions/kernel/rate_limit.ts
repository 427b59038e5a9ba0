import { sql } from "drizzle-orm";
import type { Executor } from "./db";
import { tooManyRequests } from "./errors";

/**
 * Gitlab::ApplicationRateLimiter for the limits stored as instance settings. A fixed one-minute window
 * counted in Postgres (`application_rate_limits`), so the limit holds across every Worker instance and
 * isolate; one statement per check, which also reads the configured limit.
 */
export type RateLimitKey = "issues_create" | "notes_create";

const SETTING_COLUMN: Record<RateLimitKey, string> = {
  issues_create: "issues_create_limit",
  notes_create: "notes_create_limit",
};

/** `check_rate_limit!(key, scope: [user])`: 429 with GitLab's body and `Retry-After` when over the limit (0 = unlimited). */
export async function checkRateLimit(db: Executor, key: RateLimitKey, userId: number): Promise<void> {
  const setting = sql.raw(SETTING_COLUMN[key]);
  const scope = `${key}:${userId}`;
  // The CTE drops this scope's past windows in the same statement, so the table stays small.
  const result = await db.execute<{ count: number; limit: number; retry_after: number }>(sql`
    WITH expired AS (
      DELETE FROM application_rate_limits WHERE key = ${scope} AND window_start < date_trunc('minute', now())
    )
    INSERT INTO application_rate_limits (key, window_start, count)
    VALUES (${scope}, date_trunc('minute', now()), 1)
    ON CONFLICT (key, window_start) DO UPDATE SET count = application_rate_limits.count + 1
    RETURNING count,
      COALESCE((SELECT ${setting} FROM application_settings WHERE id = 1), 300) AS limit,
      CEIL(EXTRACT(EPOCH FROM (window_start + interval '1 minute' - now())))::int AS retry_after`);
  const row = result.rows[0];
  const limit = Number(row.limit);
  if (limit > 0 && Number(row.count) > limit)
    throw tooManyRequests(Math.max(1, Number(row.retry_after)), {
      error: "This endpoint has been requested too many times. Try again later.",
    });
}
