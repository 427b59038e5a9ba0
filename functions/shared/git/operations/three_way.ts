// The one three-way tree application (docs/git.md, "Three-way merge") behind merge, cherry-pick, revert and the merge
// request rebase: the changes base → theirs applied onto ours, reading only the trees along the
// changed paths. For every other path the rule "base = theirs → take ours" keeps ours, so nothing else
// is read.
import type { Executor } from "../../../kernel/db";
import { mergeBlobContents, resolvePath } from "../pure/merge";
import { blobObject, isTreeMode, MODE, type FileEntry, type ObjectSource, type RawObject } from "../pure/objects";
import type { Repo } from "../store/revisions";
import { diffTreePairs, storeSource, type Change } from "../store/trees";
import { CommitFailed } from "./failures";
import { WorkTree } from "./worktree";

/**
 * `changes` (base → theirs, without renames) applied to the tree `oursTree`. Returns the new root tree
 * with the objects to write, or null on a conflict.
 */
export async function applyChanges(source: ObjectSource, oursTree: string, changes: Change[]): Promise<{ tree: string; objects: RawObject[] } | null> {
  try {
    const objects: RawObject[] = [];
    const tree = await WorkTree.load(source, oursTree, changes.map((c) => c.path));
    const contentMerges: { path: string; o: FileEntry; b: FileEntry; t: FileEntry; mode: string }[] = [];
    for (const change of changes) {
      const entryOf = (mode: string | null, oid: string | null): FileEntry | undefined => (mode && oid ? { path: change.path, mode, oid } : undefined);
      const b = entryOf(change.oldMode, change.oldOid);
      const t = entryOf(change.newMode, change.newOid);
      const current = tree.get(change.path);
      // A directory (or a submodule) where the other side changes a file.
      if (current && (isTreeMode(current.mode) || current.mode === MODE.submodule) && !(current.mode === MODE.submodule && b?.mode === MODE.submodule)) return null;
      const o = current ? { path: change.path, mode: current.mode, oid: current.oid } : undefined;
      const resolution = resolvePath(o, b, t);
      if (resolution.kind === "conflict") return null;
      if (resolution.kind === "content") contentMerges.push({ path: change.path, o: o!, b: b!, t: t!, mode: resolution.mode });
      else applyEntry(tree, change.path, o, resolution.entry);
    }
    if (contentMerges.length) {
      const blobs = await source.blobs(contentMerges.flatMap((m) => [m.o.oid, m.b.oid, m.t.oid]));
      for (const m of contentMerges) {
        const merged = mergeBlobContents(blobs.get(m.o.oid)!, blobs.get(m.b.oid)!, blobs.get(m.t.oid)!);
        if (!merged) return null;
        const blob = await blobObject(merged);
        objects.push(blob);
        applyEntry(tree, m.path, m.o, { path: m.path, mode: m.mode, oid: blob.oid });
      }
    }
    return { tree: await tree.write(objects), objects };
  } catch (error) {
    // A path the work tree cannot take (a file where the other side has a directory on the way) conflicts.
    if (error instanceof CommitFailed) return null;
    throw error;
  }
}

/** Puts `entry` at `path` (or removes it) in the work tree, given what is there now. */
function applyEntry(tree: WorkTree, path: string, current: FileEntry | undefined, entry: FileEntry | undefined) {
  if (!entry) {
    if (current) tree.remove(path);
    return;
  }
  if (current && current.mode === entry.mode && current.oid === entry.oid) return;
  if (current) tree.set(path, { mode: entry.mode, oid: entry.oid });
  else tree.add(path, entry.mode, entry.oid);
}

/**
 * Three-way merge of trees: the diff base → theirs applied onto ours. The merged root tree id and the
 * new objects, or null on a conflict.
 */
export async function mergeTreeOids(
  db: Executor,
  repo: Repo,
  trees: { ours: string; base: string | null; theirs: string },
): Promise<{ tree: string; objects: RawObject[] } | null> {
  if (trees.base === trees.theirs) return { tree: trees.ours, objects: [] };
  if (trees.base === trees.ours) return { tree: trees.theirs, objects: [] };
  const source = storeSource(db, repo.poolId);
  const [changes] = await diffTreePairs(source, [{ oldRoot: trees.base, newRoot: trees.theirs }], { renames: false });
  return applyChanges(source, trees.ours, changes);
}
