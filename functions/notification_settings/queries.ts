import { and, eq, isNull, sql } from "drizzle-orm";
import { notificationSettings, type NotificationSetting } from "../../db/schema";
import type { Executor } from "../kernel/db";

/** The only Drizzle code of notification settings. `source` null is the global setting. */
export type Source = { type: "Namespace" | "Project"; id: number } | null;

const of = (userId: number, source: Source) =>
  source
    ? and(eq(notificationSettings.userId, userId), eq(notificationSettings.sourceType, source.type), eq(notificationSettings.sourceId, source.id))
    : and(eq(notificationSettings.userId, userId), isNull(notificationSettings.sourceType));

export async function findSetting(db: Executor, userId: number, source: Source): Promise<NotificationSetting | null> {
  const rows = await db.select().from(notificationSettings).where(of(userId, source)).limit(1);
  return rows[0] ?? null;
}

/** Creates or updates the user's row for the source; events are merged over the stored ones. One statement. */
export async function saveSetting(
  db: Executor,
  userId: number,
  source: Source,
  change: { level?: string; events: Record<string, boolean>; notificationEmail?: string | null },
  defaultLevel: string,
): Promise<NotificationSetting> {
  const events = JSON.stringify(change.events);
  const set: Record<string, unknown> = { events: sql`${notificationSettings.events} || ${events}::jsonb`, updatedAt: sql`now()` };
  if (change.level !== undefined) set.level = change.level;
  if (change.notificationEmail !== undefined) set.notificationEmail = change.notificationEmail;
  const rows = await db
    .insert(notificationSettings)
    .values({
      userId,
      sourceType: source?.type ?? null,
      sourceId: source?.id ?? null,
      level: change.level ?? defaultLevel,
      events: change.events,
      notificationEmail: change.notificationEmail ?? null,
    })
    .onConflictDoUpdate(
      source
        ? { target: [notificationSettings.userId, notificationSettings.sourceType, notificationSettings.sourceId], set }
        : { target: notificationSettings.userId, targetWhere: sql`source_type IS NULL`, set },
    )
    .returning();
  return rows[0];
}
