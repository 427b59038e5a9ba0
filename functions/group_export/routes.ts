import { requireUser } from "../kernel/auth";
import { acceptedBody, apiError } from "../kernel/errors";
import { authorizedGroup } from "../kernel/lookup";
import { checkRateLimit } from "../kernel/rate_limit";
import { router } from "../kernel/router";
import * as q from "./queries";

/**
 * Group export (lib/api/group_export.rb): start an export, download the archive. Owners only
 * (`authorize! :admin_group`); the work runs in the `edgeforge-exports` queue consumer (consumer.ts).
 * GitLab 15.4 has no status endpoint for a group export: a client polls the download.
 */
export const groupExportRoutes = router();

/** POST /groups/:id/export: 202 `{"message":"202 Accepted"}`; the job is queued. */
groupExportRoutes.post("/groups/:id/export", async (c) => {
  const actor = requireUser(c);
  const group = await authorizedGroup(c, "admin_group");
  // `check_rate_limit! :group_export, scope: current_user` (application setting `group_export_limit`).
  await checkRateLimit(c.var.db(), "group_export", actor.user.id);
  const job = await q.createExportJob(c.var.db(), { groupId: group.id, userId: actor.user.id, correlationId: c.var.requestId });
  await c.env.EXPORTS_QUEUE.send({ kind: "group_export", id: job.id });
  return c.json(acceptedBody, 202);
});

/** GET /groups/:id/export/download: the newest finished archive; 404 until there is one. */
groupExportRoutes.get("/groups/:id/export/download", async (c) => {
  const actor = requireUser(c);
  const group = await authorizedGroup(c, "admin_group");
  // `check_rate_limit! :group_download_export, scope: [current_user, user_group]`.
  await checkRateLimit(c.var.db(), "group_download_export", `${actor.user.id}:${group.id}`);
  const finished = await q.finishedExport(c.var.db(), group.id);
  const object = finished?.r2Key ? await c.env.BLOBS.get(finished.r2Key) : null;
  if (!finished || !object) throw apiError("404 Not found or has expired", 404);
  // Gitlab::ImportExport.export_filename: `<%Y-%m-%d_%H-%M-%3N>_<full path with _>_export.tar.gz`.
  const iso = (finished.finishedAt ?? finished.updatedAt).toISOString();
  const stamp = `${iso.slice(0, 10)}_${iso.slice(11, 13)}-${iso.slice(14, 16)}-${iso.slice(20, 23)}`;
  const filename = `${stamp}_${group.fullPath.replace(/\//g, "_")}_export.tar.gz`;
  return new Response(object.body, {
    headers: { "Content-Type": "application/gzip", "Content-Disposition": `attachment; filename="${filename}"; filename*=UTF-8''${encodeURIComponent(filename)}` },
  });
});
