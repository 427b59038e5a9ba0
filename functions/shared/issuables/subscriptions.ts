import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../kernel/db";

/**
 * Subscriptions (app/models/concerns/subscribable.rb, `subscriptions` table): the one writer and the
 * one reader of explicit subscriptions to issues, merge requests and labels. Notifications are not
 * sent (there is no notification service); the rows decide `subscribed` in the entities.
 */

export type SubscribableType = "Issue" | "MergeRequest" | "Label";

/**
 * The actor's explicit subscription to the row whose id is `subscribableId` (a column), at `projectId`
 * (a column, a number, or null for a group-level label): `true`, `false` (explicitly unsubscribed) or
 * NULL (none: the entity falls back to `subscribed_without_subscriptions?`). For preload selections.
 */
export function subscriptionSql(type: SubscribableType, subscribableId: SQL, actorId: number | SQL | null, projectId: SQL | number | null): SQL<boolean | null> {
  if (actorId === null) return sql<boolean | null>`NULL::boolean`;
  const project = projectId === null ? sql`s.project_id IS NULL` : sql`s.project_id = ${projectId}`;
  return sql<boolean | null>`(SELECT s.subscribed FROM subscriptions s WHERE s.subscribable_type = ${type}
    AND s.subscribable_id = ${subscribableId} AND s.user_id = ${actorId} AND ${project} LIMIT 1)`;
}

/**
 * `Subscribable#subscribe` / `#unsubscribe`: `unsubscribe_from_other_levels` (a project-level
 * subscription unsubscribes the user at the group level and the other way round), then the row at
 * this level is created or set. One statement; the unique index settles a race on the project level.
 */
export async function setSubscription(
  db: Executor,
  s: { type: SubscribableType; subscribableId: number; userId: number; projectId: number | null; subscribed: boolean },
): Promise<void> {
  const otherLevels = s.projectId === null ? sql`project_id IS NOT NULL` : sql`project_id IS NULL`;
  const sameLevel = s.projectId === null ? sql`project_id IS NULL` : sql`project_id = ${s.projectId}`;
  await db.execute(sql`
    WITH others AS (
      UPDATE subscriptions SET subscribed = false, updated_at = now()
        WHERE subscribable_type = ${s.type} AND subscribable_id = ${s.subscribableId} AND user_id = ${s.userId}
          AND ${otherLevels}
        RETURNING 1),
    updated AS (
      UPDATE subscriptions SET subscribed = ${s.subscribed}, updated_at = now()
        WHERE subscribable_type = ${s.type} AND subscribable_id = ${s.subscribableId} AND user_id = ${s.userId} AND ${sameLevel}
        RETURNING id)
    INSERT INTO subscriptions (user_id, subscribable_type, subscribable_id, project_id, subscribed)
      SELECT ${s.userId}, ${s.type}, ${s.subscribableId}, ${s.projectId}::int, ${s.subscribed}
      WHERE NOT EXISTS (SELECT 1 FROM updated)
    ON CONFLICT (subscribable_id, subscribable_type, user_id, project_id) DO UPDATE SET subscribed = EXCLUDED.subscribed, updated_at = now()`);
}
