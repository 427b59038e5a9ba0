// The LFS file lock check of GitLab's pre-receive (Gitlab::Checks::DiffCheck with
// `validate_lfs_file_locks?`, GitLab 15.4): when the project uses LFS and someone else holds a lock, a
// push whose new commits change a locked path (old or new path of any file a commit changes against its
// first parent) is declined, whatever the client's `locksverify` setting.
import type { Executor } from "../../kernel/db";
import type { Change } from "../git";
import { locksHeldByOthers } from "../lfs/read";

/**
 * GitLab's refusal ("The path '<path>' is locked in Git LFS by <name>") for the first lock the new
 * commits touch, else null. Costs one statement when nobody else holds a lock; otherwise the push's
 * diff (`changes`, shared with the push rule checks: shared/git/store/pushed_files.ts).
 */
export async function lfsLockViolation(db: Executor, projectId: number, userId: number, changes: () => Promise<Change[]>): Promise<string | null> {
  const locks = await locksHeldByOthers(db, projectId, userId);
  if (locks.length === 0) return null;
  const paths = new Set((await changes()).flatMap((change) => (change.oldPath ? [change.path, change.oldPath] : [change.path])));
  const lock = locks.find((l) => paths.has(l.path));
  return lock ? `The path '${lock.path}' is locked in Git LFS by ${lock.ownerName}` : null;
}
