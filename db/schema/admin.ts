// Instance administration: broadcast messages, instance feature gates (GitLab's Flipper tables),
// push rules, the queue consumers' counters and daily fetch counts.
import { bigint, boolean, date, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { namespaces } from "./namespaces";
import { projects } from "./projects";

/** `broadcast_messages` (app/models/broadcast_message.rb). */
export const broadcastMessages = pgTable("broadcast_messages", {
  id: id(),
  message: text().notNull(),
  startsAt: timestamptz().notNull(),
  endsAt: timestamptz().notNull(),
  color: text(),
  font: text(),
  targetAccessLevels: integer().array().notNull().default(sql`'{}'::integer[]`),
  targetPath: text(),
  /** `banner` or `notification` (BroadcastMessage.broadcast_types). */
  broadcastType: text().notNull().default("banner"),
  dismissable: boolean(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** Flipper's `features`: a feature exists once it has been set, whatever its gates. */
export const features = pgTable("features", {
  key: text().primaryKey(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Flipper's `feature_gates`: `key` is `boolean`, `percentage_of_time`, `percentage_of_actors` (one row
 * each, `value` the number or `true`) or `actors` (one row per actor, `value` its flipper id such as
 * `User:1`).
 */
export const featureGates = pgTable(
  "feature_gates",
  {
    id: id(),
    featureKey: text()
      .notNull()
      .references(() => features.key, { onDelete: "cascade" }),
    key: text().notNull(),
    value: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("index_feature_gates_on_feature_key_and_key_and_value").on(t.featureKey, t.key, t.value)],
);

/** EE's `push_rules`: one per project or per group (its default for new projects is not copied here). */
export const pushRules = pgTable(
  "push_rules",
  {
    id: id(),
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    groupId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    commitMessageRegex: text(),
    commitMessageNegativeRegex: text(),
    branchNameRegex: text(),
    authorEmailRegex: text(),
    fileNameRegex: text(),
    /** MiB; 0 is no limit. */
    maxFileSize: integer().notNull().default(0),
    denyDeleteTag: boolean().notNull().default(false),
    memberCheck: boolean().notNull().default(false),
    preventSecrets: boolean().notNull().default(false),
    commitCommitterCheck: boolean().notNull().default(false),
    rejectUnsignedCommits: boolean().notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_push_rules_on_project_id").on(t.projectId), uniqueIndex("index_push_rules_on_group_id").on(t.groupId)],
);

/**
 * The queue consumers' own counters, one row per queue (functions/queue.ts): what GitLab's
 * `/sidekiq/*` endpoints read from Sidekiq's Redis. `busy` counts batches being consumed now.
 */
export const queueMetrics = pgTable("queue_metrics", {
  queue: text().primaryKey(),
  enqueued: bigint({ mode: "number" }).notNull().default(0),
  processed: bigint({ mode: "number" }).notNull().default(0),
  failed: bigint({ mode: "number" }).notNull().default(0),
  retried: bigint({ mode: "number" }).notNull().default(0),
  busy: integer().notNull().default(0),
  /** The latency (ms between send and consumption) of the last message consumed. */
  latencyMs: bigint({ mode: "number" }).notNull().default(0),
  startedAt: timestamptz().notNull().defaultNow(),
  lastSeenAt: timestamptz(),
});

/** `project_daily_statistics`: git fetches (clones, fetches, pulls) per project and day. */
export const projectDailyStatistics = pgTable(
  "project_daily_statistics",
  {
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    date: date({ mode: "string" }).notNull(),
    fetchCount: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.date] }), index("index_project_daily_statistics_on_date").on(t.date)],
);

export type BroadcastMessage = typeof broadcastMessages.$inferSelect;
export type FeatureGate = typeof featureGates.$inferSelect;
export type PushRule = typeof pushRules.$inferSelect;
export type QueueMetric = typeof queueMetrics.$inferSelect;
