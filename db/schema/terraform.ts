// Terraform state for the `http` backend (GitLab's terraform_states and terraform_state_versions).
// The state bytes live in R2 (`BLOBS`), one object per version; the rows hold the lock and the index.
import { index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { ciBuilds } from "./ci";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { projects } from "./projects";
import { users } from "./users";

export const terraformStates = pgTable(
  "terraform_states",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** The lock held: Terraform's lock ID, who took it and when (null when unlocked). */
    lockXid: text(),
    lockedAt: timestamptz(),
    lockedByUserId: integer().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_terraform_states_on_project_id_and_name").on(t.projectId, t.name)],
);

export const terraformStateVersions = pgTable(
  "terraform_state_versions",
  {
    id: id(),
    terraformStateId: integer().notNull().references(() => terraformStates.id, { onDelete: "cascade" }),
    /** The state's `serial`, as Terraform wrote it. */
    version: integer().notNull(),
    r2Key: text().notNull(),
    size: integer().notNull(),
    createdByUserId: integer().references(() => users.id, { onDelete: "set null" }),
    ciBuildId: integer().references(() => ciBuilds.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_terraform_state_versions_on_state_id_and_version").on(t.terraformStateId, t.version),
    index("index_terraform_state_versions_on_ci_build_id").on(t.ciBuildId),
  ],
);

export type TerraformState = typeof terraformStates.$inferSelect;
export type TerraformStateVersion = typeof terraformStateVersions.$inferSelect;
