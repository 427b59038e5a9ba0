import * as z from "zod";
import { authorize } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import { acceptedBody, apiError, paramsError } from "../kernel/errors";
import { findProject, authorizedProject } from "../kernel/lookup";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { checkRateLimit } from "../kernel/rate_limit";
import { router } from "../kernel/router";
import { exportStatus, projectExportStatus, ProjectExportStatus } from "../entities/project_export";
import { StatusMessage } from "../entities/status_message";
import * as q from "./queries";

/**
 * Project export (lib/api/project_export.rb): start an export, read its status, download
 * the archive. The work runs in the `edgeforge-exports` queue consumer (consumer.ts). Maintainers and
 * above (`authorize_admin_project`). Import is `functions/project_import/`.
 */
export const projectExportRoutes = router();

const StartExport = z.object({
  description: p.string().optional(),
  upload: p.hash().optional(),
});

/** POST /projects/:id/export: 202 `{"message":"202 Accepted"}`; the job is queued. */
projectExportRoutes.post("/projects/:id/export", { params: StartExport, response: StatusMessage, status: 202 }, async (c) => {
  const params = await readParams(c, StartExport);
  const actor = requireUser(c);
  const project = await authorizedProject(c, "admin_project");
  let uploadUrl: string | null = null;
  let uploadMethod: string | null = null;
  if (params.upload !== undefined) {
    const { url, http_method: method = "PUT" } = params.upload as { url?: unknown; http_method?: unknown };
    // `requires :url` inside `optional :upload` (since 10.7), and `values: %w[PUT POST]`.
    if (typeof url !== "string" || url === "") throw paramsError("upload[url] is missing");
    if (method !== "PUT" && method !== "POST") throw paramsError("upload[http_method] does not have a valid value");
    if (!/^https?:\/\/[^\s/]+/i.test(url)) throw apiError({ url: ["is blocked: Only allowed schemes are http, https"] }, 400);
    uploadUrl = url;
    uploadMethod = method;
  }
  // `check_rate_limit! :project_export, scope: current_user` (application setting `project_export_limit`),
  // once Grape has validated the parameters.
  await checkRateLimit(c.var.db(), "project_export", actor.user.id);
  const job = await q.createExportJob(c.var.db(), {
    projectId: project.id,
    userId: actor.user.id,
    description: params.description ?? null,
    uploadUrl,
    uploadMethod,
    correlationId: c.var.requestId,
  });
  await c.env.EXPORTS_QUEUE.send({ kind: "export", id: job.id });
  return c.json(acceptedBody, 202);
});

/** GET /projects/:id/export: API::Entities::ProjectExportStatus. */
projectExportRoutes.get("/projects/:id/export", { response: ProjectExportStatus }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "admin_project", project);
  const jobs = await q.exportJobs(c.var.db(), project.id);
  return present(c, { project, jobs }, projectExportStatus);
});

/** GET /projects/:id/export/download: the newest finished archive. */
projectExportRoutes.get("/projects/:id/export/download", async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "admin_project", project);
  const jobs = await q.exportJobs(c.var.db(), project.id);
  const finished = jobs.find((j) => j.status === "finished" && j.r2Key);
  if (!finished) {
    const inProgress = exportStatus(jobs) === "queued" || exportStatus(jobs) === "started";
    throw apiError(inProgress ? "The project export file is not available yet" : "404 Not found or has expired", 404);
  }
  const object = await c.env.BLOBS.get(finished.r2Key!);
  if (!object) throw apiError("404 Not found or has expired", 404);
  // GitLab's name: `<%Y-%m-%d_%H-%M-%3N>_<full path with _>_export.tar.gz` (Gitlab::ImportExport.export_filename).
  const iso = (finished.finishedAt ?? finished.updatedAt).toISOString();
  const stamp = `${iso.slice(0, 10)}_${iso.slice(11, 13)}-${iso.slice(14, 16)}-${iso.slice(20, 23)}`;
  const filename = `${stamp}_${project.fullPath.replace(/\//g, "_")}_export.tar.gz`;
  return new Response(object.body, {
    headers: { "Content-Type": "application/gzip", "Content-Disposition": `attachment; filename="${filename}"; filename*=UTF-8''${encodeURIComponent(filename)}` },
  });
});
