// What new commits change, for the checks that look at files (GitLab's DiffCheck: LFS locks and push
// rule file names; FileSizeCheck): each commit against its first parent, paths only (no blob is read),
// computed once per write and only when a check needs it. A git push and the API's writes (merge,
// cherry-pick, revert, rebase: operations/new_commits.ts) use it alike.
import type { Executor } from "../../../kernel/db";
import type { PushedFiles } from "../../push_rules";
import type { Commit, ObjectSource } from "../pure/objects";
import { readCommitRows } from "./commit_index";
import { diffTreePairs, storeSource, type Change } from "./trees";

/**
 * One statement for the parents outside the new commits, then one per tree depth for every commit's
 * diff. `source`: where the trees are read (the store, or the store overlaid with objects not written yet).
 */
export function pushedChanges(db: Executor, poolId: number, commits: { oid: string; commit: Commit }[], source?: ObjectSource): () => Promise<Change[]> {
  let memo: Promise<Change[]> | null = null;
  return () => (memo ??= diff(db, poolId, commits, source ?? storeSource(db, poolId)));
}

async function diff(db: Executor, poolId: number, commits: { oid: string; commit: Commit }[], source: ObjectSource): Promise<Change[]> {
  if (commits.length === 0) return [];
  const treeOf = new Map(commits.map((c) => [c.oid, c.commit.tree]));
  const outside = [...new Set(commits.flatMap((c) => (c.commit.parents[0] && !treeOf.has(c.commit.parents[0]) ? [c.commit.parents[0]] : [])))];
  for (const [oid, row] of await readCommitRows(db, poolId, outside)) treeOf.set(oid, row.tree);
  const pairs = commits.map((c) => ({ oldRoot: c.commit.parents[0] ? (treeOf.get(c.commit.parents[0]) ?? null) : null, newRoot: c.commit.tree }));
  return (await diffTreePairs(source, pairs, { renames: false })).flat();
}

/**
 * The paths the changes add (Gitaly's FindChangedPaths without rename detection: a rename is a new
 * path) and, for each blob the write brought (`blobSizes`), a path it was written at: Repository#new_blobs.
 */
export function pushedFiles(changes: Change[], blobSizes: Map<string, number>): PushedFiles {
  const added = [...new Set(changes.filter((c) => c.status === "A").map((c) => c.path))];
  const blobs: PushedFiles["blobs"] = [];
  const seen = new Set<string>();
  for (const change of changes) {
    const size = change.newOid ? blobSizes.get(change.newOid) : undefined;
    if (size === undefined || seen.has(change.newOid!)) continue;
    seen.add(change.newOid!);
    blobs.push({ path: change.path, size });
  }
  return { added, blobs };
}
