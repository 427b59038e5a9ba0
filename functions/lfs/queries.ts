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

/** A lock with what LfsFileLockEntity shows of its owner. */
export type LfsLockRow = { id: number; userId: number; path: string; createdAt: Date; ownerName: string | null };

type RawLock = { id: number; user_id: number; path: string; created_at: Date | string; owner_name: string | null };
const lockRow = (r: RawLock): LfsLockRow => ({ id: Number(r.id), userId: Number(r.user_id), path: r.path, createdAt: new Date(r.created_at), ownerName: r.owner_name });

/** `project.lfs_file_locks.where(id:, path:)` (Lfs::LocksFinderService), oldest first, with owner names. */
export async function findLocks(db: Executor, projectId: number, filter: { id?: number; path?: string } = {}): Promise<LfsLockRow[]> {
  const result = await db.execute<RawLock>(sql`
    SELECT l.id, l.user_id, l.path, l.created_at, u.name AS owner_name
      FROM lfs_file_locks l LEFT JOIN users u ON u.id = l.user_id
     WHERE l.project_id = ${projectId}
       ${filter.id !== undefined ? sql`AND l.id = ${filter.id}` : sql``}
       ${filter.path !== undefined ? sql`AND l.path = ${filter.path}` : sql``}
     ORDER BY l.id`);
  return result.rows.map(lockRow);
}

/**
 * Lfs::LockFileService#create_lock!, one statement: the new lock (`created`), or the lock already held
 * on the path (the unique index on project and path decides between concurrent callers). Null when a
 * concurrent lock on the path committed after this statement's snapshot, or was released meanwhile
 * (the caller asks again).
 */
export async function createLock(db: Executor, projectId: number, userId: number, path: string): Promise<{ created: boolean; lock: LfsLockRow } | null> {
  const result = await db.execute<RawLock & { created: boolean }>(sql`
    WITH ins AS (
      INSERT INTO lfs_file_locks (project_id, user_id, path) VALUES (${projectId}, ${userId}, ${path})
      ON CONFLICT (project_id, path) DO NOTHING
      RETURNING id, user_id, path, created_at
    )
    SELECT true AS created, ins.id, ins.user_id, ins.path, ins.created_at, u.name AS owner_name
      FROM ins LEFT JOIN users u ON u.id = ins.user_id
    UNION ALL
    SELECT false, l.id, l.user_id, l.path, l.created_at, u.name
      FROM lfs_file_locks l LEFT JOIN users u ON u.id = l.user_id
     WHERE l.project_id = ${projectId} AND l.path = ${path} AND NOT EXISTS (SELECT 1 FROM ins)`);
  const row = result.rows[0];
  return row ? { created: row.created, lock: lockRow(row) } : null;
}

/** `lock.destroy!`: false when it was gone already (a concurrent unlock). */
export async function deleteLock(db: Executor, projectId: number, lockId: number): Promise<boolean> {
  const result = await db.execute(sql`DELETE FROM lfs_file_locks WHERE id = ${lockId} AND project_id = ${projectId} RETURNING id`);
  return result.rows.length > 0;
}
