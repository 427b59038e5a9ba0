import { and, asc, eq } from "drizzle-orm";
import { alertManagementAlertMetricImages, issuableMetricImages } from "../../db/schema";
import type { Executor } from "../kernel/db";

/**
 * Metric images of incidents (`issuable_metric_images`) and of alerts
 * (`alert_management_alert_metric_images`): the validations of MetricImageUploading
 * (ee/app/models/concerns/metric_image_uploading.rb), their reads by owner and the one writer of both tables, with their
 * bytes in R2 (binding `BLOBS`). The blob is written first under a fresh key and removed again if the
 * row cannot be written, so a row never points at a missing blob; deleting removes the row first, then
 * the blob. Two tables, as GitLab has: see docs/domains.md ("Metric images").
 */

/** 1 megabyte (`MetricImageUploading::MAX_FILE_SIZE`). */
export const MAX_FILE_SIZE = 1024 * 1024;
/** Gitlab::FileTypeDetection::SAFE_IMAGE_EXT. */
const IMAGE_EXTENSIONS = ["png", "jpg", "jpeg", "gif", "bmp", "tiff", "ico", "webp"];
const URL_MAX = 255;
const URL_TEXT_MAX = 128;

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

/** CarrierWave's sanitized name: the base name, anything but word characters, `.`, `-` and `+` as `_`. */
export function sanitizeFilename(name: string): string {
  const base = name.replace(/\\/g, "/").split("/").pop() ?? "";
  return base.replace(/[^\p{L}\p{N}_.\-+]/gu, "_");
}

/**
 * PublicUrlValidator over Gitlab::UrlBlocker: http(s) only, never localhost or the local network.
 * Differs from GitLab: host names are not resolved (Workers have no DNS API), so only literal
 * addresses and `localhost` are refused.
 */
function blockedUrl(value: string): string | null {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) return "Only allowed schemes are http, https";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "URI is invalid";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Only allowed schemes are http, https";
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1" || host === "::" || /^(127\.|0\.)/.test(host))
    return "Requests to localhost are not allowed";
  if (/^169\.254\./.test(host) || /^fe[89ab][0-9a-f]:/.test(host)) return "Requests to the link local network are not allowed";
  if (
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
    /^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./.test(host) ||
    /^f[cd][0-9a-f]{2}:/.test(host)
  )
    return "Requests to the local network are not allowed";
  return null;
}

/** ActiveModel full messages of an image's validations, in GitLab's order (file, url, url_text). */
export function imageErrors(image: { fileName?: string; url?: string | null; urlText?: string | null }): string[] {
  const errors: string[] = [];
  if (image.fileName !== undefined) {
    const extension = image.fileName.includes(".") ? image.fileName.split(".").pop()!.toLowerCase() : "";
    if (!IMAGE_EXTENSIONS.includes(extension))
      errors.push("File does not have a supported extension. Only png, jpg, jpeg, gif, bmp, tiff, ico, and webp are supported");
  }
  if (image.url) {
    if (image.url.length > URL_MAX) errors.push(`Url is too long (maximum is ${URL_MAX} characters)`);
    const blocked = blockedUrl(image.url.trim());
    if (blocked) errors.push(`Url is blocked: ${blocked}`);
  }
  if (image.urlText && image.urlText.length > URL_TEXT_MAX) errors.push(`Url text is too long (maximum is ${URL_TEXT_MAX} characters)`);
  return errors;
}

/**
 * An upload as MetricImageUploading validates it: the sanitized file name, `url` and `url_text`, and
 * the full messages of what is wrong (an empty file, then `imageErrors`); the caller picks the status.
 */
export function checkUpload(params: { file: File; url?: string; url_text?: string }) {
  const fileName = sanitizeFilename(params.file.name);
  const url = params.url ?? null;
  const urlText = params.url_text ?? null;
  const errors = [...(params.file.size === 0 ? ["File can't be blank"] : []), ...imageErrors({ fileName, url, urlText })];
  return { image: { file: params.file, fileName, url, urlText }, errors };
}

/** The columns a PUT changes (only the parameters sent), and whether they are valid. */
export function checkChanges(params: { url?: string | null; url_text?: string | null }) {
  const changes: { url?: string | null; urlText?: string | null } = {};
  if (params.url !== undefined) changes.url = params.url;
  if (params.url_text !== undefined) changes.urlText = params.url_text;
  return { changes, valid: imageErrors(changes).length === 0 };
}

export type IssueMetricImage = typeof issuableMetricImages.$inferSelect;
export type AlertMetricImage = typeof alertManagementAlertMetricImages.$inferSelect;

/** Whose image: an incident's (upload model `issuable_metric_image`) or an alert's (`alert_management_metric_image`). */
export type MetricImageOwner = { issueId: number } | { alertId: number };
type ImageOf<O> = O extends { issueId: number } ? IssueMetricImage : AlertMetricImage;

/** `metric_images.order_created_at_asc` of an incident or an alert. */
export async function listMetricImages<O extends MetricImageOwner>(db: Executor, owner: O): Promise<ImageOf<O>[]> {
  if ("issueId" in owner) {
    const t = issuableMetricImages;
    return (await db.select().from(t).where(eq(t.issueId, owner.issueId)).orderBy(asc(t.createdAt), asc(t.id))) as ImageOf<O>[];
  }
  const t = alertManagementAlertMetricImages;
  return (await db.select().from(t).where(eq(t.alertId, owner.alertId)).orderBy(asc(t.createdAt), asc(t.id))) as ImageOf<O>[];
}

/** `metric_images.find_by_id(id)`: always through its incident or alert; null when it is not theirs. */
export async function findMetricImage<O extends MetricImageOwner>(db: Executor, owner: O, id: number): Promise<ImageOf<O> | null> {
  if ("issueId" in owner) {
    const t = issuableMetricImages;
    const [row] = await db.select().from(t).where(and(eq(t.issueId, owner.issueId), eq(t.id, id))).limit(1);
    return (row ?? null) as ImageOf<O> | null;
  }
  const t = alertManagementAlertMetricImages;
  const [row] = await db.select().from(t).where(and(eq(t.alertId, owner.alertId), eq(t.id, id))).limit(1);
  return (row ?? null) as ImageOf<O> | null;
}

/** `<upload model>/<random>/<file name>`: unguessable and unique, whatever the name. */
function blobKey(owner: MetricImageOwner, fileName: string): string {
  const model = "issueId" in owner ? "issuable_metric_image" : "alert_management_metric_image";
  return `${model}/${crypto.randomUUID()}/${fileName}`;
}

type NewImage = { fileName: string; r2Key: string; url: string | null; urlText: string | null; size: number };

async function insertRow<O extends MetricImageOwner>(db: Executor, owner: O, v: NewImage): Promise<ImageOf<O>> {
  if ("issueId" in owner) {
    const [row] = await db.insert(issuableMetricImages).values({ ...v, issueId: owner.issueId }).returning();
    return row as ImageOf<O>;
  }
  const [row] = await db.insert(alertManagementAlertMetricImages).values({ ...v, alertId: owner.alertId }).returning();
  return row as ImageOf<O>;
}

/** MetricImages::UploadService (incidents and alerts): the bytes in R2, then the row. */
export async function uploadMetricImage<O extends MetricImageOwner>(
  db: Executor,
  blobs: R2Bucket,
  owner: O,
  input: { file: File; fileName: string; url: string | null; urlText: string | null },
): Promise<ImageOf<O>> {
  const key = blobKey(owner, input.fileName);
  const extension = input.fileName.split(".").pop()!.toLowerCase();
  await blobs.put(key, await input.file.arrayBuffer(), {
    httpMetadata: { contentType: CONTENT_TYPES[extension] ?? "application/octet-stream" },
  });
  try {
    return await insertRow(db, owner, { fileName: input.fileName, r2Key: key, url: input.url, urlText: input.urlText, size: input.file.size });
  } catch (error) {
    await blobs.delete(key);
    throw error;
  }
}

/** `url` and `url_text` of an image of `owner` (the PUT endpoints). */
export async function updateMetricImage<O extends MetricImageOwner>(
  db: Executor,
  owner: O,
  id: number,
  changes: { url?: string | null; urlText?: string | null },
): Promise<ImageOf<O>> {
  const set = { ...changes, updatedAt: new Date() };
  if ("issueId" in owner) {
    const t = issuableMetricImages;
    const [row] = await db.update(t).set(set).where(and(eq(t.id, id), eq(t.issueId, owner.issueId))).returning();
    return row as ImageOf<O>;
  }
  const t = alertManagementAlertMetricImages;
  const [row] = await db.update(t).set(set).where(and(eq(t.id, id), eq(t.alertId, owner.alertId))).returning();
  return row as ImageOf<O>;
}

/** `metric_image.destroy`: the row, then its blob. */
export async function deleteMetricImage(db: Executor, blobs: R2Bucket, owner: MetricImageOwner, image: { id: number; r2Key: string }): Promise<void> {
  if ("issueId" in owner) await db.delete(issuableMetricImages).where(and(eq(issuableMetricImages.id, image.id), eq(issuableMetricImages.issueId, owner.issueId)));
  else await db.delete(alertManagementAlertMetricImages).where(and(eq(alertManagementAlertMetricImages.id, image.id), eq(alertManagementAlertMetricImages.alertId, owner.alertId)));
  await blobs.delete(image.r2Key);
}
