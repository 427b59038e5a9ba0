import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, real, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { namespaces } from "./namespaces";
import { projects } from "./projects";
import { bytea } from "./repository";
import { users } from "./users";

/** CI tables (docs/ci.md, "Tables"), named after GitLab's. Statuses live here; the Durable Object keeps none. */

export const ciPipelines = pgTable(
  "ci_pipelines",
  {
    id: id(),
    iid: integer().notNull(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    ref: text().notNull(),
    tag: boolean().notNull().default(false),
    sha: text().notNull(),
    beforeSha: text().notNull().default("0000000000000000000000000000000000000000"),
    source: text().notNull(),
    status: text().notNull().default("created"),
    userId: integer().references(() => users.id, { onDelete: "set null" }),
    yamlErrors: text(),
    failureReason: text(),
    pushEventId: bigint({ mode: "number" }),
    parentPipelineId: integer(),
    sourceJobId: integer(),
    /** Pipelines run by a schedule or a trigger token (source `schedule`, `trigger`). */
    pipelineScheduleId: integer(),
    triggerId: integer(),
    coverage: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    startedAt: timestamptz(),
    finishedAt: timestamptz(),
    duration: integer(),
    lockVersion: integer().notNull().default(0),
  },
  (t) => [
    uniqueIndex("index_ci_pipelines_on_project_id_and_iid").on(t.projectId, t.iid),
    index("index_ci_pipelines_on_project_id_and_id").on(t.projectId, t.id),
    index("index_ci_pipelines_on_project_id_and_sha").on(t.projectId, t.sha),
    index("index_ci_pipelines_on_project_id_and_ref_and_id").on(t.projectId, t.ref, t.id),
    uniqueIndex("index_ci_pipelines_on_push_event_id").on(t.pushEventId),
  ],
);

export const ciStages = pgTable(
  "ci_stages",
  {
    id: id(),
    pipelineId: integer()
      .notNull()
      .references(() => ciPipelines.id, { onDelete: "cascade" }),
    name: text().notNull(),
    position: integer().notNull(),
    status: text().notNull().default("created"),
  },
  (t) => [uniqueIndex("index_ci_stages_on_pipeline_id_and_name").on(t.pipelineId, t.name)],
);

export const ciBuilds = pgTable(
  "ci_builds",
  {
    id: id(),
    pipelineId: integer()
      .notNull()
      .references(() => ciPipelines.id, { onDelete: "cascade" }),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    stageId: integer().references(() => ciStages.id, { onDelete: "cascade" }),
    stageIdx: integer().notNull(),
    stage: text().notNull(),
    name: text().notNull(),
    /** `build` (runs on a runner) or `bridge` (creates a downstream pipeline). */
    type: text().notNull().default("build"),
    status: text().notNull().default("created"),
    when: text().notNull().default("on_success"),
    allowFailure: boolean().notNull().default(false),
    allowFailureExitCodes: integer().array(),
    schedulingType: text().notNull().default("stage"),
    retried: boolean().notNull().default(false),
    processed: boolean().notNull().default(false),
    lockVersion: integer().notNull().default(0),
    tokenDigest: text(),
    runnerId: integer(),
    /** script steps, image, services, artifacts, cache, dependencies, retry, start_in, trigger… */
    options: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    yamlVariables: jsonb().$type<{ key: string; value: string }[]>().notNull().default([]),
    needs: jsonb().$type<{ name: string; artifacts: boolean; optional: boolean }[]>().notNull().default([]),
    tagList: text().array().notNull().default(sql`'{}'::text[]`),
    coverageRegex: text(),
    coverage: real(),
    failureReason: text(),
    exitCode: integer(),
    timeout: integer(),
    traceSize: integer().notNull().default(0),
    userId: integer().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    queuedAt: timestamptz(),
    startedAt: timestamptz(),
    finishedAt: timestamptz(),
    scheduledAt: timestamptz(),
    erasedAt: timestamptz(),
    artifactsExpireAt: timestamptz(),
  },
  (t) => [
    index("index_ci_builds_pending_claim").on(t.id).where(sql`${t.status} = 'pending' AND ${t.type} = 'build'`),
    index("index_ci_builds_on_pipeline_id_and_retried_and_stage_idx").on(t.pipelineId, t.retried, t.stageIdx),
    index("index_ci_builds_on_project_id_and_id").on(t.projectId, t.id),
    index("index_ci_builds_on_status_and_updated_at").on(t.status, t.updatedAt),
    uniqueIndex("index_ci_builds_on_token_digest").on(t.tokenDigest),
  ],
);

export const ciPipelineVariables = pgTable(
  "ci_pipeline_variables",
  {
    id: id(),
    pipelineId: integer()
      .notNull()
      .references(() => ciPipelines.id, { onDelete: "cascade" }),
    key: text().notNull(),
    value: text().notNull(),
    variableType: text().notNull().default("env_var"),
  },
  (t) => [index("index_ci_pipeline_variables_on_pipeline_id").on(t.pipelineId)],
);

/** Project CI/CD variables (`/projects/:id/variables`). */
export const ciVariables = pgTable(
  "ci_variables",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    key: text().notNull(),
    value: text().notNull(),
    variableType: text().notNull().default("env_var"),
    protected: boolean().notNull().default(false),
    masked: boolean().notNull().default(false),
    raw: boolean().notNull().default(false),
    environmentScope: text().notNull().default("*"),
    description: text(),
  },
  (t) => [uniqueIndex("index_ci_variables_on_project_id_key_scope").on(t.projectId, t.key, t.environmentScope)],
);

export const ciJobArtifacts = pgTable(
  "ci_job_artifacts",
  {
    id: id(),
    jobId: integer()
      .notNull()
      .references(() => ciBuilds.id, { onDelete: "cascade" }),
    projectId: integer().notNull(),
    fileType: text().notNull(),
    fileFormat: text().notNull(),
    filename: text().notNull(),
    size: bigint({ mode: "number" }).notNull(),
    r2Key: text().notNull(),
    expireAt: timestamptz(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("index_ci_job_artifacts_on_job_id_and_file_type").on(t.jobId, t.fileType)],
);

export const ciBuildTraceChunks = pgTable(
  "ci_build_trace_chunks",
  {
    buildId: integer()
      .notNull()
      .references(() => ciBuilds.id, { onDelete: "cascade" }),
    offset: integer().notNull(),
    data: bytea().notNull(),
  },
  (t) => [primaryKey({ columns: [t.buildId, t.offset] })],
);

export const ciRunners = pgTable(
  "ci_runners",
  {
    id: id(),
    tokenDigest: text().notNull(),
    /** instance_type, group_type or project_type. */
    runnerType: text().notNull(),
    description: text().notNull().default(""),
    active: boolean().notNull().default(true),
    runUntagged: boolean().notNull().default(true),
    tagList: text().array().notNull().default(sql`'{}'::text[]`),
    locked: boolean().notNull().default(false),
    accessLevel: text().notNull().default("not_protected"),
    maximumTimeout: integer(),
    name: text(),
    version: text(),
    revision: text(),
    platform: text(),
    architecture: text(),
    ipAddress: text(),
    contactedAt: timestamptz(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_ci_runners_on_token_digest").on(t.tokenDigest)],
);

export const ciRunnerProjects = pgTable(
  "ci_runner_projects",
  {
    runnerId: integer()
      .notNull()
      .references(() => ciRunners.id, { onDelete: "cascade" }),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.runnerId, t.projectId] }), index("index_ci_runner_projects_on_project_id").on(t.projectId)],
);

export const ciRunnerNamespaces = pgTable(
  "ci_runner_namespaces",
  {
    runnerId: integer()
      .notNull()
      .references(() => ciRunners.id, { onDelete: "cascade" }),
    namespaceId: integer()
      .notNull()
      .references(() => namespaces.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.runnerId, t.namespaceId] }), index("index_ci_runner_namespaces_on_namespace_id").on(t.namespaceId)],
);

/** Registration tokens: the instance's (project_id and namespace_id null), a group's or a project's. */
export const ciRegistrationTokens = pgTable(
  "ci_registration_tokens",
  {
    id: id(),
    tokenDigest: text().notNull(),
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    namespaceId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("index_ci_registration_tokens_on_token_digest").on(t.tokenDigest)],
);

/** One row: bumped whenever a job becomes pending; sent as `X-GitLab-Last-Update`. */
export const ciQueueState = pgTable("ci_queue_state", {
  id: integer().primaryKey(),
  version: bigint({ mode: "number" }).notNull().default(0),
});

export type CiPipeline = typeof ciPipelines.$inferSelect;
export type CiStage = typeof ciStages.$inferSelect;
export type CiBuild = typeof ciBuilds.$inferSelect;
export type CiPipelineVariable = typeof ciPipelineVariables.$inferSelect;
export type CiVariable = typeof ciVariables.$inferSelect;
export type CiJobArtifact = typeof ciJobArtifacts.$inferSelect;
export type CiRunner = typeof ciRunners.$inferSelect;
