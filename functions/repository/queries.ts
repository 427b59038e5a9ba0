// Repository files read through the commit index (docs/git.md, "Tables"): the change a commit made to one path,
// with the blob it left there, in one statement.
import { and, eq, sql } from "drizzle-orm";
import { gitCommitChanges, gitObjects } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Repo } from "../shared/git";

export type PathChange = {
  /** A added, M modified, D deleted, R renamed to this path, T type changed. */
  status: string;
  newMode: number | null;
  newOid: string | null;
  /** The blob the change left at the path (null for a deletion). */
  /** `zdata` inline, or `r2Key` for a blob over 1 MiB (docs/git.md, "Tables": exactly one of the two). */
  blob: { size: number; zdata: Uint8Array | null; r2Key: string | null; type: number } | null;
};

/**
 * What commit `commitOid` did to exactly `path` (against its first parent, or the empty tree for a
 * root commit), with the resulting blob's stored bytes. Null when the commit did not touch that path.
 */
export async function pathChange(db: Executor, repo: Repo, commitOid: string, path: string): Promise<PathChange | null> {
  const rows = await db
    .select({
      status: gitCommitChanges.status,
      newMode: gitCommitChanges.newMode,
      newOid: gitCommitChanges.newOid,
      size: gitObjects.size,
      zdata: gitObjects.zdata,
      r2Key: gitObjects.r2Key,
      type: gitObjects.type,
    })
    .from(gitCommitChanges)
    .leftJoin(gitObjects, and(eq(gitObjects.poolId, gitCommitChanges.poolId), sql`${gitObjects.oid} = decode(${gitCommitChanges.newOid}::text, 'hex')`))
    .where(and(eq(gitCommitChanges.poolId, repo.poolId), eq(gitCommitChanges.commitOid, commitOid), eq(gitCommitChanges.path, path)))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  return {
    status: row.status,
    newMode: row.newMode,
    newOid: row.newOid,
    blob: row.size === null || row.type === null ? null : { size: row.size, zdata: row.zdata, r2Key: row.r2Key, type: row.type },
  };
}

/** The row type routes name (routes never import db/schema). */
export type { GitCommitRow } from "../../db/schema";
