// Git LFS object storage in R2: an upload streams into R2 under a key of its own while its SHA-256 is
// computed on the way; only a verified upload is recorded. Nothing is buffered beyond the stream's chunks.
import type { Executor } from "../kernel/db";
import * as q from "./queries";

export class UploadMismatch extends Error {}

const uploadKey = (oid: string) => `lfs-objects/${oid.slice(0, 2)}/${oid.slice(2, 4)}/${oid}-${crypto.randomUUID()}`;

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");

/**
 * Stores `body` as the object `oid` of `size` bytes and links it to the project
 * (LfsStorageController#upload_finalize). A body of another length or digest is an UploadMismatch
 * and leaves nothing behind. When the oid was already stored, the new copy is dropped.
 */
export async function storeUpload(bucket: R2Bucket, db: Executor, projectId: number, oid: string, size: number, body: ReadableStream<Uint8Array> | null, contentLength: number | null): Promise<void> {
  // A declared length other than the path's is refused before anything is read.
  if (contentLength !== null && contentLength !== size) throw new UploadMismatch();
  const key = uploadKey(oid);
  const source = body ?? new Blob([]).stream();
  const [toDigest, toStore] = source.tee();
  const digest = new crypto.DigestStream("SHA-256");
  digest.digest.catch(() => undefined);
  // FixedLengthStream: R2 needs the length up front (git-lfs sends `Transfer-Encoding: chunked`), and a
  // body longer or shorter than `size` errors the stream, which fails the put.
  const fixed = new FixedLengthStream(size);
  const [stored, piped, digested] = await Promise.allSettled([
    bucket.put(key, fixed.readable, { httpMetadata: { contentType: "application/octet-stream" } }),
    toStore.pipeTo(fixed.writable),
    toDigest.pipeTo(digest).then(() => digest.digest),
  ]);
  // The digest branch reads the whole body on its own: its count and hash decide a mismatch; any other
  // failure (R2, a client that hung up) is an error.
  const mismatch = digested.status === "fulfilled" && (Number(digest.bytesWritten) !== size || hex(digested.value) !== oid);
  if (mismatch || stored.status === "rejected" || piped.status === "rejected" || digested.status === "rejected") {
    await bucket.delete(key).catch(() => undefined);
    if (mismatch) throw new UploadMismatch();
    const failed = [stored, piped, digested].find((r) => r.status === "rejected") as PromiseRejectedResult;
    throw failed.reason;
  }
  let recorded = await q.recordUpload(db, projectId, { oid, size, file: key });
  // A concurrent upload of the same oid committed after this statement's snapshot: ask once more.
  if (!recorded) recorded = await q.recordUpload(db, projectId, { oid, size, file: key });
  if (!recorded) throw new Error(`LFS object ${oid} could not be recorded`);
  if (!recorded.created) await bucket.delete(key);
}
