import { R2PartWriter } from "../shared/r2_parts";
import type { StoredFile } from "./queries";

/** Largest file kept by one upload. Differs from GitLab (5 GB for generic packages): a Worker holds the bytes in memory. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
/**
 * `generic_packages_max_file_size`'s default (5 GB): generic files stream into R2 (`streamFile`), so no
 * Worker holds them. Cloudflare caps a request body by plan (100 MB to 500 MB) before this is reached.
 */
export const GENERIC_MAX_FILE_BYTES = 5 * 1024 * 1024 * 1024;

async function hex(algorithm: string, bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest(algorithm, bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Puts the bytes of a package file in R2 (`BLOBS`) under a fresh key and returns what the file row
 * records: size and the md5, sha1 and sha256 of the content.
 */
export async function storeFile(bucket: R2Bucket, projectId: number, fileName: string, bytes: Uint8Array): Promise<StoredFile> {
  const [fileMd5, fileSha1, fileSha256] = [await hex("MD5", bytes), await hex("SHA-1", bytes), await hex("SHA-256", bytes)];
  const fileStore = `packages/${projectId}/${crypto.randomUUID()}/${fileName}`;
  await bucket.put(fileStore, bytes, { sha256: fileSha256 });
  return { fileName, size: bytes.byteLength, fileMd5, fileSha1, fileSha256, fileStore };
}

const toHex = (digest: ArrayBuffer) => [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");

/**
 * Streams a package file into R2 under a fresh key (shared/r2_parts.ts), computing its md5, sha1 and
 * sha256 on the way. The object is not visible until the caller closes the writer (once every check
 * passed), and aborting it leaves nothing; a failure while streaming aborts it already.
 */
export async function streamFile(bucket: R2Bucket, projectId: number, fileName: string, chunks: AsyncIterable<Uint8Array>): Promise<{ writer: R2PartWriter; stored: StoredFile }> {
  const writer = new R2PartWriter(bucket, `packages/${projectId}/${crypto.randomUUID()}/${fileName}`);
  const digests = ["MD5", "SHA-1", "SHA-256"].map((algorithm) => new crypto.DigestStream(algorithm));
  const hashers = digests.map((d) => d.getWriter());
  await writer.drain(chunks, async (chunk) => {
    await Promise.all(hashers.map((h) => h.write(chunk)));
  });
  await Promise.all(hashers.map((h) => h.close()));
  const [fileMd5, fileSha1, fileSha256] = (await Promise.all(digests.map((d) => d.digest))).map(toHex);
  return { writer, stored: { fileName, size: writer.size, fileMd5, fileSha1, fileSha256, fileStore: writer.key } };
}

/** Removes blobs after their rows are gone; a failure leaves an orphan object, never a dangling row. */
export async function removeFiles(bucket: R2Bucket, keys: string[]): Promise<void> {
  if (keys.length) await bucket.delete(keys);
}
