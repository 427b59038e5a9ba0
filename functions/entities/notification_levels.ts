/**
 * NotificationSetting levels and e-mail events (app/models/notification_setting.rb): pure
 * data, with the presenters because the setting entity lists the events; the recipients resolver reads it too.
 */
export const LEVELS = ["disabled", "participating", "watch", "global", "mention", "custom"] as const;
export type Level = (typeof LEVELS)[number];

export const EVENTS = [
  "new_note",
  "new_issue",
  "reopen_issue",
  "close_issue",
  "reassign_issue",
  "issue_due",
  "new_merge_request",
  "push_to_merge_request",
  "reopen_merge_request",
  "close_merge_request",
  "reassign_merge_request",
  "merge_merge_request",
  "failed_pipeline",
  "fixed_pipeline",
  "success_pipeline",
  "moved_project",
  "merge_when_pipeline_succeeds",
  "new_epic",
] as const;
export type NotificationEvent = (typeof EVENTS)[number];

/** `email_events(source)`: `new_epic` (EE) is a group and global event, not a project one. */
export function eventsFor(sourceType: "Project" | "Namespace" | null): readonly NotificationEvent[] {
  return sourceType === "Project" ? EVENTS.filter((e) => e !== "new_epic") : EVENTS;
}

/** Unset booleans read false, except `failed_pipeline` and `fixed_pipeline`, which read true (`bool.nil? || bool`). */
export function eventValue(events: Record<string, boolean>, event: NotificationEvent): boolean {
  const stored = events[event];
  if (stored === undefined || stored === null) return event === "failed_pipeline" || event === "fixed_pipeline";
  return stored;
}
