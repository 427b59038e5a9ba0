import { sql } from "drizzle-orm";
import type { Executor } from "../../kernel/db";
import { eventValue, type Level, type NotificationEvent } from "../../entities/notification_levels";

export type EffectiveSetting = {
  /** Never `global`: the level that applies after inheritance. */
  level: Exclude<Level, "global">;
  /** Where it came from. */
  source: "project" | "group" | "global" | "default";
  events: Record<string, boolean>;
};

/**
 * The notification setting that applies to a user for a project or group, resolved as GitLab's
 * NotificationRecipients do: the project's own setting, else (while `global`) the closest ancestor
 * group with a setting other than `global`, else the user's global setting (default `participating`).
 * One statement. For the code that will send notifications.
 */
export async function effectiveNotificationSetting(
  db: Executor,
  userId: number,
  target: { projectId: number } | { groupId: number },
): Promise<EffectiveSetting> {
  const groupIds =
    "projectId" in target
      ? sql`(SELECT n.traversal_ids FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE p.id = ${target.projectId})`
      : sql`(SELECT n.traversal_ids FROM namespaces n WHERE n.id = ${target.groupId})`;
  const projectId = "projectId" in target ? target.projectId : null;
  const result = await db.execute<{ kind: string; level: string; events: Record<string, boolean> }>(sql`
    SELECT kind, level, events FROM (
      SELECT 'project' AS kind, s.level, s.events, 0 AS rank FROM notification_settings s
        WHERE s.user_id = ${userId} AND s.source_type = 'Project' AND s.source_id = ${projectId} AND s.level <> 'global'
      UNION ALL
      SELECT 'group', s.level, s.events, 1 + (cardinality(g.ids) - array_position(g.ids, s.source_id)) FROM notification_settings s,
        (SELECT coalesce(${groupIds}, '{}'::int[]) AS ids) g
        WHERE s.user_id = ${userId} AND s.source_type = 'Namespace' AND s.source_id = ANY(g.ids) AND s.level <> 'global'
      UNION ALL
      SELECT 'global', s.level, s.events, 1000 FROM notification_settings s WHERE s.user_id = ${userId} AND s.source_type IS NULL
    ) found ORDER BY rank LIMIT 1`);
  const row = result.rows[0];
  if (!row || row.level === "global") return { level: "participating", source: "default", events: {} };
  return { level: row.level as EffectiveSetting["level"], source: row.kind as EffectiveSetting["source"], events: row.events ?? {} };
}

/** Whether a custom setting enables `event` (other levels do not read the event booleans). */
export function customEventEnabled(setting: EffectiveSetting, event: NotificationEvent): boolean {
  return setting.level === "custom" && eventValue(setting.events, event);
}
