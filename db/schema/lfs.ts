// Git LFS objects (GitLab's lfs_objects and lfs_objects_projects, GitLab 15.4). An object is stored once
// per oid (its bytes in R2 under `file`); projects see it through a link row.
import { bigint, index, integer, pgTable, smallint, text, uniqueIndex, varchar } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { projects } from "./projects";
import { users } from "./users";

export const lfsObjects = pgTable(
  "lfs_objects",
  {
    id: id(),
    /** The SHA-256 of the content, lowercase hex. */
    oid: varchar({ length: 255 }).notNull(),
    size: bigint({ mode: "number" }).notNull(),
    /** The R2 key of the content (GitLab: the uploaded file's name). */
    file: text().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_lfs_objects_on_oid").on(t.oid)],
);

export const lfsObjectsProjects = pgTable(
  "lfs_objects_projects",
  {
    id: id(),
    lfsObjectId: integer()
      .notNull()
      .references(() => lfsObjects.id, { onDelete: "cascade" }),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** GitLab's repository_type (null: the project repository). */
    repositoryType: smallint(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_lfs_objects_projects_on_project_id_and_lfs_object_id").on(t.projectId, t.lfsObjectId),
    index("index_lfs_objects_projects_on_lfs_object_id").on(t.lfsObjectId),
  ],
);

/**
 * Git LFS file locks (GitLab's lfs_file_locks): one lock per path and project, held by a user. `path` is
 * the repository path as git-lfs sends it (relative to the work tree's root).
 */
export const lfsFileLocks = pgTable(
  "lfs_file_locks",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    path: varchar({ length: 511 }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("index_lfs_file_locks_on_project_id_and_path").on(t.projectId, t.path), index("index_lfs_file_locks_on_user_id").on(t.userId)],
);

export type LfsObject = typeof lfsObjects.$inferSelect;
