import { boolean, date, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { namespaces } from "./namespaces";
import { users } from "./users";

/**
 * The single application settings row (id 1). Settings that SQL elsewhere reads have their own column;
 * every other setting lives in `settings` (jsonb), merged over the defaults of
 * functions/application_settings/catalog.ts, which owns names, types, defaults and validations.
 */
export const applicationSettings = pgTable("application_settings", {
  id: integer().primaryKey(),
  adminMode: boolean().notNull().default(false),
  defaultProjectsLimit: integer().notNull().default(100000),
  defaultProjectVisibility: text().notNull().default("private"),
  defaultGroupVisibility: text().notNull().default("private"),
  issuesCreateLimit: integer().notNull().default(300),
  notesCreateLimit: integer().notNull().default(300),
  settings: jsonb().$type<Record<string, unknown>>().notNull().default({}),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Licenses (EE's `licenses`). `data` is the license as uploaded (null for the built-in one); the other
 * columns are what its verified payload says.
 */
export const licenses = pgTable("licenses", {
  id: id(),
  data: text(),
  builtIn: boolean().notNull().default(false),
  plan: text().notNull(),
  licensee: jsonb().$type<Record<string, string>>().notNull().default({}),
  startsAt: date({ mode: "string" }).notNull(),
  expiresAt: date({ mode: "string" }),
  /** `restricted_user_count`: null is no user limit. */
  userLimit: integer(),
  addOns: jsonb().$type<Record<string, number>>().notNull().default({}),
  createdAt: createdAt(),
});

/** EE's `historical_data`: the billable user count recorded by each daily refresh (seat figures). */
export const historicalData = pgTable(
  "historical_data",
  {
    id: id(),
    recordedAt: timestamptz().notNull().defaultNow(),
    activeUserCount: integer().notNull(),
  },
  (t) => [index("index_historical_data_on_recorded_at").on(t.recordedAt)],
);

/**
 * The billable-member snapshot of a root group (refreshed by the `0 12 * * *` cron, or on first read):
 * one row per billable user of the hierarchy, with what the list sorts on.
 */
export const billableMembers = pgTable(
  "billable_members",
  {
    rootGroupId: integer().notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
    maxAccessLevel: integer().notNull(),
    /** group_member | project_member | group_invite | project_invite */
    membershipType: text().notNull(),
    /** The earliest membership of the user in the hierarchy (joined sorts). */
    joinedAt: timestamptz().notNull(),
  },
  (t) => [primaryKey({ columns: [t.rootGroupId, t.userId] })],
);

/** When each root group's snapshot was last refreshed. */
export const billableMemberRefreshes = pgTable("billable_member_refreshes", {
  rootGroupId: integer()
    .primaryKey()
    .references(() => namespaces.id, { onDelete: "cascade" }),
  refreshedAt: timestamptz().notNull().defaultNow(),
});

/**
 * Notification settings (GitLab's `notification_settings`): the global row has no source; group and
 * project rows name their source. `events` holds the custom-level booleans that were set.
 */
export const notificationSettings = pgTable(
  "notification_settings",
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
    sourceType: text(), // null (global) | "Namespace" | "Project"
    sourceId: integer(),
    level: text().notNull(),
    events: jsonb().$type<Record<string, boolean>>().notNull().default({}),
    /** Global row only: `notification_email` (null means the primary e-mail). */
    notificationEmail: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_notification_settings_on_user_and_source").on(t.userId, t.sourceType, t.sourceId),
    uniqueIndex("index_notification_settings_global_on_user_id").on(t.userId).where(sql`source_type IS NULL`),
    index("index_notification_settings_on_source").on(t.sourceType, t.sourceId),
  ],
);

export type ApplicationSettings = typeof applicationSettings.$inferSelect;
export type License = typeof licenses.$inferSelect;
export type NotificationSetting = typeof notificationSettings.$inferSelect;

/**
 * Geo nodes (EE's `geo_nodes`). `url` and `internal_url` are stored with their ending slash, and
 * `internal_url` is null when it equals `url` (GeoNode#internal_url=). `selectiveSyncNamespaceIds` stands
 * for GitLab's geo_node_namespace_links rows. `oauthApplicationUid` marks the OAuth application a
 * secondary gets on save (null for the primary, or when it went missing and `repair` must make one).
 */
export const geoNodes = pgTable(
  "geo_nodes",
  {
    id: id(),
    name: text().notNull(),
    url: text().notNull(),
    internalUrl: text(),
    primary: boolean().notNull().default(false),
    enabled: boolean().notNull().default(true),
    filesMaxCapacity: integer().notNull().default(10),
    reposMaxCapacity: integer().notNull().default(25),
    verificationMaxCapacity: integer().notNull().default(100),
    containerRepositoriesMaxCapacity: integer().notNull().default(10),
    syncObjectStorage: boolean().notNull().default(false),
    selectiveSyncType: text(),
    selectiveSyncShards: text().array().notNull().default(sql`'{}'::text[]`),
    selectiveSyncNamespaceIds: integer().array().notNull().default(sql`'{}'::integer[]`),
    minimumReverificationInterval: integer().notNull().default(7),
    oauthApplicationUid: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_geo_nodes_on_lower_name").on(sql`lower(${t.name})`),
    // GeoNode's `validates :primary, uniqueness:` as a constraint, so that two concurrent creates cannot both win.
    uniqueIndex("index_geo_nodes_on_primary").on(t.primary).where(sql`"primary"`),
  ],
);

export type GeoNode = typeof geoNodes.$inferSelect;
