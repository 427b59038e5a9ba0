// Blobs over 1 MiB in R2 (docs/git.md, "Principles", "Limits"): the object row keeps type and size, R2 keeps exactly the
// bytes the row's `zdata` would hold (the zlib body without its `<type> <size>\0` header), so a pack
// entry is still the stored bytes behind a type-and-size header, streamed from R2 without inflating.
//
// Keys are content addresses, `git/<pool>/<oid>`: writing one twice writes the same bytes, and a key
// written by a writer that then lost (or whose statement failed) is an unreachable object, harmless as
// any other (docs/git.md, "Principles"). Writers put the R2 object before the row that points at it is written.

/** Objects larger than this belong in R2 (docs/git.md, "Limits"). */
export const INLINE_LIMIT = 1024 * 1024;

/**
 * The bucket of this isolate. Why a registration and not a parameter: the store's readers take an
 * Executor at some sixty call sites (trees, files, diffs, blame, merges, archives, imports), and the
 * R2 binding, like the database settings in kernel/db.ts, is the same for every request an isolate
 * serves. The entry points (fetch, queue, scheduled, the Durable Object) register `env.BLOBS`.
 */
let bucket: R2Bucket | null = null;

export function useBlobBucket(blobs: R2Bucket | undefined | null): void {
  if (blobs) bucket = blobs;
}

/** Whether large blobs can go to R2 here (without a binding they stay inline, as before R2 existed). */
export const hasBlobBucket = () => bucket !== null;

export const blobKey = (poolId: number, oid: string) => `git/${poolId}/${oid}`;

/** A broken invariant of the store (a row that points at R2 without a binding, or a missing R2 object). */
export class BlobStoreError extends Error {}

function requireBucket(): R2Bucket {
  if (!bucket) throw new BlobStoreError("git object store: the BLOBS R2 binding is not registered");
  return bucket;
}

/** Stores the zlib body of a large blob; resolves once R2 has it (before its row is written). */
export async function putBlobZdata(key: string, zdata: Uint8Array): Promise<void> {
  await requireBucket().put(key, zdata);
}

/** The zlib body of an R2-resident object, whole. */
export async function getBlobZdata(key: string): Promise<Uint8Array> {
  const object = await requireBucket().get(key);
  if (!object) throw new BlobStoreError(`git object store: R2 object ${key} is missing`);
  return new Uint8Array(await object.arrayBuffer());
}

/** The zlib body of an R2-resident object as a stream (pack responses), with its length. */
export async function streamBlobZdata(key: string): Promise<{ size: number; body: ReadableStream<Uint8Array> }> {
  const object = await requireBucket().get(key);
  if (!object) throw new BlobStoreError(`git object store: R2 object ${key} is missing`);
  return { size: object.size, body: object.body };
}

/** The length of an R2-resident object's zlib body, without reading it (a snapshot's pack length). */
export async function blobZdataLength(key: string): Promise<number> {
  const object = await requireBucket().head(key);
  if (!object) throw new BlobStoreError(`git object store: R2 object ${key} is missing`);
  return object.size;
}
