import { bigint, index, integer, pgTable, smallint, text } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";
import { projects } from "./projects";
import { oidColumn } from "./repository";
import { users } from "./users";

/**
 * GitLab's `events` (contribution events: GET /events, /users/:id/events, /projects/:id/events).
 * The one writer is a set of Postgres AFTER INSERT/DELETE triggers on the tables whose rows are the
 * events' causes (migration `events_triggers`; docs/architecture.md "Events"): no domain code inserts
 * here. `action` holds Event.actions' numbers (created 1, updated 2, closed 3, reopened 4, pushed 5,
 * commented 6, merged 7, joined 8, left 9, destroyed 10, expired 11, approved 12).
 */
export const events = pgTable(
  "events",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    authorId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** "Issue" | "MergeRequest" | "Note" | null (project created, joined, left, pushed). */
    targetType: text(),
    targetId: integer(),
    action: smallint().notNull(),
    groupId: integer(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("index_events_on_project_id_and_id").on(t.projectId, t.id),
    index("index_events_on_author_id_and_id").on(t.authorId, t.id),
    index("index_events_on_target_type_and_target_id").on(t.targetType, t.targetId),
  ],
);

/**
 * PushEventPayload: what a push event says (`push_data`). `action` 0 created, 1 removed, 2 pushed;
 * `ref_type` 0 branch, 1 tag, as GitLab's enums.
 */
export const pushEventPayloads = pgTable("push_event_payloads", {
  eventId: bigint({ mode: "number" })
    .primaryKey()
    .references(() => events.id, { onDelete: "cascade" }),
  commitCount: bigint({ mode: "number" }).notNull(),
  action: smallint().notNull(),
  refType: smallint().notNull(),
  commitFrom: oidColumn(),
  commitTo: oidColumn(),
  ref: text(),
  commitTitle: text(),
  refCount: integer(),
});

export type Event = typeof events.$inferSelect;
export type PushEventPayload = typeof pushEventPayloads.$inferSelect;
