import type { Executor } from "../kernel/db";
import type { MetricImageRow } from "./entities";
import * as q from "./queries";

/**
 * Metric image writes: the bytes in R2 (binding `BLOBS`), the row in Postgres. The blob is written
 * first under a fresh key and removed again if the row cannot be written, so a row never points at a
 * missing blob; deleting removes the row first, then the blob.
 */

const CONTENT_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  bmp: "image/bmp",
  tiff: "image/tiff",
  ico: "image/vnd.microsoft.icon",
  webp: "image/webp",
};

/** `issuable_metric_image/<random>/<file name>`: unguessable and unique, whatever the name. */
export function blobKey(fileName: string): string {
  return `issuable_metric_image/${crypto.randomUUID()}/${fileName}`;
}

export async function uploadMetricImage(
  db: Executor,
  blobs: R2Bucket,
  input: { issueId: number; file: File; fileName: string; url: string | null; urlText: string | null },
): Promise<MetricImageRow> {
  const key = blobKey(input.fileName);
  const extension = input.fileName.split(".").pop()!.toLowerCase();
  await blobs.put(key, await input.file.arrayBuffer(), {
    httpMetadata: { contentType: CONTENT_TYPES[extension] ?? "application/octet-stream" },
  });
  try {
    return await q.insertMetricImage(db, {
      issueId: input.issueId,
      fileName: input.fileName,
      r2Key: key,
      url: input.url,
      urlText: input.urlText,
      size: input.file.size,
    });
  } catch (error) {
    await blobs.delete(key);
    throw error;
  }
}

export async function deleteMetricImage(db: Executor, blobs: R2Bucket, image: MetricImageRow): Promise<void> {
  await q.deleteMetricImage(db, image.id);
  await blobs.delete(image.r2Key);
}
