import { sql } from "drizzle-orm";
import type { Executor } from "../kernel/db";
import type { Ctx } from "../kernel/env";
import { notFound } from "../kernel/errors";
import { extension, SAFE_IMAGE_EXT } from "../entities/file_types";

/**
 * File naming shared by attachments (functions/uploads) and avatars, and the avatar store
 * (Avatarable + AvatarUploader) that users, projects and groups call when `avatar` is sent.
 */

/** CarrierWave's sanitized file name: the base name, every character outside `[\w.+-]` as `_`. */
export function sanitizeFilename(name: string): string {
  const base = name.replace(/\\/g, "/").split("/").pop() ?? "";
  const clean = base.replace(/[^\p{L}\p{N}_.\-+]/gu, "_");
  return clean === "" ? "file" : clean;
}

const IMAGE_TYPES: Record<string, string> = {
  png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", bmp: "image/bmp",
  tiff: "image/tiff", ico: "image/vnd.microsoft.icon", webp: "image/webp",
};

export type AvatarModel = "user" | "project" | "group" | "topic";

/** Avatarable::MAXIMUM_FILE_SIZE (200 KiB). */
const MAXIMUM_AVATAR_SIZE = 200 * 1024;

/**
 * Avatarable's validations, as the model's `avatar` errors (the callers' 400 `{"message":{"avatar":[…]}}`):
 * `avatar_type` (an image extension) and the file size validator.
 */
export function avatarErrors(file: File): string[] {
  const errors: string[] = [];
  if (!SAFE_IMAGE_EXT.includes(extension(file.name)))
    errors.push(`file format is not supported. Please try one of the following supported formats: ${SAFE_IMAGE_EXT.join(", ")}`);
  if (file.size > MAXIMUM_AVATAR_SIZE) errors.push("is too big (should be at most 200 KB)");
  return errors;
}

/** AvatarUploader's path (`uploads/-/system/<model>/avatar/<id>/<filename>`), also the R2 key without the slash. */
export const avatarPath = (model: AvatarModel, id: number, fileName: string) => `/uploads/-/system/${MODEL_DIR[model]}/avatar/${id}/${fileName}`;

/** AvatarUploader's model folder (`Projects::Topic` is `projects/topic`). */
const MODEL_DIR: Record<AvatarModel, string> = { user: "user", project: "project", group: "group", topic: "projects/topic" };

const COLUMN_OF: Record<AvatarModel, ReturnType<typeof sql.raw>> = {
  user: sql.raw("users"),
  project: sql.raw("projects"),
  group: sql.raw("namespaces"),
  topic: sql.raw("topics"),
};

/** Removes the model's avatar (`remove_avatar!`): the column cleared, then the stored object. */
export async function removeAvatar(db: Executor, blobs: R2Bucket, model: AvatarModel, id: number): Promise<void> {
  const result = await db.execute<{ old: string | null }>(sql`
    WITH old AS (SELECT avatar_url FROM ${COLUMN_OF[model]} WHERE id = ${id}::int)
    UPDATE ${COLUMN_OF[model]} SET avatar_url = NULL WHERE id = ${id}::int RETURNING (SELECT avatar_url FROM old) AS old`);
  const old = result.rows[0]?.old;
  if (old && old.startsWith("/uploads/-/system/")) await blobs.delete(old.slice(1));
}

/**
 * Stores an avatar (validated by the caller with `avatarErrors`): the bytes in R2 at the path's key,
 * then the model's `avatar_url` column set to the path (entities show it as an absolute URL); the
 * previous avatar's object is removed once the row points at the new one.
 */
export async function storeAvatar(db: Executor, blobs: R2Bucket, model: AvatarModel, id: number, file: File): Promise<string> {
  const path = avatarPath(model, id, sanitizeFilename(file.name));
  const key = path.slice(1);
  // The type follows the (validated) extension, never the client's claim: avatars are served inline.
  const contentType = IMAGE_TYPES[extension(path)] ?? "application/octet-stream";
  await blobs.put(key, new Uint8Array(await file.arrayBuffer()), { httpMetadata: { contentType } });
  const result = await db.execute<{ old: string | null }>(sql`
    WITH old AS (SELECT avatar_url FROM ${COLUMN_OF[model]} WHERE id = ${id}::int)
    UPDATE ${COLUMN_OF[model]} SET avatar_url = ${path}::text WHERE id = ${id}::int RETURNING (SELECT avatar_url FROM old) AS old`);
  const old = result.rows[0]?.old;
  if (old && old !== path && old.startsWith("/uploads/-/system/")) await blobs.delete(old.slice(1));
  return path;
}

/** The model whose stored avatar is `path`, when one is (the web route serves only current avatars). */
export async function avatarOwner(db: Executor, model: AvatarModel, id: number, path: string): Promise<boolean> {
  const result = await db.execute(sql`SELECT 1 FROM ${COLUMN_OF[model]} WHERE id = ${id}::int AND avatar_url = ${path}::text`);
  return result.rows.length > 0;
}

/**
 * UploadsController#show for a file the caller may read: the R2 object inline with its stored type, not
 * cached by shared caches; 404 when the bytes are gone.
 */
export async function serveInline(c: Ctx, r2Key: string, fileName: string): Promise<Response> {
  const object = await c.env.BLOBS.get(r2Key);
  if (!object) throw notFound();
  c.header("Content-Type", object.httpMetadata?.contentType ?? "application/octet-stream");
  c.header("Content-Length", String(object.size));
  c.header("Content-Disposition", `inline; filename="${fileName.replace(/"/g, "")}"`);
  c.header("Cache-Control", "private, no-store");
  return c.body(object.body);
}
