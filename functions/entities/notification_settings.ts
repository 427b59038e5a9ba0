import type { NotificationSetting } from "../../db/schema";
import type { PresentContext } from "../kernel/present";
import { eventsFor, eventValue } from "./notification_levels";

export type SettingView = Pick<NotificationSetting, "level" | "events" | "sourceType">;

/** API::Entities::NotificationSetting: `level`, and `events` at the custom level. */
export function notificationSetting(row: SettingView, _ctx: PresentContext) {
  return {
    level: row.level,
    ...(row.level === "custom"
      ? { events: Object.fromEntries(eventsFor(row.sourceType as "Project" | "Namespace" | null).map((e) => [e, eventValue(row.events, e)])) }
      : {}),
  };
}

/** API::Entities::GlobalNotificationSetting: adds `notification_email` (the primary e-mail when unset). */
export function globalNotificationSetting(row: SettingView & { notificationEmail: string | null }, ctx: PresentContext & { email: string }) {
  return { ...notificationSetting(row, ctx), notification_email: row.notificationEmail ?? ctx.email };
}
