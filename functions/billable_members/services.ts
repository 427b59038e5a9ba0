import type { Database, Executor } from "../kernel/db";
import { recordHistoricalData } from "../shared/seats";
import * as q from "./queries";

/** Root groups refreshed per cron run: the run stays bounded; groups left over refresh on their next read or run. */
export const REFRESH_BATCH = 2000;

/** The snapshot of a root group, made now if it has none yet (first read). */
export async function ensureSnapshot(db: Executor, rootGroupId: number): Promise<void> {
  if (!(await q.hasSnapshot(db, rootGroupId))) await q.refreshSnapshot(db, rootGroupId);
}

/**
 * The `0 12 * * *` task: refreshes the snapshot of every root group not yet refreshed since the start
 * of this run's hour (oldest first, at most REFRESH_BATCH), then records the day's seat figures.
 * Idempotent: a second run in the same hour finds nothing stale and records no second figure that day.
 */
export async function refreshBillableMembers(db: Database, now = new Date()): Promise<{ refreshed: number }> {
  const hourStart = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
  const groups = await q.staleRootGroups(db, hourStart, REFRESH_BATCH);
  for (const id of groups) await db.transaction((tx) => q.refreshSnapshot(tx, id));
  await recordHistoricalData(db);
  return { refreshed: groups.length };
}
