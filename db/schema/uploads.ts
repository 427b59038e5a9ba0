import { bigint, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id } from "./columns";
import { projects } from "./projects";
import { users } from "./users";

/**
 * GitLab's `uploads` for project attachments (`POST /projects/:id/uploads`, FileUploader): the file
 * lives in R2 under `r2_key`; `secret` and `path` (`<secret>/<filename>`) name it in its URL
 * `/<project full path>/uploads/<secret>/<filename>`.
 */
export const uploads = pgTable(
  "uploads",
  {
    id: id(),
    size: bigint({ mode: "number" }).notNull(),
    /** `<secret>/<filename>` as FileUploader stores it. */
    path: text().notNull(),
    /** SHA-256 hex of the content. */
    checksum: text().notNull(),
    modelType: text().notNull(), // "Project"
    modelId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    uploader: text().notNull(), // "FileUploader"
    secret: text().notNull(),
    contentType: text(),
    r2Key: text().notNull(),
    uploadedById: integer().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("index_uploads_on_model_and_path").on(t.modelType, t.modelId, t.path), index("index_uploads_on_uploaded_by_id").on(t.uploadedById)],
);

export type Upload = typeof uploads.$inferSelect;
