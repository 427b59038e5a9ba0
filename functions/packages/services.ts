import type { StoredFile } from "./queries";

/** Largest file kept by one upload. Differs from GitLab (5 GB for generic packages): a Worker holds the bytes in memory. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

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

/** Removes blobs after their rows are gone; a failure leaves an orphan object, never a dangling row. */
export async function removeFiles(bucket: R2Bucket, keys: string[]): Promise<void> {
  if (keys.length) await bucket.delete(keys);
}
