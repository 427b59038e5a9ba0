// The object store (docs/git.md, "Principles", "Tables"): immutable, content-addressed rows in `git_objects`, written with
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

import { INLINE_LIMIT, blobKey, getBlobZdata, hasBlobBucket, putBlobZdata } from "./blobs";

export { INLINE_LIMIT } from "./blobs";

/** Rows per INSERT: 6 parameters each, far below Postgres' 65,535. */
const INSERT_CHUNK = 500;

const byteaHex = (oid: string) => `\\x${oid}`;

/**
 * Writes objects that are not there yet. Duplicates within `objects` are dropped first; blobs over
 * 1 MiB go to R2 first (see objectRows).
 */
export async function writeObjects(db: Executor, poolId: number, objects: RawObject[]): Promise<void> {
  const rows = await objectRows(poolId, objects);
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db.insert(gitObjects).values(rows.slice(i, i + INSERT_CHUNK)).onConflictDoNothing();
  }
}

export type ObjectInsert = { poolId: number; oid: Uint8Array; type: number; size: number; zdata: Uint8Array | null; r2Key: string | null };

/**
 * `git_objects` rows for `objects`: duplicates dropped, sorted by id, bodies deflated. Blobs over
 * 1 MiB are put in R2 before this resolves (docs/git.md, "Tables": the row keeps type and size), so the caller
 * writes rows only for bytes that are already stored.
 */
export async function objectRows(poolId: number, objects: RawObject[]): Promise<ObjectInsert[]> {
  const unique = new Map<string, RawObject>();
  for (const object of objects) unique.set(object.oid, object);
  // Sorted by id: concurrent writers then take row locks in the same order and cannot deadlock.
  const sorted = [...unique.values()].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
  return Promise.all(
    sorted.map((object) => storedRow(poolId, object.oid, TYPE_CODE[object.type], object.body.length, deflate(object.body))),
  );
}

/** Whether an object of this type and size lives in R2 (blobs over 1 MiB, when the binding exists). */
export const belongsInR2 = (type: number, size: number) => type === TYPE_CODE.blob && size > INLINE_LIMIT && hasBlobBucket();

/** The row of one object whose zlib body is known; a large blob's body goes to R2 first. */
export async function storedRow(poolId: number, oid: string, type: number, size: number, zdata: Uint8Array): Promise<ObjectInsert> {
  if (!belongsInR2(type, size)) return { poolId, oid: hexBytes(oid), type, size, zdata, r2Key: null };
  const key = blobKey(poolId, oid);
  await putBlobZdata(key, zdata);
  return { poolId, oid: hexBytes(oid), type, size, zdata: null, r2Key: key };
}

function hexBytes(oid: string): Uint8Array {
  const out = new Uint8Array(20);
  for (let i = 0; i < 20; i++) out[i] = parseInt(oid.substr(i * 2, 2), 16);
  return out;
}

type ObjectRow = { oid: Uint8Array | string; type: number; zdata: Uint8Array | string | null; r2_key: string | null };

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
    sql`SELECT oid, type, zdata, r2_key FROM git_objects WHERE pool_id = ${poolId} AND oid = ANY(${sql.param(wanted.map(byteaHex))}::bytea[])`,
  );
  const remote: Promise<void>[] = [];
  for (const row of result.rows) {
    const oid = toHex(rowBytes(row.oid));
    const type = TYPE_NAME[row.type];
    if (row.zdata !== null) found.set(oid, { oid, type, body: inflate(rowBytes(row.zdata)) });
    else if (row.r2_key !== null) {
      const key = row.r2_key;
      remote.push(getBlobZdata(key).then((zdata) => void found.set(oid, { oid, type, body: inflate(zdata) })));
    }
  }
  // R2 reads in parallel; a row whose R2 object is missing is a broken store (BlobStoreError), not absence.
  await Promise.all(remote);
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

/**
 * Caches the trees among `objects` once a statement has stored them: the next commit on the same
 * directories (a commit bursts, a merge after the commit that made its source) reads the parent's
 * subtrees without a statement. Only for a committed write: the cache only ever holds what the pool holds.
 */
export function cacheStoredTrees(poolId: number, objects: RawObject[]) {
  for (const object of objects) if (object.type === "tree" && !treeCache.has(`${poolId}:${object.oid}`)) cacheTree(`${poolId}:${object.oid}`, decodeTree(object.body));
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
