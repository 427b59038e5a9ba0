import { desc, eq, lte, sql } from "drizzle-orm";
import { historicalData, licenses, type License } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { billableUsersCount } from "../shared/seats";
import type { LicenseRow } from "../entities/license";

/** The only Drizzle code of the license domain, and the seat figures it reports. */

/** Every license (newest first) with the seat figures, in one statement. */
export async function listLicenses(db: Executor, opts: { currentOnly?: boolean; id?: number } = {}): Promise<LicenseRow[]> {
  const ultimate = sql`(SELECT l2.plan = 'ultimate' FROM licenses l2 WHERE l2.starts_at <= current_date ORDER BY l2.id DESC LIMIT 1)`;
  const rows = await db
    .select({
      license: licenses,
      activeUsers: sql<number>`(SELECT CASE WHEN coalesce(${ultimate}, true) THEN ${billableUsersCount(true)} ELSE ${billableUsersCount(false)} END)`,
      historicalMax: sql<number>`(SELECT coalesce(max(h.active_user_count), 0)::int FROM historical_data h
        WHERE h.recorded_at >= ${licenses.startsAt}::timestamptz AND (${licenses.expiresAt} IS NULL OR h.recorded_at < (${licenses.expiresAt} + 1)::timestamptz))`,
      dailyCount: sql<number | null>`(SELECT h.active_user_count FROM historical_data h ORDER BY h.recorded_at DESC, h.id DESC LIMIT 1)`,
    })
    .from(licenses)
    .where(opts.id !== undefined ? eq(licenses.id, opts.id) : opts.currentOnly ? lte(licenses.startsAt, sql`current_date`) : undefined)
    .orderBy(desc(licenses.id))
    .limit(opts.currentOnly || opts.id !== undefined ? 1 : 100);
  return rows.map((r) => ({
    ...r.license,
    activeUsers: Number(r.activeUsers),
    historicalMax: Number(r.historicalMax),
    dailyCount: r.dailyCount === null ? null : Number(r.dailyCount),
  }));
}

export async function insertLicense(db: Executor, values: typeof licenses.$inferInsert): Promise<License> {
  const rows = await db.insert(licenses).values(values).returning();
  return rows[0];
}

export async function deleteLicense(db: Executor, id: number): Promise<boolean> {
  const rows = await db.delete(licenses).where(eq(licenses.id, id)).returning({ id: licenses.id });
  return rows.length > 0;
}

export async function latestHistoricalData(db: Executor) {
  const rows = await db.select().from(historicalData).orderBy(desc(historicalData.recordedAt)).limit(1);
  return rows[0] ?? null;
}
