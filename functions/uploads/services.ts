import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { Executor } from "../kernel/db";
import * as q from "./queries";
import { newSecret } from "./rules";

/**
 * UploadService: the bytes in R2 (binding `BLOBS`) under `uploads/<project id>/<secret>/<file name>`,
 * then the `uploads` row; the blob is removed again when the row cannot be written, so a row never
 * points at a missing blob.
 */
export async function storeUpload(
  db: Executor,
  blobs: R2Bucket,
  input: { projectId: number; userId: number; fileName: string; file: File },
): Promise<q.Upload> {
  const secret = newSecret();
  const path = `${secret}/${input.fileName}`;
  const key = `uploads/${input.projectId}/${path}`;
  const bytes = new Uint8Array(await input.file.arrayBuffer());
  const contentType = input.file.type || "application/octet-stream";
  await blobs.put(key, bytes, { httpMetadata: { contentType } });
  try {
    return await q.insertUpload(db, {
      size: bytes.length,
      path,
      checksum: bytesToHex(sha256(bytes)),
      modelType: "Project",
      modelId: input.projectId,
      uploader: "FileUploader",
      secret,
      contentType,
      r2Key: key,
      uploadedById: input.userId,
    });
  } catch (error) {
    await blobs.delete(key);
    throw error;
  }
}
