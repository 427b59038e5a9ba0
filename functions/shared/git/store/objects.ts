// The object store (GIT.md §1, §2): immutable, content-addressed rows in `git_objects`, written with
// ON CONFLICT DO NOTHING before any ref moves, read in bulk (`oid = ANY($1)`), never one query per object.
import { sql } from "drizzle-orm";
import { gitObjects } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { toHex } from "../pure/bytes";
import {
  TYPE_CODE,
  TYPE_NAME,
  decodeCommit,
  decodeTag,
  decodeTree,
  deflate,
  inflate,
  type Commit,
  type RawObject,
  type Tag,
  type TreeEntry,
} from "../pure/objects";

/** Rows per INSERT: 6 parameters each, far below Postgres' 65,535. */
const INSERT_CHUNK = 500;
/** Objects larger than this belong in R2 (GIT.md §10). */
export const INLINE_LIMIT = 1024 * 1024;

const byteaHex = (oid: string) => `\\x${oid}`;

/**
 * Writes objects that are not there yet. Duplicates within `objects` are dropped first.
 * Differs from GIT.md §2: blobs over 1 MiB stay inline until the R2 binding exists (wrangler.toml has none yet).
 */
export async function writeObjects(db: Executor, poolId: number, objects: RawObject[]): Promise<void> {
  const rows = objectRows(poolId, objects);
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db.insert(gitObjects).values(rows.slice(i, i + INSERT_CHUNK)).onConflictDoNothing();
  }
}

/** `git_objects` rows for `objects`: duplicates dropped, sorted by id, bodies deflated. */
export function objectRows(poolId: number, objects: RawObject[]) {
  const unique = new Map<string, RawObject>();
  for (const object of objects) unique.set(object.oid, object);
  // Sorted by id: concurrent writers then take row locks in the same order and cannot deadlock.
  return [...unique.values()].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0)).map((object) => ({
    poolId,
    oid: hexBytes(object.oid),
    type: TYPE_CODE[object.type],
    size: object.body.length,
    zdata: deflate(object.body),
    r2Key: null,
  }));
}

function hexBytes(oid: string): Uint8Array {
  const out = new Uint8Array(20);
  for (let i = 0; i < 20; i++) out[i] = parseInt(oid.substr(i * 2, 2), 16);
  return out;
}

type ObjectRow = { oid: Uint8Array | string; type: number; zdata: Uint8Array | string | null };

/** A bytea column as the driver returns it (bytes, or `\\x…` hex text). */
export function rowBytes(value: Uint8Array | string): Uint8Array {
  if (typeof value !== "string") return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  const hex = value.startsWith("\\x") ? value.slice(2) : value;
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

/** Reads objects by id in one statement; missing ids are simply absent from the map. */
export async function readObjects(db: Executor, poolId: number, oids: Iterable<string>): Promise<Map<string, RawObject>> {
  const wanted = [...new Set(oids)];
  const found = new Map<string, RawObject>();
  if (wanted.length === 0) return found;
  const result = await db.execute<ObjectRow>(
    sql`SELECT oid, type, zdata FROM git_objects WHERE pool_id = ${poolId} AND oid = ANY(${sql.param(wanted.map(byteaHex))}::bytea[])`,
  );
  for (const row of result.rows) {
    if (row.zdata === null) continue; // R2-resident blobs are not written yet (see writeObjects)
    const oid = toHex(rowBytes(row.oid));
    found.set(oid, { oid, type: TYPE_NAME[row.type], body: inflate(rowBytes(row.zdata)) });
  }
  return found;
}

export async function readObject(db: Executor, poolId: number, oid: string): Promise<RawObject | null> {
  return (await readObjects(db, poolId, [oid])).get(oid) ?? null;
}

/** Which of `oids` the pool already holds (one statement): lets writers skip work. */
export async function existingObjects(db: Executor, poolId: number, oids: Iterable<string>): Promise<Set<string>> {
  const wanted = [...new Set(oids)];
  if (wanted.length === 0) return new Set();
  const result = await db.execute<{ oid: Uint8Array | string }>(
    sql`SELECT oid FROM git_objects WHERE pool_id = ${poolId} AND oid = ANY(${sql.param(wanted.map(byteaHex))}::bytea[])`,
  );
  return new Set(result.rows.map((row) => toHex(rowBytes(row.oid))));
}

// ---------------------------------------------------------------------------------------------------
// Decoded-tree cache: objects are immutable, so a tree decoded once stays valid for the isolate's life.

const TREE_CACHE_LIMIT = 4000;
const treeCache = new Map<string, TreeEntry[]>();

/** Empties the decoded-tree cache (tests measure cold reads). */
export function clearTreeCache() {
  treeCache.clear();
}

function cacheTree(key: string, entries: TreeEntry[]) {
  if (treeCache.size >= TREE_CACHE_LIMIT) {
    const oldest = treeCache.keys().next().value;
    if (oldest !== undefined) treeCache.delete(oldest);
  }
  treeCache.set(key, entries);
}

/**
 * Caches trees another statement read along with its own rows (the state read of a write joins the
 * root trees it will edit): the next `readTrees` of them needs no statement. Rows without data (not
 * in the pool, or in R2) and non-trees are skipped; the cache only ever holds what the pool holds.
 */
export function primeTrees(poolId: number, rows: { oid: string; zdata: Uint8Array | string | null }[]) {
  for (const row of rows) {
    if (row.zdata === null || treeCache.has(`${poolId}:${row.oid}`)) continue;
    const body = inflate(rowBytes(row.zdata));
    cacheTree(`${poolId}:${row.oid}`, decodeTree(body));
  }
}

/** Decoded trees by id, one statement for those not cached. Throws if an id is not a tree of the pool. */
export async function readTrees(db: Executor, poolId: number, oids: Iterable<string>): Promise<Map<string, TreeEntry[]>> {
  const out = new Map<string, TreeEntry[]>();
  const missing: string[] = [];
  for (const oid of new Set(oids)) {
    const cached = treeCache.get(`${poolId}:${oid}`);
    if (cached) {
      // Refresh its place in the LRU order.
      treeCache.delete(`${poolId}:${oid}`);
      treeCache.set(`${poolId}:${oid}`, cached);
      out.set(oid, cached);
    } else missing.push(oid);
  }
  if (missing.length) {
    const objects = await readObjects(db, poolId, missing);
    for (const oid of missing) {
      const object = objects.get(oid);
      if (!object || object.type !== "tree") throw new GitStoreError(`missing tree ${oid}`);
      const entries = decodeTree(object.body);
      cacheTree(`${poolId}:${oid}`, entries);
      out.set(oid, entries);
    }
  }
  return out;
}

export async function readCommitObject(db: Executor, poolId: number, oid: string): Promise<Commit | null> {
  const object = await readObject(db, poolId, oid);
  return object?.type === "commit" ? decodeCommit(object.body) : null;
}

export async function readTagObject(db: Executor, poolId: number, oid: string): Promise<Tag | null> {
  const object = await readObject(db, poolId, oid);
  return object?.type === "tag" ? decodeTag(object.body) : null;
}

/** A broken invariant of the store (an object that must exist does not): a 500, never user input. */
export class GitStoreError extends Error {}

/** The stored sizes of objects (`git cat-file -s`), in one statement; missing ids are absent. */
export async function objectSizes(db: Executor, poolId: number, oids: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (oids.length === 0) return out;
  const result = await db.execute<{ oid: string; size: number }>(sql`SELECT encode(oid, 'hex') AS oid, size FROM git_objects
    WHERE pool_id = ${poolId} AND oid = ANY(${sql.param([...new Set(oids)].map(byteaHex))}::bytea[])`);
  for (const row of result.rows) out.set(row.oid, Number(row.size));
  return out;
}
