import { eq, sql } from "drizzle-orm";
import { userStatuses, type UserStatus } from "../../db/schema";
import type { Executor } from "../kernel/db";

/** The only Drizzle code of user statuses. */

/**
 * The user's status while it is shown: one past its `clear_status_at` is deleted by GitLab's
 * ClearStatusWorker cron; here it is simply not read (and overwritten or removed by the next write).
 */
export async function findStatus(db: Executor, userId: number): Promise<UserStatus | null> {
  const rows = await db
    .select()
    .from(userStatuses)
    .where(sql`${userStatuses.userId} = ${userId} AND (${userStatuses.clearStatusAt} IS NULL OR ${userStatuses.clearStatusAt} > now())`)
    .limit(1);
  return rows[0] ?? null;
}

export type StatusChanges = { emoji?: string; message?: string | null; availability?: number; clearStatusAt?: Date | null };

/**
 * `user_status.update(params)` on the status or a new one (SetStatusService#set_status), one
 * statement. A status past its clearing time counts as absent: its columns start from the defaults.
 */
export async function upsertStatus(db: Executor, userId: number, set: StatusChanges): Promise<UserStatus> {
  const expired = sql`(${userStatuses.clearStatusAt} IS NOT NULL AND ${userStatuses.clearStatusAt} <= now())`;
  const keep = <T>(column: typeof userStatuses.emoji | typeof userStatuses.message | typeof userStatuses.availability | typeof userStatuses.clearStatusAt, fallback: T) =>
    sql`CASE WHEN ${expired} THEN ${fallback} ELSE ${column} END`;
  const rows = await db
    .insert(userStatuses)
    .values({
      userId,
      emoji: set.emoji ?? "speech_balloon",
      message: set.message ?? null,
      availability: set.availability ?? 0,
      clearStatusAt: set.clearStatusAt ?? null,
    })
    .onConflictDoUpdate({
      target: userStatuses.userId,
      set: {
        emoji: set.emoji !== undefined ? set.emoji : keep(userStatuses.emoji, "speech_balloon"),
        message: set.message !== undefined ? set.message : keep(userStatuses.message, null),
        availability: set.availability !== undefined ? set.availability : keep(userStatuses.availability, 0),
        clearStatusAt: set.clearStatusAt !== undefined ? set.clearStatusAt : keep(userStatuses.clearStatusAt, null),
      },
    })
    .returning();
  return rows[0];
}

/** SetStatusService#remove_status: `UserStatus.delete(user.id)`. */
export async function deleteStatus(db: Executor, userId: number): Promise<void> {
  await db.delete(userStatuses).where(eq(userStatuses.userId, userId));
}
