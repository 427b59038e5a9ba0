// Three-way merge for cherry-pick and revert (docs/git.md, "Three-way merge"): per path over flat trees, text files merged
// line by line with node-diff3. No rename detection (a documented gap).
import { diff3Merge } from "node-diff3";
import { isBinary, splitLines } from "./diff";
import { blobObject, isRegularMode, type FileEntry, type ObjectSource, type RawObject } from "./objects";

/** Files larger than this are not line-merged (docs/git.md, "Limits"). */
export const MERGE_SIZE_LIMIT = 1024 * 1024;

function binaryStringToBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/**
 * Merges text `ours` and `theirs` against `base` (`git merge-file` without conflict markers):
 * the merged bytes when clean, null when any region conflicts.
 */
export function mergeText(ours: Uint8Array, base: Uint8Array, theirs: Uint8Array): Uint8Array | null {
  const blocks = diff3Merge(splitLines(ours), splitLines(base), splitLines(theirs), { excludeFalseConflicts: true });
  let out = "";
  for (const block of blocks) {
    if (block.conflict) return null;
    out += (block.ok ?? []).join("");
  }
  return binaryStringToBytes(out);
}

const sameEntry = (a: FileEntry | undefined, b: FileEntry | undefined) =>
  a === b || (a !== undefined && b !== undefined && a.oid === b.oid && a.mode === b.mode);

/** What the three-way rule (docs/git.md, "Three-way merge") says for one path. */
export type PathResolution =
  | { kind: "take"; entry: FileEntry | undefined }
  | { kind: "content"; mode: string }
  | { kind: "conflict" };

export function resolvePath(o: FileEntry | undefined, b: FileEntry | undefined, t: FileEntry | undefined): PathResolution {
  if (sameEntry(o, t)) return { kind: "take", entry: o };
  if (sameEntry(b, o)) return { kind: "take", entry: t };
  if (sameEntry(b, t)) return { kind: "take", entry: o };
  if (o && b && t && isRegularMode(o.mode) && isRegularMode(b.mode) && isRegularMode(t.mode)) {
    // Both changed a regular file: a one-sided mode change combines with the other side's content.
    const mode = o.mode === b.mode ? t.mode : t.mode === b.mode ? o.mode : o.mode === t.mode ? o.mode : null;
    if (mode === null) return { kind: "conflict" };
    if (o.oid === t.oid) return { kind: "take", entry: { path: o.path, mode, oid: o.oid } };
    if (o.oid === b.oid) return { kind: "take", entry: { path: o.path, mode, oid: t.oid } };
    if (t.oid === b.oid) return { kind: "take", entry: { path: o.path, mode, oid: o.oid } };
    return { kind: "content", mode };
  }
  // modify/delete, add/add with different content, symlinks or submodules changed on both sides
  return { kind: "conflict" };
}

/** Line-merges three blobs; null when they conflict, are binary or too large to merge. */
export function mergeBlobContents(o: Uint8Array, b: Uint8Array, t: Uint8Array): Uint8Array | null {
  const tooBig = o.length > MERGE_SIZE_LIMIT || b.length > MERGE_SIZE_LIMIT || t.length > MERGE_SIZE_LIMIT;
  if (tooBig || isBinary(o) || isBinary(b) || isBinary(t)) return null;
  return mergeText(o, b, t);
}

export type TreeMergeResult =
  | { clean: true; files: Map<string, FileEntry>; objects: RawObject[] }
  | { clean: false; conflicts: string[] };

/**
 * Per-path three-way merge of flat trees (path → entry). New merged blobs are returned in `objects`.
 * Blob contents are read in one batch for the paths both sides changed.
 */
export async function mergeTrees(
  source: ObjectSource,
  ours: Map<string, FileEntry>,
  base: Map<string, FileEntry>,
  theirs: Map<string, FileEntry>,
): Promise<TreeMergeResult> {
  const paths = new Set([...ours.keys(), ...base.keys(), ...theirs.keys()]);
  const files = new Map<string, FileEntry>();
  const conflicts: string[] = [];
  const contentMerges: { path: string; o: FileEntry; b: FileEntry; t: FileEntry; mode: string }[] = [];
  for (const path of paths) {
    const o = ours.get(path);
    const b = base.get(path);
    const t = theirs.get(path);
    const resolution = resolvePath(o, b, t);
    if (resolution.kind === "conflict") conflicts.push(path);
    else if (resolution.kind === "content") contentMerges.push({ path, o: o!, b: b!, t: t!, mode: resolution.mode });
    else if (resolution.entry) files.set(path, { ...resolution.entry, path });
  }

  const objects: RawObject[] = [];
  if (contentMerges.length && conflicts.length === 0) {
    const blobs = await source.blobs(contentMerges.flatMap((m) => [m.o.oid, m.b.oid, m.t.oid]));
    for (const m of contentMerges) {
      const merged = mergeBlobContents(blobs.get(m.o.oid)!, blobs.get(m.b.oid)!, blobs.get(m.t.oid)!);
      if (!merged) {
        conflicts.push(m.path);
        continue;
      }
      const blob = await blobObject(merged);
      objects.push(blob);
      files.set(m.path, { path: m.path, mode: m.mode, oid: blob.oid });
    }
  } else for (const m of contentMerges) conflicts.push(m.path);

  // A file where the other side put a directory (or the reverse) is a conflict too.
  if (conflicts.length === 0) {
    for (const path of files.keys()) {
      for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) {
        if (files.has(path.slice(0, i))) conflicts.push(path.slice(0, i));
      }
    }
  }
  if (conflicts.length) return { clean: false, conflicts: [...new Set(conflicts)].sort() };
  return { clean: true, files, objects };
}
