// Git LFS over HTTP as GitLab serves it (Repositories::LfsApiController, LfsStorageController,
// config/routes/git_http.rb; GitLab 15.4): the batch API and the object transfers of the `basic`
// adapter, at `/<full_path>.git/...` beside git's smart HTTP, authenticated as git is (HTTP Basic with a
// personal access token as the password). Objects live in R2 (services.ts).
// Not built: the legacy `/info/lfs/objects` API (GitLab: 501).
import { Hono } from "hono";
import * as z from "zod";
import { Visibility } from "../../kernel/access";
import type { AppEnv, Ctx } from "../../kernel/env";
import { baseUrl } from "../../kernel/present";
import { denied } from "../../shared/git_http/access";
import { LfsError, guarded, lfsAccess, lfsJson, lfsNotFound, repoPath, type LfsOperation } from "../access";
import { batchResponse, downloadObject, uploadObject, type BatchObject } from "../../entities/lfs";
import * as q from "../queries";
import { UploadMismatch, storeUpload } from "../services";

/** A plain sub-app like git_http's: the API's token and scope guards do not apply. */
export const objectRoutes = new Hono<AppEnv>();

const OID = /^[0-9a-f]{64}$/;
const BatchRequest = z.object({
  operation: z.string().optional(),
  objects: z.array(z.object({ oid: z.string(), size: z.number().int().nonnegative() })).optional(),
});

/**
 * The batch request's JSON. Differs from GitLab: an object without a string `oid` (64 hex digits) and a
 * non-negative integer `size`, or a body that is not JSON, is refused with 422 (the batch spec's
 * "validation error") where GitLab passes the values on.
 */
async function readBatch(c: Ctx): Promise<{ operation: string | undefined; objects: BatchObject[] } | LfsError> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return new LfsError(422, "Validation error: the request body is not JSON.");
  }
  const parsed = BatchRequest.safeParse(body);
  if (!parsed.success) return new LfsError(422, "Validation error: objects must have an oid and a size.");
  const objects = parsed.data.objects ?? [];
  if (objects.some((o) => !OID.test(o.oid))) return new LfsError(422, "Validation error: an oid is not a SHA-256 in hex.");
  return { operation: parsed.data.operation, objects };
}

/**
 * POST /<path>.git/info/lfs/objects/batch (LfsApiController#batch): for each object, a download href
 * on the project's repository URL, or an upload href for what the project does not have yet. The
 * actions carry the caller's own Authorization header. Differs from GitLab: no short-lived LFS token
 * replaces it (`Gitlab::LfsToken`), the request's header is passed on as GitLab does for deploy tokens.
 */
objectRoutes.post("/:repo{.+\\.git}/info/lfs/objects/batch", (c) =>
  guarded(c, async () => {
    const batch = await readBatch(c);
    // Authentication and `lfs_check_access!` come first (a malformed body is refused after them); an
    // operation that is neither download nor upload fails the access check (403, or 404 for what the
    // caller cannot read).
    const operation = batch instanceof LfsError ? undefined : batch.operation;
    const op: LfsOperation = operation === "upload" ? "upload" : "download";
    const { project, actor } = await lfsAccess(c, repoPath(c), op);
    if (batch instanceof LfsError) throw batch;
    if (operation !== "upload" && operation !== "download") throw actor ? new LfsError(403, "Access forbidden. Check your access level.") : denied();
    const objects = batch.objects;
    if (objects.length === 0) throw lfsNotFound();
    const existing = await q.visibleObjects(c.var.db(), project.id, [...new Set(objects.map((o) => o.oid))]);
    const repoUrl = `${baseUrl(c)}/${project.fullPath}.git`;
    const authorization = c.req.header("authorization");
    const auth: Record<string, string> = authorization ? { Authorization: authorization } : {};
    if (op === "download") {
      const publicCode = project.visibilityLevel >= Visibility.PUBLIC;
      return lfsJson(batchResponse(objects.map((o) => downloadObject(o, existing.has(o.oid), `${repoUrl}/gitlab-lfs/objects/${o.oid}`, auth, publicCode))));
    }
    const header = { ...auth, "Content-Type": "application/octet-stream", "Transfer-Encoding": "chunked" };
    return lfsJson(batchResponse(objects.map((o) => uploadObject(o, existing.has(o.oid), `${repoUrl}/gitlab-lfs/objects/${o.oid}/${o.size}`, header))));
  }),
);

/** GET /<path>.git/gitlab-lfs/objects/:oid (LfsStorageController#download): the object's bytes. */
objectRoutes.get("/:repo{.+\\.git}/gitlab-lfs/objects/:oid{[0-9a-f]{64}}", (c) =>
  guarded(c, async () => {
    const { project } = await lfsAccess(c, repoPath(c), "download");
    const oid = c.req.param("oid")!;
    const found = (await q.visibleObjects(c.var.db(), project.id, [oid])).get(oid);
    const object = found ? await c.env.BLOBS.get(found.file) : null;
    if (!object) throw lfsNotFound();
    return new Response(object.body, {
      headers: { "Content-Type": "application/octet-stream", "Content-Length": String(object.size), "Content-Disposition": `attachment; filename="${oid}"` },
    });
  }),
);

/**
 * PUT /<path>.git/gitlab-lfs/objects/:oid/:size (Workhorse's upload, then
 * LfsStorageController#upload_finalize): stores the body when its SHA-256 and size match the path,
 * else 400 "SHA256 or size mismatch". 200 with an empty body.
 */
objectRoutes.put("/:repo{.+\\.git}/gitlab-lfs/objects/:oid{[0-9a-f]{64}}/:size{[0-9]+}", (c) =>
  guarded(c, async () => {
    const { project } = await lfsAccess(c, repoPath(c), "upload");
    const oid = c.req.param("oid")!;
    const size = Number(c.req.param("size"));
    if (!Number.isSafeInteger(size)) return c.text("SHA256 or size mismatch", 400);
    try {
      const length = c.req.header("content-length");
      await storeUpload(c.env.BLOBS, c.var.db(), project.id, oid, size, c.req.raw.body, length && /^\d+$/.test(length) ? Number(length) : null);
    } catch (error) {
      if (error instanceof UploadMismatch) return c.text("SHA256 or size mismatch", 400);
      throw error;
    }
    return new Response(null, { status: 200, headers: { "Content-Type": "application/vnd.git-lfs+json" } });
  }),
);
