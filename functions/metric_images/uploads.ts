import { Hono } from "hono";
import type { AppEnv } from "../kernel/env";
import { ApiError, notFound } from "../kernel/errors";
import { findIssue } from "../shared/issuables/find";
import { findProject } from "../kernel/lookup";
import { pathRowId } from "../kernel/params";
import { serveInline } from "../shared/uploads";
import * as q from "./queries";

/**
 * The files behind `file_path` (UploadsController#show for `issuable_metric_image`, outside /api/v4):
 * the bytes from R2 to whoever may read the incident (`read_issuable_metric_image`), else 404.
 * Differs from GitLab: the caller is known by the API's credentials (PRIVATE-TOKEN, Bearer), as there
 * are no browser sessions here; GitLab answers these paths through its web session.
 */
export const metricImageUploadRoutes = new Hono<AppEnv>();

/** GET /uploads/-/system/issuable_metric_image/file/:id/:filename (app/controllers/uploads_controller.rb) */
metricImageUploadRoutes.get("/uploads/-/system/issuable_metric_image/file/:id/:filename", async (c) => {
  const id = c.req.param("id");
  const imageId = pathRowId(id);
  if (imageId === null) throw notFound();
  const owner = await q.findImageOwner(c.var.db(), imageId);
  if (!owner || owner.image.fileName !== c.req.param("filename")) throw notFound();
  try {
    // Readable exactly as the incident is: its project, then the issue (confidentiality).
    await findIssue(c, await findProject(c, String(owner.projectId)), String(owner.issueIid));
  } catch (error) {
    throw error instanceof ApiError && error.status === 404 ? notFound() : error;
  }
  return serveInline(c, owner.image.r2Key, owner.image.fileName);
});
