import * as z from "zod";
import type { Ctx } from "../kernel/env";
import { apiError, badRequest, forbidden } from "../kernel/errors";
import { findIssue } from "../shared/issuables/find";
import { findProject } from "../kernel/lookup";
import { p, rawParams, readParamsWithPath, validateParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { metricImage, MetricImage } from "../entities/metric_images";
import { checkChanges, checkUpload, deleteMetricImage, findMetricImage, listMetricImages, MAX_FILE_SIZE, updateMetricImage, uploadMetricImage } from "../shared/metric_images";
import { canChange, canUpload, isIncident } from "./rules";

/**
 * Metric images of incidents (ee/lib/ee/api/issues.rb, IncidentManagement::Incidents::UploadMetricService):
 * the bytes in R2, the rows in `issuable_metric_images`. Reads follow the issue; writes need project
 * membership (EE IssuablePolicy), and uploads an incident.
 */
export const metricImagesRoutes = router();

const BASE = "/projects/:id/issues/:issue_iid/metric_images";

const Upload = z.object({ file: p.file(), url: p.string().optional(), url_text: p.string().optional() });
const Update = z.object({
  metric_image_id: p.int(),
  url: p.string().nullable().optional(),
  url_text: p.string().nullable().optional(),
});
const OneImage = z.object({ metric_image_id: p.int() });

/** `find_project_issue`: the project, then the issue inside it (404 when either is unreadable). */
async function loadIssue(c: Ctx) {
  const project = await findProject(c, c.req.param("id")!);
  const issue = await findIssue(c, project, c.req.param("issue_iid")!);
  return { project, issue };
}

/** POST /projects/:id/issues/:issue_iid/metric_images (ee/lib/ee/api/issues.rb) */
metricImagesRoutes.post(BASE, { params: Upload, response: MetricImage }, async (c) => {
  const params = await validateParams(await rawParams(c), Upload);
  // `bad_request!('File is too large') if max_file_size_exceeded?` comes before the issue lookup.
  if (params.file.size > MAX_FILE_SIZE) throw badRequest("File is too large");
  const { project, issue } = await loadIssue(c);
  const actor = c.var.actor!;
  if (!isIncident(issue) || !canUpload(actor, project, issue)) throw apiError("Not allowed!", 403);
  const upload = checkUpload(params);
  // `create!` raises ActiveRecord::RecordInvalid; the endpoint renders its message with 403.
  if (upload.errors.length > 0) throw apiError(`Validation failed: ${upload.errors.join(", ")}`, 403);
  const image = await uploadMetricImage(c.var.db(), c.env.BLOBS, { issueId: issue.id }, upload.image);
  return present(c, image, metricImage, undefined, 201);
});

/** GET /projects/:id/issues/:issue_iid/metric_images (ee/lib/ee/api/issues.rb) */
metricImagesRoutes.get(BASE, { response: [MetricImage], paginated: false }, async (c) => {
  const { issue } = await loadIssue(c);
  // `read_issuable_metric_image` is `read_issue`, which the lookup has checked. Not paginated, as GitLab.
  const images = await listMetricImages(c.var.db(), { issueId: issue.id });
  return present(c, images, metricImage);
});

/** PUT /projects/:id/issues/:issue_iid/metric_images/:metric_image_id (ee/lib/ee/api/issues.rb) */
metricImagesRoutes.put(`${BASE}/:metric_image_id`, { params: Update, response: MetricImage }, async (c) => {
  const params = await readParamsWithPath(c, Update, [], ["id", "issue_iid"]);
  const { project, issue } = await loadIssue(c);
  if (!canChange(c.var.actor!, project, issue)) throw forbidden();
  const image = await findMetricImage(c.var.db(), { issueId: issue.id }, params.metric_image_id);
  if (!image) throw apiError("Metric image not found", 404);
  const { changes, valid } = checkChanges(params);
  if (!valid) throw apiError("Metric image could not be updated", 400);
  const updated = await updateMetricImage(c.var.db(), { issueId: issue.id }, image.id, changes);
  return present(c, updated, metricImage);
});

/** DELETE /projects/:id/issues/:issue_iid/metric_images/:metric_image_id (ee/lib/ee/api/issues.rb) */
metricImagesRoutes.delete(`${BASE}/:metric_image_id`, { params: OneImage }, async (c) => {
  const params = await readParamsWithPath(c, OneImage, [], ["id", "issue_iid"]);
  const { project, issue } = await loadIssue(c);
  if (!canChange(c.var.actor!, project, issue)) throw forbidden();
  const image = await findMetricImage(c.var.db(), { issueId: issue.id }, params.metric_image_id);
  if (!image) throw apiError("Metric image not found", 404);
  await deleteMetricImage(c.var.db(), c.env.BLOBS, { issueId: issue.id }, image);
  return c.body(null, 204);
});
