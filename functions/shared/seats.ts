import { sql } from "drizzle-orm";
import type { Executor } from "../kernel/db";

/** Seat figures shared by the license (its counts) and the daily billable-members refresh (which records them). */

/**
 * Billable users of the instance (EE `User.billable`): active humans; with an Ultimate license guests
 * do not count, so only administrators and users with a role above guest somewhere.
 */
export function billableUsersCount(excludeGuests: boolean) {
  return sql<number>`(SELECT count(*)::int FROM users u WHERE u.state = 'active' AND u.user_type IS NULL
    AND (${!excludeGuests} OR u.admin OR EXISTS (SELECT 1 FROM members m WHERE m.user_id = u.id AND m.access_level > 10
      AND (m.expires_at IS NULL OR m.expires_at > current_date))))`;
}

/**
 * Records today's billable user count (`historical_data`), at most once per UTC day: the seat figures
 * behind `historical_max`, `maximum_user_count` and `overage`. One statement; idempotent.
 */
export async function recordHistoricalData(db: Executor): Promise<void> {
  const ultimate = sql`coalesce((SELECT l.plan = 'ultimate' FROM licenses l WHERE l.starts_at <= current_date ORDER BY l.id DESC LIMIT 1), true)`;
  await db.execute(sql`INSERT INTO historical_data (recorded_at, active_user_count)
    SELECT now(), CASE WHEN ${ultimate} THEN ${billableUsersCount(true)} ELSE ${billableUsersCount(false)} END
    WHERE NOT EXISTS (SELECT 1 FROM historical_data h WHERE h.recorded_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`);
}

