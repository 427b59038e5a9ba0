// External commit statuses (`POST /projects/:id/statuses/:sha`, GitLab's GenericCommitStatus). CI jobs
// live in their own tables (docs/ci.md); the commit statuses list reads this table, and the CI domain may
// link a status to its pipeline through `pipeline_id`.
import { boolean, index, integer, pgTable, real, text } from "drizzle-orm/pg-core";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { projects } from "./projects";
import { oidColumn } from "./repository";
import { users } from "./users";

export const ciCommitStatuses = pgTable(
  "ci_commit_statuses",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** The pipeline this status belongs to, once pipelines exist (no foreign key: CI owns that table). */
    pipelineId: integer(),
    sha: oidColumn().notNull(),
    ref: text(),
    name: text().notNull().default("default"),
    stage: text().notNull().default("external"),
    /** pending, running, success, failed, canceled. */
    status: text().notNull(),
    description: text(),
    targetUrl: text(),
    coverage: real(),
    allowFailure: boolean().notNull().default(false),
    userId: integer().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    startedAt: timestamptz(),
    finishedAt: timestamptz(),
  },
  (t) => [index("index_ci_commit_statuses_on_project_sha").on(t.projectId, t.sha, t.id)],
);

export type CiCommitStatus = typeof ciCommitStatuses.$inferSelect;
