import * as z from "zod";
import type { NotificationSetting } from "../../db/schema";
import type { PresentContext } from "../kernel/present";
import { eventsFor, eventValue } from "./notification_levels";

export type SettingView = Pick<NotificationSetting, "level" | "events" | "sourceType">;

/** API::Entities::NotificationSetting: `level`, and `events` at the custom level. */
export const NotificationSettingEntity = z
  .object({ level: z.string(), events: z.record(z.string(), z.boolean()).optional() })
  .meta({ id: "NotificationSetting" });
export function notificationSetting(row: SettingView, _ctx: PresentContext): z.output<typeof NotificationSettingEntity> {
  return {
    level: row.level,
    ...(row.level === "custom"
      ? { events: Object.fromEntries(eventsFor(row.sourceType as "Project" | "Namespace" | null).map((e) => [e, eventValue(row.events, e)])) }
      : {}),
  };
}

/** API::Entities::GlobalNotificationSetting: adds `notification_email` (the primary e-mail when unset). */
export const GlobalNotificationSetting = NotificationSettingEntity.extend({ notification_email: z.string() }).meta({ id: "GlobalNotificationSetting" });
export function globalNotificationSetting(
  row: SettingView & { notificationEmail: string | null },
  ctx: PresentContext & { email: string },
): z.output<typeof GlobalNotificationSetting> {
  return { ...notificationSetting(row, ctx), notification_email: row.notificationEmail ?? ctx.email };
}
