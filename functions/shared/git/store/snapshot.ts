// The repository snapshot (Gitaly's GetSnapshot, which Workhorse serves for `GET /projects/:id/snapshot`):
// a tar of the bare repository as it would sit on disk. Gitaly picks files by name: HEAD, packed-refs,
// refs/, the loose objects and packs under objects/, and shallow; it leaves out config (it may hold
// credentials), hooks, info/, logs/ and objects/info/*. Edgeforge keeps no repository on disk, so the
// snapshot is the repository git would have after `git gc`: HEAD, packed-refs with every ref, the empty
// folders git expects (refs/heads, refs/tags, objects/info, objects/pack), and one pack of every object
// the refs reach with its index. The pack streams from the stored zlib bodies as upload-pack's does, so
// a tar member's length (which its header states before its bytes) is computed first from the stored
// lengths, without reading a body.
import type { Bindings } from "../../../kernel/env";
import { createDb, type Executor } from "../../../kernel/db";
import { crc32, packIndex, type IndexedObject } from "../pack/idx";
import { PackWriter, entryHeader, hex, unhex } from "../pack/pack";
import { utf8 } from "../pure/bytes";
import { TAR_END, tarEntryHeader, tarPadding } from "../pure/tar";
import { sha1 } from "@noble/hashes/legacy.js";
import { blobZdataLength, streamBlobZdata } from "./blobs";
import { readPackRowSizes, readPackRows, reachableObjects, type PackRowSize } from "./reachable";
import { listRefs, type Ref } from "./refs";
import type { Repo } from "./revisions";

const READ_CHUNK = 1000;

export type SnapshotPlan = {
  /** HEAD's branch. */
  head: string;
  refs: Ref[];
  /** The pack's objects in pack order, with their stored lengths. */
  objects: PackRowSize[];
  /** `pack-<name>.pack`: the SHA-1 of the sorted object ids (see `planSnapshot`). */
  packName: string;
  packLength: number;
};

/**
 * What the snapshot holds, read before a byte is sent: the refs, every object they reach, and each
 * object's stored length (an R2-resident blob's from its R2 object). Throws MissingObjectError when
 * a ref reaches an object the store does not have.
 */
export async function planSnapshot(db: Executor, repo: Repo): Promise<SnapshotPlan> {
  const refs = await listRefs(db, repo.projectId);
  const oids = await reachableObjects(db, repo.poolId, refs.map((r) => r.target));
  const objects: PackRowSize[] = [];
  let packLength = 12 + 20;
  for (let i = 0; i < oids.length; i += READ_CHUNK) {
    const chunk = oids.slice(i, i + READ_CHUNK);
    const rows = await readPackRowSizes(db, repo.poolId, chunk);
    for (const oid of chunk) {
      const row = rows.get(oid);
      if (!row) throw new Error(`snapshot: object ${oid} is missing from the store`);
      if (row.zlength === null) row.zlength = await blobZdataLength(row.r2Key!);
      packLength += entryHeader(row.type, row.size).length + row.zlength;
      objects.push(row);
    }
  }
  // git (before 1.8.4.2) named a pack after the SHA-1 of its sorted object ids; today's git uses the
  // pack's trailing checksum, which is only known once the pack is written, after its tar header. git
  // reads a pack by any `pack-<40 hex>` name, so the older naming lets the pack stream.
  const names = sha1.create();
  for (const oid of [...oids].sort()) names.update(unhex(oid));
  return { head: repo.defaultBranch ?? "main", refs, objects, packName: hex(names.digest()), packLength };
}

/** packed-refs as `git pack-refs` writes it: sorted, an annotated tag's commit on a `^` line after it. */
function packedRefs(refs: Ref[]): Uint8Array {
  // No `peeled`/`fully-peeled` trait: the ref table keeps a tag's commit, not the object a tag of a
  // tree or blob peels to, so git is told to peel the refs without a `^` line itself.
  const lines = ["# pack-refs with: sorted \n"];
  for (const ref of refs) {
    lines.push(`${ref.target} ${ref.name}\n`);
    if (ref.peeled) lines.push(`^${ref.peeled}\n`);
  }
  return utf8.encode(lines.join(""));
}

/**
 * The snapshot tar, streamed: small files and folders, then the pack read from the store in chunks
 * on a connection of its own (the request's closes when the handler returns), then its index.
 */
export async function* snapshotTar(env: Bindings, poolId: number, plan: SnapshotPlan, mtime: number): AsyncGenerator<Uint8Array> {
  const file = function* (path: string, body: Uint8Array) {
    yield tarEntryHeader({ path, kind: "file", size: body.length }, mtime);
    yield body;
    yield tarPadding(body.length);
  };
  const dir = (path: string) => tarEntryHeader({ path, kind: "dir", size: 0 }, mtime);
  yield* file("HEAD", utf8.encode(`ref: refs/heads/${plan.head}\n`));
  if (plan.refs.length) yield* file("packed-refs", packedRefs(plan.refs));
  for (const path of ["refs", "refs/heads", "refs/tags", "objects", "objects/info", "objects/pack"]) yield dir(path);
  if (plan.objects.length === 0) {
    yield TAR_END;
    return;
  }
  const { db, pool } = createDb(env);
  try {
    yield tarEntryHeader({ path: `objects/pack/pack-${plan.packName}.pack`, kind: "file", size: plan.packLength }, mtime);
    const writer = new PackWriter();
    const indexed: IndexedObject[] = [];
    yield writer.header(plan.objects.length);
    let next = readPackRows(db, poolId, plan.objects.slice(0, READ_CHUNK).map((o) => o.oid));
    for (let i = 0; i < plan.objects.length; i += READ_CHUNK) {
      const chunk = plan.objects.slice(i, i + READ_CHUNK);
      const rows = await next;
      // Read the next chunk while this one is sent.
      if (i + READ_CHUNK < plan.objects.length) next = readPackRows(db, poolId, plan.objects.slice(i + READ_CHUNK, i + 2 * READ_CHUNK).map((o) => o.oid));
      for (const planned of chunk) {
        const row = rows.get(planned.oid);
        const offset = writer.written;
        if (row?.zdata) {
          // The member's length was stated from the planned lengths: bytes of another length would corrupt the tar.
          if (row.zdata.length !== planned.zlength) throw new Error(`snapshot: object ${planned.oid} changed length`);
          const entry = writer.entry(row.type, row.size, row.zdata);
          indexed.push({ oid: planned.oid, offset, crc: crc32(0, entry) });
          yield entry;
        } else if (row?.r2Key) {
          // A blob over 1 MiB: its zlib body streams from R2, never whole in memory.
          const { size, body } = await streamBlobZdata(row.r2Key);
          if (size !== planned.zlength) throw new Error(`snapshot: object ${planned.oid} changed length`);
          const head = writer.entryHeader(row.type, row.size);
          let crc = crc32(0, head);
          yield head;
          const reader = body.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            crc = crc32(crc, value);
            yield writer.body(value);
          }
          indexed.push({ oid: planned.oid, offset, crc });
        } else {
          throw new Error(`snapshot: object ${planned.oid} is missing from the store`);
        }
      }
    }
    const checksum = writer.trailer();
    yield checksum;
    if (writer.written !== plan.packLength) throw new Error(`snapshot: pack is ${writer.written} bytes, ${plan.packLength} announced`);
    yield tarPadding(plan.packLength);
    yield* file(`objects/pack/pack-${plan.packName}.idx`, packIndex(indexed, checksum));
    yield TAR_END;
  } finally {
    await pool.end();
  }
}
