// The LFS file lock check of GitLab's pre-receive (Gitlab::Checks::DiffCheck with
// `validate_lfs_file_locks?`, GitLab 15.4): when the project uses LFS and someone else holds a lock, a
// push whose new commits change a locked path (old or new path of any file a commit changes against its
// first parent) is declined, whatever the client's `locksverify` setting.
import type { Executor } from "../../kernel/db";
import { diffTreePairs, readCommitRows, storeSource, type Commit } from "../git";
import { locksHeldByOthers } from "../lfs/read";

/**
 * GitLab's refusal ("The path '<path>' is locked in Git LFS by <name>") for the first lock the new
 * commits touch, else null. Costs one statement when nobody else holds a lock; otherwise one for the
 * parents outside the pack and one per tree depth for every commit's diff (paths only, no blobs).
 */
export async function lfsLockViolation(db: Executor, poolId: number, projectId: number, userId: number, commits: { oid: string; commit: Commit }[]): Promise<string | null> {
  if (commits.length === 0) return null;
  const locks = await locksHeldByOthers(db, projectId, userId);
  if (locks.length === 0) return null;
  const treeOf = new Map(commits.map((c) => [c.oid, c.commit.tree]));
  const outside = [...new Set(commits.flatMap((c) => (c.commit.parents[0] && !treeOf.has(c.commit.parents[0]) ? [c.commit.parents[0]] : [])))];
  for (const [oid, row] of await readCommitRows(db, poolId, outside)) treeOf.set(oid, row.tree);
  const pairs = commits.map((c) => ({ oldRoot: c.commit.parents[0] ? (treeOf.get(c.commit.parents[0]) ?? null) : null, newRoot: c.commit.tree }));
  const changes = await diffTreePairs(storeSource(db, poolId), pairs, { renames: false });
  const paths = new Set(changes.flat().flatMap((change) => (change.oldPath ? [change.path, change.oldPath] : [change.path])));
  const lock = locks.find((l) => paths.has(l.path));
  return lock ? `The path '${lock.path}' is locked in Git LFS by ${lock.ownerName}` : null;
}
