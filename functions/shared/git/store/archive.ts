// `git archive` (Gitaly GetArchive, as Workhorse serves `GET /repository/archive`): the tree of a
// commit (or one path of it) under a `<prefix>/` folder, as tar, tar.gz, tar.bz2 or zip, streamed: blobs are
// read from the store in small batches while the archive is sent, over a connection of its own.
import { Zip, ZipDeflate, ZipPassThrough } from "fflate";
import type { Bindings } from "../../../kernel/env";
import { createDb, type Executor } from "../../../kernel/db";
import { isTreeMode } from "../pure/objects";
import { TAR_END, tarEntryHeader, tarGlobalHeader, tarPadding } from "../pure/tar";
import { readObjects } from "./objects";
import { listTree } from "./read";
import type { Repo } from "./revisions";
import { entryAtPath, storeSource } from "./trees";

export type ArchiveFormat = "tar" | "tar.gz" | "tar.bz2" | "zip"; // tar.bz2 and tar.gz: tarArchive piped through a compressor

export type ArchiveItem = { path: string; mode: string; oid: string };

/** Blobs read per statement while streaming. */
const BLOB_BATCH = 64;

/**
 * What the archive holds, in `git archive`'s order (depth-first, a directory before its entries):
 * the whole tree, or only `path` (a directory or a file) with its full path. Null when `path` is not
 * in the tree. Metadata only: no blob is read here.
 */
export async function archiveItems(db: Executor, repo: Repo, tree: string, path: string | null): Promise<ArchiveItem[] | null> {
  const clean = (path ?? "").split("/").filter((s) => s !== "").join("/");
  if (!clean) return ((await listTree(db, repo, tree, "", true)) ?? []).map((e) => ({ path: e.path, mode: e.mode, oid: e.oid }));
  const entry = await entryAtPath(storeSource(db, repo.poolId), tree, clean);
  if (!entry) return null;
  // Leading directories, as git writes them for a pathspec.
  const parts = clean.split("/");
  const leading = parts.slice(0, -1).map((_, i) => ({ path: parts.slice(0, i + 1).join("/"), mode: "040000", oid: "" }));
  if (!isTreeMode(entry.mode)) return [...leading, { path: clean, mode: entry.mode, oid: entry.oid }];
  const inside = (await listTree(db, repo, tree, clean, true)) ?? [];
  return [...leading, { path: clean, mode: "040000", oid: entry.oid }, ...inside.map((e) => ({ path: e.path, mode: e.mode, oid: e.oid }))];
}

const isDir = (mode: string) => isTreeMode(mode) || mode === "160000"; // git archives a submodule as an empty folder

/** The items with their blob bodies, batch by batch. */
async function* withBodies(db: Executor, poolId: number, items: ArchiveItem[]): AsyncGenerator<{ item: ArchiveItem; body: Uint8Array | null }> {
  for (let i = 0; i < items.length; ) {
    const batch: ArchiveItem[] = [];
    let blobs = 0;
    while (i < items.length && blobs < BLOB_BATCH) {
      batch.push(items[i]);
      if (!isDir(items[i].mode)) blobs++;
      i++;
    }
    const bodies = await readObjects(db, poolId, batch.filter((it) => !isDir(it.mode)).map((it) => it.oid));
    for (const item of batch) {
      if (isDir(item.mode)) yield { item, body: null };
      else {
        const object = bodies.get(item.oid);
        if (!object) throw new Error(`archive: blob ${item.oid} is missing from the store`);
        yield { item, body: object.body };
      }
    }
  }
}

/** A tar archive of `items` under `<prefix>/`, dated `mtime` (unix seconds). */
export async function* tarArchive(env: Bindings, poolId: number, commitId: string, prefix: string, mtime: number, items: ArchiveItem[]): AsyncGenerator<Uint8Array> {
  const { db, pool } = createDb(env);
  try {
    yield tarGlobalHeader(commitId, mtime);
    yield tarEntryHeader({ path: prefix, kind: "dir", size: 0 }, mtime);
    for await (const { item, body } of withBodies(db, poolId, items)) {
      const path = `${prefix}/${item.path}`;
      if (!body) {
        yield tarEntryHeader({ path, kind: "dir", size: 0 }, mtime);
        continue;
      }
      if (item.mode === "120000") {
        yield tarEntryHeader({ path, kind: "symlink", size: 0, linkTarget: new TextDecoder().decode(body) }, mtime);
        continue;
      }
      yield tarEntryHeader({ path, kind: "file", executable: item.mode === "100755", size: body.length }, mtime);
      yield body;
      yield tarPadding(body.length);
    }
    yield TAR_END;
  } finally {
    await pool.end();
  }
}

/** A zip archive (`git archive --format=zip`: deflated files, Unix modes in the external attributes). */
export async function* zipArchive(env: Bindings, poolId: number, prefix: string, mtime: number, items: ArchiveItem[]): AsyncGenerator<Uint8Array> {
  const { db, pool } = createDb(env);
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  let ended = false;
  const zip = new Zip((error, chunk, final) => {
    if (error) failure = error;
    else out.push(chunk);
    if (final) ended = true;
  });
  const drain = function* () {
    if (failure) throw failure;
    while (out.length) yield out.shift()!;
  };
  const date = new Date(mtime * 1000);
  const add = (name: string, mode: number, body: Uint8Array | null, deflate: boolean) => {
    const file = deflate ? new ZipDeflate(name, { level: 6 }) : new ZipPassThrough(name);
    file.mtime = date;
    file.os = 3; // Unix: the mode travels in the high half of the external attributes
    file.attrs = mode << 16;
    zip.add(file);
    file.push(body ?? new Uint8Array(), true);
  };
  try {
    add(`${prefix}/`, 0o40775, null, false);
    yield* drain();
    for await (const { item, body } of withBodies(db, poolId, items)) {
      const path = `${prefix}/${item.path}`;
      if (!body) add(`${path}/`, 0o40775, null, false);
      else if (item.mode === "120000") add(path, 0o120777, body, false);
      else add(path, item.mode === "100755" ? 0o100775 : 0o100664, body, true);
      yield* drain();
    }
    zip.end();
    yield* drain();
    if (!ended) throw new Error("archive: zip did not end");
  } finally {
    await pool.end();
  }
}
