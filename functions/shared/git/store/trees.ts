// Tree reading and tree-to-tree diffs. Everything is batched per tree depth: one statement reads every
// tree needed at that depth for every pair being compared.
import type { Executor } from "../../../kernel/db";
import { compareBytes, utf8 } from "../pure/bytes";
import { isBinary, numstat, type LineCounts } from "../pure/diff";
import { decodeTree, isRegularMode, isTreeMode, modeNumber, type FileEntry, type ObjectSource, type RawObject, type TreeEntry } from "../pure/objects";
import { readObjects, readTrees } from "./objects";

export type { FileEntry, ObjectSource } from "../pure/objects";

/** The store as an object source, with an optional overlay of objects not written yet. */

export function storeSource(db: Executor, poolId: number, overlay?: Map<string, RawObject>): ObjectSource {
  return {
    async trees(oids) {
      const out = new Map<string, TreeEntry[]>();
      const rest: string[] = [];
      for (const oid of oids) {
        const object = overlay?.get(oid);
        if (object?.type === "tree") out.set(oid, decodeTree(object.body));
        else rest.push(oid);
      }
      if (rest.length) for (const [oid, entries] of await readTrees(db, poolId, rest)) out.set(oid, entries);
      return out;
    },
    async blobs(oids) {
      const out = new Map<string, Uint8Array>();
      const rest: string[] = [];
      for (const oid of oids) {
        const object = overlay?.get(oid);
        if (object) out.set(oid, object.body);
        else rest.push(oid);
      }
      if (rest.length) for (const [oid, object] of await readObjects(db, poolId, rest)) out.set(oid, object.body);
      return out;
    },
  };
}


/** Every non-tree entry under `root`, by full path (blobs, symlinks, submodules). */
export async function flattenTree(source: ObjectSource, root: string): Promise<Map<string, FileEntry>> {
  const files = new Map<string, FileEntry>();
  let level: { oid: string; prefix: string }[] = [{ oid: root, prefix: "" }];
  while (level.length) {
    const trees = await source.trees(level.map((t) => t.oid));
    const next: { oid: string; prefix: string }[] = [];
    for (const { oid, prefix } of level) {
      for (const entry of trees.get(oid)!) {
        const path = prefix + entry.name;
        if (isTreeMode(entry.mode)) next.push({ oid: entry.oid, prefix: `${path}/` });
        else files.set(path, { path, mode: entry.mode, oid: entry.oid });
      }
    }
    level = next;
  }
  return files;
}

/**
 * The entry at `path` in each of the given root trees (null when absent), resolving every root at
 * once: one statement per path depth. Intermediate components must be trees.
 */
export async function entriesAtPath(source: ObjectSource, roots: string[], path: string): Promise<Map<string, TreeEntry | null>> {
  const segments = path.split("/").filter((s) => s !== "");
  const out = new Map<string, TreeEntry | null>();
  if (segments.length === 0) {
    for (const root of roots) out.set(root, { mode: "40000", name: "", oid: root });
    return out;
  }
  // current: root -> tree oid to look in at this depth
  let current = new Map<string, string>(roots.map((r) => [r, r]));
  for (let depth = 0; depth < segments.length && current.size; depth++) {
    const trees = await source.trees(new Set(current.values()));
    const next = new Map<string, string>();
    for (const [root, treeOid] of current) {
      const entry = trees.get(treeOid)!.find((e) => e.name === segments[depth]) ?? null;
      if (depth === segments.length - 1) out.set(root, entry);
      else if (entry && isTreeMode(entry.mode)) next.set(root, entry.oid);
      else out.set(root, null);
    }
    current = next;
  }
  for (const root of roots) if (!out.has(root)) out.set(root, null);
  return out;
}

export async function entryAtPath(source: ObjectSource, root: string, path: string): Promise<TreeEntry | null> {
  return (await entriesAtPath(source, [root], path)).get(root) ?? null;
}

// ---------------------------------------------------------------------------------------------------
// Tree diffs

export type ChangeStatus = "A" | "M" | "D" | "R" | "T";

export type Change = {
  path: string;
  oldPath: string | null;
  status: ChangeStatus;
  oldMode: string | null;
  newMode: string | null;
  oldOid: string | null;
  newOid: string | null;
};

export type CountedChange = Change & { additions: number; deletions: number; binary: boolean };

const fileType = (mode: string) => modeNumber(mode) & 0o170000;

/** Git's order of full paths (equal to its tree order, trees comparing as `name/`). */
export const comparePaths = (a: string, b: string) => compareBytes(utf8.encode(a), utf8.encode(b));

type Pair = { index: number; oldOid: string | null; newOid: string | null; prefix: string };

/**
 * `git diff-tree -r` between old and new roots (null = the empty tree), for many pairs at once, with
 * git's exact rename detection (`-M100%`): a deleted and an added file with the same blob id become one
 * rename. Results come back in git's path order.
 */
export async function diffTreePairs(
  source: ObjectSource,
  pairs: { oldRoot: string | null; newRoot: string | null }[],
  options: { renames?: boolean } = {},
): Promise<Change[][]> {
  const raw: Change[][] = pairs.map(() => []);
  let level: Pair[] = pairs.map((p, index) => ({ index, oldOid: p.oldRoot, newOid: p.newRoot, prefix: "" })).filter((p) => p.oldOid !== p.newOid);
  while (level.length) {
    const wanted = new Set<string>();
    for (const p of level) {
      if (p.oldOid) wanted.add(p.oldOid);
      if (p.newOid) wanted.add(p.newOid);
    }
    const trees = await source.trees(wanted);
    const next: Pair[] = [];
    for (const p of level) {
      const oldEntries = p.oldOid ? trees.get(p.oldOid)! : [];
      const newEntries = p.newOid ? trees.get(p.newOid)! : [];
      compareTrees(oldEntries, newEntries, p, raw[p.index], next);
    }
    level = next;
  }
  return raw.map((changes) => {
    const sorted = changes.sort((a, b) => comparePaths(a.path, b.path));
    return options.renames === false ? sorted : detectExactRenames(sorted);
  });
}

const entryKey = (e: TreeEntry) => utf8.encode(isTreeMode(e.mode) ? `${e.name}/` : e.name);

function compareTrees(oldEntries: TreeEntry[], newEntries: TreeEntry[], pair: Pair, out: Change[], next: Pair[]) {
  let i = 0;
  let j = 0;
  const oldKeys = oldEntries.map(entryKey);
  const newKeys = newEntries.map(entryKey);
  const removed = (e: TreeEntry) => {
    const path = pair.prefix + e.name;
    if (isTreeMode(e.mode)) next.push({ index: pair.index, oldOid: e.oid, newOid: null, prefix: `${path}/` });
    else out.push({ path, oldPath: null, status: "D", oldMode: e.mode, newMode: null, oldOid: e.oid, newOid: null });
  };
  const added = (e: TreeEntry) => {
    const path = pair.prefix + e.name;
    if (isTreeMode(e.mode)) next.push({ index: pair.index, oldOid: null, newOid: e.oid, prefix: `${path}/` });
    else out.push({ path, oldPath: null, status: "A", oldMode: null, newMode: e.mode, oldOid: null, newOid: e.oid });
  };
  while (i < oldEntries.length || j < newEntries.length) {
    const cmp = i >= oldEntries.length ? 1 : j >= newEntries.length ? -1 : compareBytes(oldKeys[i], newKeys[j]);
    if (cmp < 0) removed(oldEntries[i++]);
    else if (cmp > 0) added(newEntries[j++]);
    else {
      const a = oldEntries[i++];
      const b = newEntries[j++];
      if (a.oid === b.oid && a.mode === b.mode) continue;
      const path = pair.prefix + a.name;
      if (isTreeMode(a.mode)) {
        next.push({ index: pair.index, oldOid: a.oid, newOid: b.oid, prefix: `${path}/` });
        continue;
      }
      const status: ChangeStatus = fileType(a.mode) === fileType(b.mode) ? "M" : "T";
      out.push({ path, oldPath: null, status, oldMode: a.mode, newMode: b.mode, oldOid: a.oid, newOid: b.oid });
    }
  }
}

const basename = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/**
 * diffcore-rename's exact pass (`find_identical_files`): each added file, in path order, takes an
 * unused deleted file with the same blob id (and the same mode unless both are regular files),
 * preferring one with the same basename, else the first in path order.
 */
function detectExactRenames(changes: Change[]): Change[] {
  const sources = changes.filter((c) => c.status === "D");
  const destinations = changes.filter((c) => c.status === "A");
  if (sources.length === 0 || destinations.length === 0) return changes;
  const byOid = new Map<string, Change[]>();
  for (const source of sources) {
    const list = byOid.get(source.oldOid!) ?? [];
    list.push(source);
    byOid.set(source.oldOid!, list);
  }
  const used = new Set<Change>();
  const renamedFrom = new Map<Change, Change>();
  for (const dst of destinations) {
    let best: Change | null = null;
    let bestScore = -1;
    for (const src of byOid.get(dst.newOid!) ?? []) {
      if (!isRegularMode(src.oldMode!) || !isRegularMode(dst.newMode!)) {
        if (src.oldMode !== dst.newMode) continue;
      }
      if (used.has(src)) continue;
      const score = 1 + (basename(src.path) === basename(dst.path) ? 1 : 0);
      if (score > bestScore) {
        best = src;
        bestScore = score;
        if (score === 2) break;
      }
    }
    if (best) {
      used.add(best);
      renamedFrom.set(dst, best);
    }
  }
  const out: Change[] = [];
  for (const change of changes) {
    if (used.has(change)) continue;
    const src = renamedFrom.get(change);
    if (src) {
      out.push({ ...change, status: "R", oldPath: src.path, oldMode: src.oldMode, oldOid: src.oldOid });
    } else out.push(change);
  }
  return out;
}

/** The bytes git diffs for an entry: a submodule reads as `Subproject commit <id>\n`. */
function contentOf(mode: string | null, oid: string | null, blobs: Map<string, Uint8Array>): Uint8Array | null {
  if (!mode || !oid) return null;
  if (mode === "160000") return utf8.encode(`Subproject commit ${oid}\n`);
  return blobs.get(oid) ?? null;
}

/**
 * Line counts known before reading any blob, by the pair of contents they compare (`lineCountKey`):
 * `numstat` is a function of the two contents alone, so a count stored for one commit serves another
 * that changes the same blob into the same blob (a cherry-pick's, say).
 */
export type KnownLineCounts = Map<string, LineCounts>;

/** The key of a pair of contents in `KnownLineCounts` (a submodule's content is its commit id). */
export function lineCountKey(oldMode: string | null, oldOid: string | null, newMode: string | null, newOid: string | null): string {
  const side = (mode: string | null, oid: string | null) => (!mode || !oid ? "-" : mode === "160000" ? `S${oid}` : oid);
  return `${side(oldMode, oldOid)}>${side(newMode, newOid)}`;
}

/**
 * Adds `git diff --numstat` line counts to changes (one statement for all blobs of all lists, none
 * when `known` has every pair's counts).
 */
export async function countChanges(source: ObjectSource, lists: Change[][], known?: KnownLineCounts): Promise<CountedChange[][]> {
  const knownOf = (c: Change) => (c.status === "R" ? undefined : known?.get(lineCountKey(c.oldMode, c.oldOid, c.newMode, c.newOid)));
  const wanted = new Set<string>();
  for (const list of lists) {
    for (const c of list) {
      if (knownOf(c)) continue;
      if (c.oldOid && c.oldMode !== "160000") wanted.add(c.oldOid);
      if (c.newOid && c.newMode !== "160000") wanted.add(c.newOid);
    }
  }
  const blobs = wanted.size ? await source.blobs(wanted) : new Map<string, Uint8Array>();
  return lists.map((list) =>
    list.map((c) => {
      // An exact rename counts 0/0 (`-`/`-` when binary), as builtin_diffstat's same_contents.
      if (c.status === "R") return { ...c, additions: 0, deletions: 0, binary: isBinary(contentOf(c.newMode, c.newOid, blobs) ?? new Uint8Array()) };
      const counts = knownOf(c) ?? numstat(contentOf(c.oldMode, c.oldOid, blobs), contentOf(c.newMode, c.newOid, blobs));
      return { ...c, ...counts };
    }),
  );
}
