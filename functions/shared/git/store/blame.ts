// `git blame` (blame.c, without -M/-C/-w) over the commit index: which commit last brought each line of
// a file at a commit.
//
// Git's algorithm, reproduced: a suspect (commit, blob at the path) holds line ranges; for each parent
// in order, find the parent's blob at the path (`find_origin`: unchanged → the same blob; added or type
// changed → none); if some parent has the very same blob, every range passes to the first such parent
// (`pass_whole_blame`); otherwise each parent in turn takes the lines that the line diff parent → suspect
// keeps unchanged (`pass_blame_to_parent`), and what no parent takes is the suspect's. Since a line's
// fate at a suspect depends only on its position there, the order suspects are handled in does not
// change the result: we go by generation (children before parents), so each suspect is diffed once.
//
// Two phases keep the statement count flat in the history length:
// 1. the suspect graph, from the commit index alone: commits that do not change the path against their
//    first parent are stepped over in memory (git passes their blame whole to that parent); the path's
//    first-parent changes come from `git_commit_changes` in one statement; merges' other parents are
//    resolved in their trees, batched per round (one statement per path depth);
// 2. line passing, with the blobs read in windows of suspects (one statement per window).
//
// Renames: a commit whose index row says the path came by an exact rename (status R) hands its lines
// to the source path in its first parent, as git's find_rename does.
//
// Differs from git (and so GitLab): only exact renames through the first parent are followed (git also
// follows a file renamed and edited in the same commit, similar above 50%, and renames through other
// parents of a merge); the line diff is `pure/diff.ts`'s minimal Myers, so where several alignments are
// minimal (repeated lines) a line may be attributed as xdiff's slid hunks would not; commits whose
// changes are not indexed yet (`changes_indexed = false`) count as not touching the path.
import { sql } from "drizzle-orm";
import type { Executor } from "../../../kernel/db";
import { diffSequences, splitLines } from "../pure/diff";
import { isTreeMode, modeNumber, type TreeEntry } from "../pure/objects";
import { CommitLoader, type CommitData } from "./loader";
import { readObjects } from "./objects";
import { entriesAtPath, storeSource } from "./trees";

/** At most this many suspects (commits that changed the file) are examined: the bound of the work. */
export const MAX_BLAME_SUSPECTS = 5000;
/** The blobs read by one statement come to about this many bytes (estimated from those read before). */
const WINDOW_BYTES = 8 * 1024 * 1024;

export class BlameTooLargeError extends Error {
  constructor(limit: number) {
    super(`more than ${limit} commits changed the file`);
  }
}

/** A run of lines: `start` in the suspect's blob (0-based), `final` the same run's first line in the result. */
type Entry = { start: number; count: number; final: number };

type Suspect = {
  /** Commit and path: a file renamed along the history is a suspect under each of its names. */
  key: string;
  oid: string;
  path: string;
  blob: string;
  generation: number;
  /** Parents to pass to, in order, each resolved to the suspect that holds its blob. */
  edges: { suspect: string; blob: string }[];
  /** The first edge's blob is the suspect's own: everything passes to it. */
  passWhole: boolean;
};

export type BlameInput = {
  /** The commit blamed at, its blob at `path` and the blob's content. */
  commit: string;
  path: string;
  blob: string;
  content: Uint8Array;
  /** 1-based, inclusive; `end` is cut to the file's length. */
  range?: { start: number; end: number } | null;
  /** The bound (MAX_BLAME_SUSPECTS unless a caller wants less). */
  maxSuspects?: number;
};

export type BlameResult = {
  /** The first line number of `lines` (1-based). */
  firstLine: number;
  /** The lines (byte strings, one char per byte, without their `\n`) and the commit of each. */
  lines: string[];
  commits: string[];
};

type PathChange = { status: string; oldPath: string | null; oldOid: string | null; newMode: number | null };

/** A path's rows of the first-parent change index, by commit (one statement). */
async function pathChanges(db: Executor, poolId: number, path: string): Promise<Map<string, PathChange>> {
  const result = await db.execute<{ commit_oid: string; status: string; old_path: string | null; old_oid: string | null; new_mode: number | null }>(
    sql`SELECT commit_oid, status, old_path, old_oid, new_mode FROM git_commit_changes WHERE pool_id = ${poolId} AND path = ${path}`,
  );
  const out = new Map<string, PathChange>();
  for (const row of result.rows) out.set(row.commit_oid, { status: row.status, oldPath: row.old_path, oldOid: row.old_oid, newMode: row.new_mode });
  return out;
}

const fileType = (mode: number) => mode & 0o170000;
const keyOf = (oid: string, path: string) => `${oid}\0${path}`;

export async function blameFile(db: Executor, poolId: number, input: BlameInput): Promise<BlameResult> {
  const allLines = splitLines(input.content);
  const first = input.range ? input.range.start : 1;
  const last = input.range ? Math.min(input.range.end, allLines.length) : allLines.length;
  // `git blame -L` past the end fails; GitLab's Gitlab::Git::Blame answers that with no lines.
  if (first > last) return { firstLine: first, lines: [], commits: [] };
  const count = last - first + 1;

  const loader = new CommitLoader(db, poolId, { batch: 512 });
  const source = storeSource(db, poolId);
  const suspects = new Map<string, Suspect>();
  // One statement per path the file had (a rename adds its source path).
  const changesByPath = new Map<string, Map<string, PathChange>>();
  const changesOf = async (path: string) => {
    let found = changesByPath.get(path);
    if (!found) changesByPath.set(path, (found = await pathChanges(db, poolId, path)));
    return found;
  };

  const ensureLoaded = async (oids: string[]) => {
    const missing = oids.filter((oid) => !loader.has(oid));
    if (missing.length) await loader.load(missing);
  };
  const data = (oid: string): CommitData => {
    const found = loader.get(oid);
    if (!found) throw new Error(`commit ${oid} is not in the commit index`);
    return found;
  };
  /** Steps over commits that leave the path as their first parent has it, down to one that changes it. */
  const suspectFrom = async (oid: string, path: string): Promise<string> => {
    const changes = await changesOf(path);
    let at = oid;
    for (;;) {
      await ensureLoaded([at]);
      const commit = data(at);
      if (changes.has(at) || commit.parents.length === 0) return at;
      at = commit.parents[0];
    }
  };
  const addSuspect = (oid: string, path: string, blob: string): Suspect | null => {
    const key = keyOf(oid, path);
    if (suspects.has(key)) return null;
    const suspect: Suspect = { key, oid, path, blob, generation: data(oid).generation, edges: [], passWhole: false };
    suspects.set(key, suspect);
    return suspect;
  };

  const startOid = await suspectFrom(input.commit, input.path);
  const start = addSuspect(startOid, input.path, input.blob)!;
  let frontier = [start];
  while (frontier.length) {
    const limit = input.maxSuspects ?? MAX_BLAME_SUSPECTS;
    if (suspects.size > limit) throw new BlameTooLargeError(limit);
    await ensureLoaded(frontier.flatMap((s) => data(s.oid).parents));
    // A merge's other parents: their blob at the path, read in their trees (batched per path for the round).
    const otherTrees = new Map<string, Set<string>>();
    for (const s of frontier) {
      for (const parent of data(s.oid).parents.slice(1)) {
        const trees = otherTrees.get(s.path) ?? new Set<string>();
        trees.add(data(parent).tree);
        otherTrees.set(s.path, trees);
      }
    }
    const entries = new Map<string, Map<string, TreeEntry | null>>();
    for (const [path, trees] of otherTrees) entries.set(path, await entriesAtPath(source, [...trees], path));
    const next: Suspect[] = [];
    for (const suspect of frontier) {
      const commit = data(suspect.oid);
      const change = (await changesOf(suspect.path)).get(suspect.oid);
      const ownType = change?.newMode != null ? fileType(change.newMode) : null;
      // find_origin: a modification keeps the origin in the first parent, 'A' and 'T' do not; an exact
      // rename (the index's 'R') is find_rename's answer: the source path in the first parent.
      const parentOrigins: ({ path: string; blob: string } | null)[] = commit.parents.map((parent, i) => {
        if (i === 0) {
          if (!change) return { path: suspect.path, blob: suspect.blob };
          if (change.status === "M" && change.oldOid) return { path: suspect.path, blob: change.oldOid };
          if (change.status === "R" && change.oldPath && change.oldOid) return { path: change.oldPath, blob: change.oldOid };
          return null;
        }
        const entry = entries.get(suspect.path)?.get(data(parent).tree);
        if (!entry || isTreeMode(entry.mode) || entry.mode === "160000") return null;
        if (ownType !== null && fileType(modeNumber(entry.mode)) !== ownType) return null;
        return { path: suspect.path, blob: entry.oid };
      });
      const same = parentOrigins.findIndex((origin) => origin?.blob === suspect.blob);
      const targets = same >= 0 ? [same] : parentOrigins.flatMap((origin, i) => (origin ? [i] : []));
      suspect.passWhole = same >= 0;
      for (const i of targets) {
        const origin = parentOrigins[i]!;
        const target = await suspectFrom(commit.parents[i], origin.path);
        suspect.edges.push({ suspect: keyOf(target, origin.path), blob: origin.blob });
        const added = addSuspect(target, origin.path, origin.blob);
        if (added) next.push(added);
      }
    }
    frontier = next;
  }

  // Phase 2: pass line runs down the suspect graph, children before parents.
  const order = [...suspects.values()].sort((a, b) => b.generation - a.generation);
  const held = new Map<string, Entry[]>([[start.key, [{ start: first - 1, count, final: 0 }]]]);
  const result: string[] = new Array(count);
  const uses = new Map<string, number>();
  const use = (blob: string, n: number) => uses.set(blob, (uses.get(blob) ?? 0) + n);
  for (const s of order) if (!s.passWhole) {
    use(s.blob, 1);
    for (const edge of s.edges) use(edge.blob, 1);
  }
  const lines = new Map<string, string[]>([[input.blob, allLines]]);
  const release = (blob: string) => {
    const left = (uses.get(blob) ?? 1) - 1;
    uses.set(blob, left);
    if (left <= 0 && blob !== input.blob) lines.delete(blob);
  };
  let averageSize = Math.max(1, input.content.length);
  const load = async (from: number) => {
    const wanted = new Set<string>();
    const window = Math.max(1, Math.min(256, Math.floor(WINDOW_BYTES / averageSize)));
    for (let i = from; i < order.length && wanted.size < window; i++) {
      const s = order[i];
      // Ahead of the walk: a suspect may still receive lines from one handled before it.
      if (s.passWhole) continue;
      for (const blob of [s.blob, ...s.edges.map((e) => e.blob)]) if (!lines.has(blob)) wanted.add(blob);
    }
    const objects = await readObjects(db, poolId, wanted);
    let bytes = 0;
    for (const [oid, object] of objects) {
      lines.set(oid, splitLines(object.body));
      bytes += object.body.length;
    }
    if (objects.size) averageSize = Math.max(1, Math.round(bytes / objects.size));
    for (const oid of wanted) if (!lines.has(oid)) throw new Error(`blob ${oid} is not readable`);
  };

  for (let i = 0; i < order.length && held.size > 0; i++) {
    const s = order[i];
    let runs = held.get(s.key);
    held.delete(s.key);
    if (!runs || runs.length === 0) {
      if (!s.passWhole) {
        release(s.blob);
        for (const edge of s.edges) release(edge.blob);
      }
      continue;
    }
    if (s.passWhole) {
      hold(held, s.edges[0].suspect, runs);
      continue;
    }
    if (!lines.has(s.blob) || s.edges.some((e) => !lines.has(e.blob))) await load(i);
    const own = lines.get(s.blob)!;
    for (const edge of s.edges) {
      if (runs.length === 0) break;
      const { passed, kept } = passThroughDiff(runs, lines.get(edge.blob)!, own);
      hold(held, edge.suspect, passed);
      runs = kept;
    }
    for (const run of runs) for (let k = 0; k < run.count; k++) result[run.final + k] = s.oid;
    release(s.blob);
    for (const edge of s.edges) release(edge.blob);
  }
  return {
    firstLine: first,
    lines: allLines.slice(first - 1, last).map((line) => (line.endsWith("\n") ? line.slice(0, -1) : line)),
    commits: result,
  };
}

function hold(held: Map<string, Entry[]>, oid: string, runs: Entry[]) {
  if (runs.length === 0) return;
  const list = held.get(oid);
  if (list) list.push(...runs);
  else held.set(oid, [...runs]);
}

/** Lines as small integers shared by both sides, for the line diff. */
function intern(a: string[], b: string[]): [Int32Array, Int32Array] {
  const ids = new Map<string, number>();
  const map = (lines: string[]) =>
    Int32Array.from(lines, (line) => {
      let id = ids.get(line);
      if (id === undefined) ids.set(line, (id = ids.size));
      return id;
    });
  return [map(a), map(b)];
}

/**
 * blame_chunk over the diff parent → suspect: the parts of `runs` (suspect lines) inside unchanged
 * stretches go to the parent at the parent's line numbers; the rest stays.
 */
export function passThroughDiff(runs: Entry[], parentLines: string[], ownLines: string[]): { passed: Entry[]; kept: Entry[] } {
  const ops = diffSequences(...intern(parentLines, ownLines));
  const equal = ops.filter((op) => op.op === "equal");
  const passed: Entry[] = [];
  const kept: Entry[] = [];
  const sorted = [...runs].sort((a, b) => a.start - b.start);
  let e = 0;
  for (const run of sorted) {
    let at = run.start;
    const end = run.start + run.count;
    while (at < end) {
      while (e < equal.length && equal[e].newStart + equal[e].count <= at) e++;
      const op = equal[e];
      if (!op || op.newStart >= end) {
        kept.push({ start: at, count: end - at, final: run.final + (at - run.start) });
        break;
      }
      if (op.newStart > at) {
        kept.push({ start: at, count: op.newStart - at, final: run.final + (at - run.start) });
        at = op.newStart;
      }
      const stop = Math.min(end, op.newStart + op.count);
      passed.push({ start: op.oldStart + (at - op.newStart), count: stop - at, final: run.final + (at - run.start) });
      at = stop;
    }
  }
  return { passed, kept };
}
