// File diffs between two trees, as Gitaly's CommitDiff gives them to GitLab (Gitlab::Git::Diff): one
// entry per changed path in git's path order, with the unified hunks (no `diff --git`/`---`/`+++`
// header), the modes as octal text ("0" for a side that does not exist) and the new/renamed/deleted
// flags. Shared by `commits/:sha/diff`, `repository/compare` and merge request diffs.
import type { Executor } from "../../../kernel/db";
import { isBinary, unifiedDiff } from "../pure/diff";
import { utf8 } from "../pure/bytes";
import type { Repo } from "./revisions";
import { diffTreePairs, storeSource, type Change } from "./trees";
import type { FileDiff } from "../../../entities/repository";

export type { FileDiff };

/**
 * `diff_max_patch_bytes` (ApplicationSetting default, 200 KiB): a longer patch is pruned (`diff` empty,
 * `too_large` true), as Gitlab::Git::Diff#prune! does with Gitaly's `overflow_marker`.
 */
export const MAX_PATCH_BYTES = 204_800;

/** The bytes git diffs for an entry: a submodule reads as `Subproject commit <id>\n`. */
function contentOf(mode: string | null, oid: string | null, blobs: Map<string, Uint8Array>): Uint8Array {
  if (!mode || !oid) return new Uint8Array();
  if (mode === "160000") return utf8.encode(`Subproject commit ${oid}\n`);
  return blobs.get(oid) ?? new Uint8Array();
}

function countLines(patch: string): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const line of patch.split("\n")) {
    if (line.startsWith("+")) additions++;
    else if (line.startsWith("-")) deletions++;
  }
  return { additions, deletions };
}

/** One changed path as GitLab presents it, given the blobs of both sides. */
export function fileDiff(change: Change, blobs: Map<string, Uint8Array>, maxPatchBytes = MAX_PATCH_BYTES): FileDiff {
  const newFile = change.status === "A";
  const deletedFile = change.status === "D";
  const renamedFile = change.status === "R";
  const oldPath = change.oldPath ?? change.path;
  const base = {
    oldPath,
    newPath: change.path,
    aMode: change.oldMode ?? "0",
    bMode: change.newMode ?? "0",
    newFile,
    renamedFile,
    deletedFile,
    oldOid: change.oldOid,
    newOid: change.newOid,
  };
  // An exact rename has the same content on both sides: git prints no hunk.
  if (change.oldOid !== null && change.oldOid === change.newOid) {
    return { ...base, diff: "", tooLarge: false, binary: false, additions: 0, deletions: 0 };
  }
  const before = contentOf(change.oldMode, change.oldOid, blobs);
  const after = contentOf(change.newMode, change.newOid, blobs);
  if (isBinary(before) || isBinary(after)) {
    const a = newFile ? "/dev/null" : `a/${oldPath}`;
    const b = deletedFile ? "/dev/null" : `b/${change.path}`;
    return { ...base, diff: `Binary files ${a} and ${b} differ\n`, tooLarge: false, binary: true, additions: 0, deletions: 0 };
  }
  const patch = unifiedDiff(before, after);
  if (patch.length > maxPatchBytes) return { ...base, diff: "", tooLarge: true, binary: false, additions: 0, deletions: 0 };
  return { ...base, diff: patch, tooLarge: false, binary: false, ...countLines(patch) };
}

/**
 * The diffs from `oldTree` (null: the empty tree) to `newTree`, in git's path order, with exact renames
 * detected (`-M100%`; GitLab's git also finds similar renames, docs/git.md, "Stats and diffs"). Statements: one per tree
 * depth, then one for every blob of every changed path.
 */
export async function diffTrees(db: Executor, repo: Repo, oldTree: string | null, newTree: string | null): Promise<FileDiff[]> {
  const source = storeSource(db, repo.poolId);
  const [changes] = await diffTreePairs(source, [{ oldRoot: oldTree, newRoot: newTree }]);
  const wanted = new Set<string>();
  for (const c of changes) {
    if (c.oldOid && c.oldMode !== "160000" && c.oldOid !== c.newOid) wanted.add(c.oldOid);
    if (c.newOid && c.newMode !== "160000" && c.oldOid !== c.newOid) wanted.add(c.newOid);
  }
  const blobs = wanted.size ? await source.blobs(wanted) : new Map<string, Uint8Array>();
  return changes.map((change) => fileDiff(change, blobs));
}
