import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { namespaces } from "./namespaces";
import { projects } from "./projects";
import { users } from "./users";

/**
 * CI settings beyond the pipeline engine: group and instance CI/CD variables (the project's are
 * `ci_variables` in ci.ts), pipeline schedules and their variables, pipeline trigger tokens. Named
 * after GitLab's tables.
 */

export const ciGroupVariables = pgTable(
  "ci_group_variables",
  {
    id: id(),
    groupId: integer()
      .notNull()
      .references(() => namespaces.id, { onDelete: "cascade" }),
    key: text().notNull(),
    value: text().notNull(),
    variableType: text().notNull().default("env_var"),
    protected: boolean().notNull().default(false),
    masked: boolean().notNull().default(false),
    raw: boolean().notNull().default(false),
    environmentScope: text().notNull().default("*"),
    description: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_ci_group_variables_on_group_id_key_scope").on(t.groupId, t.key, t.environmentScope)],
);

export const ciInstanceVariables = pgTable(
  "ci_instance_variables",
  {
    id: id(),
    key: text().notNull(),
    value: text().notNull(),
    variableType: text().notNull().default("env_var"),
    protected: boolean().notNull().default(false),
    masked: boolean().notNull().default(false),
    raw: boolean().notNull().default(false),
    description: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_ci_instance_variables_on_key").on(t.key)],
);

export const ciPipelineSchedules = pgTable(
  "ci_pipeline_schedules",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    ownerId: integer().references(() => users.id, { onDelete: "set null" }),
    description: text(),
    /** Stored as GitLab stores it: the full ref (`refs/heads/main`) once created through the API. */
    ref: text(),
    cron: text().notNull(),
    cronTimezone: text().notNull().default("UTC"),
    nextRunAt: timestamptz(),
    active: boolean().notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_ci_pipeline_schedules_on_project_id").on(t.projectId), index("index_ci_pipeline_schedules_on_next_run_at").on(t.nextRunAt).where(sql`${t.active}`)],
);

export const ciPipelineScheduleVariables = pgTable(
  "ci_pipeline_schedule_variables",
  {
    id: id(),
    pipelineScheduleId: integer()
      .notNull()
      .references(() => ciPipelineSchedules.id, { onDelete: "cascade" }),
    key: text().notNull(),
    value: text().notNull(),
    variableType: text().notNull().default("env_var"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_ci_pipeline_schedule_variables_on_schedule_id_and_key").on(t.pipelineScheduleId, t.key)],
);

export const ciTriggers = pgTable(
  "ci_triggers",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    ownerId: integer().references(() => users.id, { onDelete: "set null" }),
    description: text(),
    /** Kept in clear: GitLab shows the whole token to the trigger's owner on every read. */
    token: text().notNull(),
    lastUsed: timestamptz(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_ci_triggers_on_token").on(t.token), index("index_ci_triggers_on_project_id").on(t.projectId)],
);

export type CiGroupVariable = typeof ciGroupVariables.$inferSelect;
export type CiInstanceVariable = typeof ciInstanceVariables.$inferSelect;
export type CiPipelineSchedule = typeof ciPipelineSchedules.$inferSelect;
export type CiPipelineScheduleVariable = typeof ciPipelineScheduleVariables.$inferSelect;
export type CiTrigger = typeof ciTriggers.$inferSelect;
