import { and, eq } from "drizzle-orm";
import { uploads, type Upload } from "../../db/schema";
import type { Executor } from "../kernel/db";

export type { Upload };

export async function insertUpload(db: Executor, values: typeof uploads.$inferInsert): Promise<Upload> {
  const [row] = await db.insert(uploads).values(values).returning();
  return row;
}

/** The project's attachment at `<secret>/<filename>` (FileUploader's `path`), or null. */
export async function findUpload(db: Executor, projectId: number, path: string): Promise<Upload | null> {
  const rows = await db
    .select()
    .from(uploads)
    .where(and(eq(uploads.modelType, "Project"), eq(uploads.modelId, projectId), eq(uploads.path, path)))
    .limit(1);
  return rows[0] ?? null;
}
