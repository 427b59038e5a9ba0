// Git LFS's SQL: which objects a project sees (its own links and those of the projects it was forked
// from), and the write of an uploaded object with its link, each one statement.
import { sql } from "drizzle-orm";
import type { Executor } from "../kernel/db";

export { visibleObjects, type StoredLfsObject } from "../shared/lfs/read";
import type { StoredLfsObject } from "../shared/lfs/read";

/**
 * Records an uploaded object and links it to the project (LfsObject.create! and
 * LfsObjectsProject.safe_find_or_create_by!) in one statement. `created` is false when the oid was
 * already stored: the caller then drops its own copy, the stored file stays the object's content.
 * Null when a concurrent writer's row is not visible yet (the caller asks again).
 */
export async function recordUpload(db: Executor, projectId: number, object: StoredLfsObject): Promise<{ created: boolean; file: string } | null> {
  const result = await db.execute<{ created: boolean; file: string }>(sql`
    WITH ins AS (
      INSERT INTO lfs_objects (oid, size, file) VALUES (${object.oid}, ${object.size}, ${object.file})
      ON CONFLICT (oid) DO NOTHING
      RETURNING id, file
    ), obj AS (
      SELECT id, file, true AS created FROM ins
      UNION ALL
      SELECT id, file, false AS created FROM lfs_objects WHERE oid = ${object.oid} AND NOT EXISTS (SELECT 1 FROM ins)
    ), link AS (
      INSERT INTO lfs_objects_projects (lfs_object_id, project_id)
      SELECT id, ${projectId} FROM obj
      ON CONFLICT (project_id, lfs_object_id) DO NOTHING
    )
    SELECT created, file FROM obj`);
  return result.rows[0] ?? null;
}
