import { Hono } from "hono";
import { allowed } from "../kernel/abilities";
import type { AppEnv } from "../kernel/env";
import { ApiError, notFound } from "../kernel/errors";
import { findProject } from "../kernel/lookup";
import { pathRowId } from "../kernel/params";
import { serveInline } from "../shared/uploads";
import * as q from "./queries";

/**
 * The files behind an alert metric image's `file_path` (UploadsController#show for
 * `alert_management_metric_image`, outside /api/v4): the bytes from R2 to whoever may read the alert
 * (`read_alert_management_metric_image`), else 404. Differs from GitLab: the caller is known by the API's
 * credentials (PRIVATE-TOKEN, Bearer), as there are no browser sessions here.
 */
export const alertMetricImageUploadRoutes = new Hono<AppEnv>();

/** GET /uploads/-/system/alert_management_metric_image/file/:id/:filename */
alertMetricImageUploadRoutes.get("/uploads/-/system/alert_management_metric_image/file/:id/:filename", async (c) => {
  const id = c.req.param("id");
  const imageId = pathRowId(id);
  if (imageId === null) throw notFound();
  const owner = await q.findAlertImageOwner(c.var.db(), imageId);
  if (!owner || owner.image.fileName !== c.req.param("filename")) throw notFound();
  let project;
  try {
    project = await findProject(c, String(owner.projectId));
  } catch (error) {
    throw error instanceof ApiError && error.status === 404 ? notFound() : error;
  }
  if (!allowed(c.var.actor, "read_alert_management_alert", project)) throw notFound();
  return serveInline(c, owner.image.r2Key, owner.image.fileName);
});
