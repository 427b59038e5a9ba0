// Operations: environments, feature flags (new-version strategies and legacy scopes), user
// lists, and the Unleash client token of a project. GitLab's table names.
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { projects } from "./projects";
import { ciBuilds } from "./ci";
import { users } from "./users";

/** Deployment targets that flag strategies are scoped to (`production`, `review/*` …). */
export const environments = pgTable(
  "environments",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    name: text().notNull(),
    slug: text().notNull(),
    externalUrl: text(),
    state: text().notNull().default("available"), // available | stopping | stopped
    tier: text().notNull().default("other"), // production | staging | testing | development | other
    /** The folder of the name (`review` for `review/feature-1`), null for a name without `/`. */
    environmentType: text(),
    /** `environment:auto_stop_in` of the last successful deployment; the cron stops the environment then. */
    autoStopAt: timestamptz(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_environments_on_project_id_and_name").on(t.projectId, t.name),
    uniqueIndex("index_environments_on_project_id_and_slug").on(t.projectId, t.slug),
    index("index_environments_on_project_id_and_state_and_id").on(t.projectId, t.state, t.id),
    index("index_environments_on_auto_stop_at").on(t.autoStopAt).where(sql`${t.autoStopAt} IS NOT NULL AND ${t.state} = 'available'`),
  ],
);

/**
 * Deployments (app/models/deployment.rb): one per `environment:` job with `action: start` (its
 * `deployable`), or created through `POST /projects/:id/deployments` without a job. A job's deployment
 * follows the job's status in the statement that writes it (trigger `ci_builds_sync_deployments`,
 * migration 0051).
 */
export const deployments = pgTable(
  "deployments",
  {
    id: id(),
    iid: integer().notNull(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    environmentId: integer()
      .notNull()
      .references(() => environments.id, { onDelete: "cascade" }),
    ref: text().notNull(),
    tag: boolean().notNull().default(false),
    sha: text().notNull(),
    status: text().notNull().default("created"), // created | running | success | failed | canceled | skipped | blocked
    deployableId: integer().references(() => ciBuilds.id, { onDelete: "set null" }),
    userId: integer().references(() => users.id, { onDelete: "set null" }),
    onStop: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: timestamptz(),
  },
  (t) => [
    uniqueIndex("index_deployments_on_project_id_and_iid").on(t.projectId, t.iid),
    index("index_deployments_on_project_id_and_id").on(t.projectId, t.id),
    index("index_deployments_on_project_id_and_updated_at_and_id").on(t.projectId, t.updatedAt, t.id),
    index("index_deployments_on_project_id_and_finished_at").on(t.projectId, t.finishedAt).where(sql`${t.status} = 'success'`),
    index("index_deployments_on_environment_id_and_status_and_id").on(t.environmentId, t.status, t.id),
    uniqueIndex("index_deployments_on_deployable_id").on(t.deployableId),
  ],
);

export const operationsFeatureFlags = pgTable(
  "operations_feature_flags",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    iid: integer().notNull(),
    name: text().notNull(),
    description: text(),
    active: boolean().notNull().default(true),
    version: text().notNull().default("new_version_flag"), // new_version_flag | legacy_flag
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_operations_feature_flags_on_project_id_and_name").on(t.projectId, t.name),
    uniqueIndex("index_operations_feature_flags_on_project_id_and_iid").on(t.projectId, t.iid),
    index("index_operations_feature_flags_on_project_id_and_active").on(t.projectId, t.active, t.name),
  ],
);

export const operationsUserLists = pgTable(
  "operations_user_lists",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    iid: integer().notNull(),
    name: text().notNull(),
    userXids: text().notNull().default(""),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_operations_user_lists_on_project_id_and_name").on(t.projectId, t.name),
    uniqueIndex("index_operations_user_lists_on_project_id_and_iid").on(t.projectId, t.iid),
  ],
);

/** Strategies of new-version flags; `user_list_id` only for `gitlabUserList` (a list in use cannot be deleted). */
export const operationsStrategies = pgTable(
  "operations_strategies",
  {
    id: id(),
    featureFlagId: integer().notNull().references(() => operationsFeatureFlags.id, { onDelete: "cascade" }),
    name: text().notNull(),
    parameters: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    userListId: integer().references(() => operationsUserLists.id, { onDelete: "restrict" }),
  },
  (t) => [index("index_operations_strategies_on_feature_flag_id").on(t.featureFlagId), index("index_operations_strategies_on_user_list_id").on(t.userListId)],
);

/** Environment scopes of a strategy. */
export const operationsScopes = pgTable(
  "operations_scopes",
  {
    id: id(),
    strategyId: integer().notNull().references(() => operationsStrategies.id, { onDelete: "cascade" }),
    environmentScope: text().notNull(),
  },
  (t) => [index("index_operations_scopes_on_strategy_id").on(t.strategyId)],
);

/** Scopes of legacy flags (version 1): each with its own `active` and strategies. */
export const operationsFeatureFlagScopes = pgTable(
  "operations_feature_flag_scopes",
  {
    id: id(),
    featureFlagId: integer().notNull().references(() => operationsFeatureFlags.id, { onDelete: "cascade" }),
    active: boolean().notNull(),
    environmentScope: text().notNull().default("*"),
    strategies: jsonb().$type<{ name: string; parameters: Record<string, unknown> }[]>().notNull().default([{ name: "default", parameters: {} }]),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_feature_flag_scopes_on_flag_id_and_environment_scope").on(t.featureFlagId, t.environmentScope)],
);

/**
 * The Unleash instance id of a project (`Operations::FeatureFlagsClient`).
 * Differs from GitLab: the token is kept in clear (GitLab encrypts it with its database key) so that
 * Maintainers can read it back; it only lets a client read the project's flags.
 */
export const operationsFeatureFlagsClients = pgTable(
  "operations_feature_flags_clients",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    token: text().notNull(),
    lastFeatureFlagUpdatedAt: timestamptz(),
  },
  (t) => [
    uniqueIndex("index_operations_feature_flags_clients_on_project_id").on(t.projectId),
    uniqueIndex("index_operations_feature_flags_clients_on_token").on(t.token),
  ],
);

/** `POST client/register`: the applications that read the flags, one row per app and instance. */
export const operationsUnleashClients = pgTable(
  "operations_unleash_clients",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    appName: text().notNull(),
    instanceId: text().notNull(),
    sdkVersion: text(),
    strategies: text().array().notNull().default(sql`'{}'::text[]`),
    interval: integer(),
    startedAt: timestamptz(),
    lastSeenAt: timestamptz().notNull().defaultNow(),
  },
  (t) => [uniqueIndex("index_operations_unleash_clients_on_project_app_instance").on(t.projectId, t.appName, t.instanceId)],
);

/** `POST client/metrics`: yes/no evaluation counts per flag, application and hour. */
export const operationsUnleashMetrics = pgTable(
  "operations_unleash_metrics",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    appName: text().notNull(),
    featureName: text().notNull(),
    hour: timestamptz().notNull(),
    yes: integer().notNull().default(0),
    no: integer().notNull().default(0),
  },
  (t) => [uniqueIndex("index_operations_unleash_metrics_on_project_app_feature_hour").on(t.projectId, t.appName, t.featureName, t.hour)],
);

export type Environment = typeof environments.$inferSelect;
export type Deployment = typeof deployments.$inferSelect;
export type FeatureFlag = typeof operationsFeatureFlags.$inferSelect;
export type UserList = typeof operationsUserLists.$inferSelect;
export type Strategy = typeof operationsStrategies.$inferSelect;
export type StrategyScope = typeof operationsScopes.$inferSelect;
export type LegacyScope = typeof operationsFeatureFlagScopes.$inferSelect;
export type FeatureFlagsClient = typeof operationsFeatureFlagsClients.$inferSelect;
