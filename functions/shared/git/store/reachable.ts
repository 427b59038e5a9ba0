// Object reachability for packs (docs/git.md, "The commits list (git log)"): the commits some tips reach and others do not (one
// statement over the commit index), the trees and blobs under them (a statement per tree level), tags
// peeled to what they point at, and the stored rows a pack is written from. upload-pack plans a fetch
// with these; the repository snapshot packs everything every ref reaches.
import { sql } from "drizzle-orm";
import type { Executor } from "../../../kernel/db";
import { toHex } from "../pure/bytes";
import { decodeTag, decodeTree } from "../pure/objects";
import { readObjects, rowBytes } from "./objects";
import { commitWalk } from "./walk";

const byteaHex = (oid: string) => `\\x${oid}`;
const READ_CHUNK = 1000;

/** An object a walk needs is not in the store (or is not of the type its referrer says). */
export class MissingObjectError extends Error {}

export type WalkedCommit = { oid: string; tree: string; parents: string[] };

/**
 * The commits reachable from `wants` and not from `haves` (one statement: both walks are recursive
 * CTEs over the commit index), and the trees of the excluded commits at the edge of that set.
 */
export async function walkCommits(db: Executor, poolId: number, wants: string[], haves: string[]): Promise<{ commits: WalkedCommit[]; edgeTrees: string[] }> {
  if (wants.length === 0) return { commits: [], edgeTrees: [] };
  const excluded = commitWalk("excluded", poolId, { seeds: sql`c.oid = ANY(${sql.param(haves)}::char(40)[])` });
  const walk = commitWalk("walk", poolId, {
    seeds: sql`c.oid = ANY(${sql.param(wants)}::char(40)[])`,
    keep: sql`c.oid NOT IN (SELECT oid FROM excluded)`,
    columns: [["tree", sql`c.tree`]],
  });
  const result = await db.execute<{ oid: string; tree: string; parents: string[]; edge: boolean }>(sql`
    WITH RECURSIVE ${excluded}, ${walk},
    edges AS (
      SELECT DISTINCT p.oid::char(40) AS oid FROM walk w CROSS JOIN LATERAL unnest(w.parents) AS p(oid)
       WHERE p.oid::char(40) IN (SELECT oid FROM excluded)
    )
    SELECT w.oid, w.tree, w.parents, false AS edge FROM walk w
    UNION ALL
    SELECT c.oid, c.tree, c.parents, true AS edge FROM edges e JOIN git_commits c ON c.pool_id = ${poolId} AND c.oid = e.oid`);
  const commits: WalkedCommit[] = [];
  const edgeTrees: string[] = [];
  for (const row of result.rows) {
    if (row.edge) edgeTrees.push(row.tree);
    else commits.push({ oid: row.oid, tree: row.tree, parents: row.parents });
  }
  return { commits, edgeTrees };
}

/** Types of the objects among `oids` that the pool holds (one statement). */
export async function objectTypes(db: Executor, poolId: number, oids: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (oids.length === 0) return out;
  const result = await db.execute<{ oid: Uint8Array | string; type: number }>(
    sql`SELECT oid, type FROM git_objects WHERE pool_id = ${poolId} AND oid = ANY(${sql.param(oids.map(byteaHex))}::bytea[])`,
  );
  for (const row of result.rows) out.set(toHex(rowBytes(row.oid)), Number(row.type));
  return out;
}

export type Selected = { tags: string[]; commits: string[]; trees: string[]; blobs: string[] };

/** Reads tag objects and follows them to what they point at (tags of tags included). */
export async function peelTags(db: Executor, poolId: number, tags: string[], into: Selected): Promise<void> {
  let level = tags;
  const seen = new Set<string>();
  while (level.length) {
    const objects = await readObjects(db, poolId, level);
    const next: string[] = [];
    for (const oid of level) {
      if (seen.has(oid)) continue;
      seen.add(oid);
      const object = objects.get(oid);
      if (!object) throw new MissingObjectError(`not our ref ${oid}`);
      into.tags.push(oid);
      const tag = decodeTag(object.body);
      if (tag.type === "tag") next.push(tag.object);
      else if (tag.type === "commit") into.commits.push(tag.object);
      else if (tag.type === "tree") into.trees.push(tag.object);
      else into.blobs.push(tag.object);
    }
    level = next;
  }
}

/**
 * Trees and blobs under `roots` that are not in `seen` (which it extends): one statement per tree
 * level and thousand trees. Submodule entries (commits of another repository) are skipped.
 */
export async function walkTrees(db: Executor, poolId: number, roots: string[], seen: Set<string>, out: { trees: string[]; blobs: string[] } | null): Promise<void> {
  let level: string[] = [];
  for (const root of roots) {
    if (seen.has(root)) continue;
    seen.add(root);
    level.push(root);
    out?.trees.push(root);
  }
  while (level.length) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += READ_CHUNK) {
      const chunk = level.slice(i, i + READ_CHUNK);
      const objects = await readObjects(db, poolId, chunk);
      for (const oid of chunk) {
        const object = objects.get(oid);
        if (!object || object.type !== "tree") throw new MissingObjectError(`missing tree ${oid}`);
        for (const entry of decodeTree(object.body)) {
          if (entry.mode === "160000" || seen.has(entry.oid)) continue;
          seen.add(entry.oid);
          if (entry.mode === "40000" || entry.mode === "040000") {
            next.push(entry.oid);
            out?.trees.push(entry.oid);
          } else out?.blobs.push(entry.oid);
        }
      }
    }
    level = next;
  }
}

/**
 * Every object `tips` reach (`git rev-list --objects <tips>`), each once: tags, commits, trees, blobs.
 * A tip that is not in the store throws MissingObjectError.
 */
export async function reachableObjects(db: Executor, poolId: number, tips: string[]): Promise<string[]> {
  const unique = [...new Set(tips)];
  const types = await objectTypes(db, poolId, unique);
  const selected: Selected = { tags: [], commits: [], trees: [], blobs: [] };
  for (const oid of unique) {
    const type = types.get(oid);
    if (type === undefined) throw new MissingObjectError(`not our ref ${oid}`);
    if (type === 1) selected.commits.push(oid);
    else if (type === 2) selected.trees.push(oid);
    else if (type === 3) selected.blobs.push(oid);
  }
  await peelTags(db, poolId, unique.filter((oid) => types.get(oid) === 4), selected);
  const { commits } = await walkCommits(db, poolId, [...new Set(selected.commits)], []);
  const seen = new Set<string>();
  const objects = { trees: [] as string[], blobs: [] as string[] };
  await walkTrees(db, poolId, [...commits.map((c) => c.tree), ...selected.trees], seen, objects);
  for (const blob of selected.blobs) if (!seen.has(blob)) objects.blobs.push(blob);
  return [...new Set([...selected.tags, ...commits.map((c) => c.oid), ...objects.trees, ...objects.blobs])];
}

export type PackRow = { oid: string; type: number; size: number; zdata: Uint8Array | null; r2Key: string | null };

/** Stored rows (type, size, zlib body) of `oids`, one statement; absent ids are missing from the map. */
export async function readPackRows(db: Executor, poolId: number, oids: string[]): Promise<Map<string, PackRow>> {
  const out = new Map<string, PackRow>();
  if (oids.length === 0) return out;
  const result = await db.execute<{ oid: Uint8Array | string; type: number; size: number; zdata: Uint8Array | string | null; r2_key: string | null }>(
    sql`SELECT oid, type, size, zdata, r2_key FROM git_objects WHERE pool_id = ${poolId} AND oid = ANY(${sql.param(oids.map(byteaHex))}::bytea[])`,
  );
  for (const row of result.rows) {
    const oid = toHex(rowBytes(row.oid));
    out.set(oid, { oid, type: Number(row.type), size: Number(row.size), zdata: row.zdata === null ? null : rowBytes(row.zdata), r2Key: row.r2_key });
  }
  return out;
}

export type PackRowSize = { oid: string; type: number; size: number; zlength: number | null; r2Key: string | null };

/**
 * Type, size and the length of the stored zlib body of `oids` without reading the bodies (one
 * statement): what a pack's length is computed from before it is written. `zlength` is null for an
 * R2-resident blob (its R2 object has the length).
 */
export async function readPackRowSizes(db: Executor, poolId: number, oids: string[]): Promise<Map<string, PackRowSize>> {
  const out = new Map<string, PackRowSize>();
  if (oids.length === 0) return out;
  const result = await db.execute<{ oid: Uint8Array | string; type: number; size: number; zlength: number | string | null; r2_key: string | null }>(
    sql`SELECT oid, type, size, octet_length(zdata) AS zlength, r2_key FROM git_objects
         WHERE pool_id = ${poolId} AND oid = ANY(${sql.param(oids.map(byteaHex))}::bytea[])`,
  );
  for (const row of result.rows) {
    const oid = toHex(rowBytes(row.oid));
    out.set(oid, { oid, type: Number(row.type), size: Number(row.size), zlength: row.zlength === null ? null : Number(row.zlength), r2Key: row.r2_key });
  }
  return out;
}
