// Reading Git LFS objects as a project sees them (its own links and those of the projects it was forked
// from), shared by the LFS domain and the repository files API (`raw?lfs=true`); and the pointer
// format git-lfs commits in place of a file.
import { sql } from "drizzle-orm";
import type { Executor } from "../../kernel/db";

export type StoredLfsObject = { oid: string; size: number; file: string };

/**
 * The projects whose LFS objects `projectId` sees: itself and its fork ancestors
 * (`forked_from_project_id`, walked up; UNION stops on a cycle).
 */
const lineage = (projectId: number) => sql`
  WITH RECURSIVE lineage(id) AS (
    SELECT ${projectId}::integer
    UNION
    SELECT p.forked_from_project_id FROM projects p JOIN lineage l ON p.id = l.id WHERE p.forked_from_project_id IS NOT NULL
  )`;

/** The objects among `oids` the project sees, by oid (one statement). */
export async function visibleObjects(db: Executor, projectId: number, oids: string[]): Promise<Map<string, StoredLfsObject>> {
  const out = new Map<string, StoredLfsObject>();
  if (oids.length === 0) return out;
  const result = await db.execute<{ oid: string; size: string | number; file: string }>(sql`
    ${lineage(projectId)}
    SELECT DISTINCT o.oid, o.size, o.file FROM lfs_objects o
      JOIN lfs_objects_projects lp ON lp.lfs_object_id = o.id
     WHERE lp.project_id IN (SELECT id FROM lineage) AND o.oid = ANY(${sql.param(oids)}::varchar[])`);
  for (const row of result.rows) out.set(row.oid, { oid: row.oid, size: Number(row.size), file: row.file });
  return out;
}

/**
 * Every object the project sees (Project#all_lfs_objects: its own and its fork ancestors'), with the
 * repository type of the project's own link (null: the project repository, or an ancestor's object).
 * For the project export; one statement.
 */
export async function allProjectObjects(db: Executor, projectId: number): Promise<(StoredLfsObject & { repositoryType: number | null })[]> {
  const result = await db.execute<{ oid: string; size: string | number; file: string; repository_type: number | null }>(sql`
    ${lineage(projectId)}
    SELECT o.oid, o.size, o.file,
           (SELECT min(own.repository_type) FROM lfs_objects_projects own WHERE own.lfs_object_id = o.id AND own.project_id = ${projectId}) AS repository_type
      FROM lfs_objects o
     WHERE EXISTS (SELECT 1 FROM lfs_objects_projects lp WHERE lp.lfs_object_id = o.id AND lp.project_id IN (SELECT id FROM lineage))
     ORDER BY o.id`);
  return result.rows.map((row) => ({ oid: row.oid, size: Number(row.size), file: row.file, repositoryType: row.repository_type === null ? null : Number(row.repository_type) }));
}

/**
 * The object a blob points at when it is an LFS pointer (Gitlab::Git::Blob#lfs_pointer?: at most 200
 * bytes, `version https://git-lfs.github.com/spec/v1`, `oid sha256:<64 hex>`, `size <n>`); else null.
 */
export function lfsPointer(content: Uint8Array): { oid: string; size: number } | null {
  if (content.length > 200) return null;
  const text = new TextDecoder().decode(content);
  if (!text.startsWith("version https://git-lfs.github.com/spec")) return null;
  const oid = /^oid sha256:([0-9a-f]{64})$/m.exec(text)?.[1];
  const size = /^size (\d+)$/m.exec(text)?.[1];
  return oid && size ? { oid, size: Number(size) } : null;
}

/**
 * The LFS file locks of a project held by users other than `userId`, with their owners' names: what a
 * push by `userId` may not touch (Gitlab::Checks::DiffCheck#lfs_file_locks_validation). One statement;
 * empty for most projects, which lets the push skip the diff altogether.
 */
export async function locksHeldByOthers(db: Executor, projectId: number, userId: number): Promise<{ path: string; ownerName: string }[]> {
  const result = await db.execute<{ path: string; owner_name: string }>(sql`
    SELECT l.path, u.name AS owner_name FROM lfs_file_locks l JOIN users u ON u.id = l.user_id
     WHERE l.project_id = ${projectId} AND l.user_id <> ${userId}
     ORDER BY l.id`);
  return result.rows.map((r) => ({ path: r.path, ownerName: r.owner_name }));
}
