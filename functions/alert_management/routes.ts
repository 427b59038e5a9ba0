import * as z from "zod";
import { allowed, authorize, type ProjectWithAccess } from "../kernel/abilities";
import { Access } from "../kernel/access";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, badRequest, conflict, forbidden, isUniqueViolation, notFound, validation } from "../kernel/errors";
import { findProject, authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { isRowId, p, pathRowId, readParams, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { createSystemNotes } from "../shared/issuables/system_notes";
import { createTodos } from "../shared/issuables/todos";
// The image validations are MetricImageUploading's, shared with incident metric images.
import {
  checkChanges,
  checkUpload,
  deleteMetricImage,
  findMetricImage,
  listMetricImages,
  MAX_FILE_SIZE,
  updateMetricImage,
  uploadMetricImage,
} from "../shared/metric_images";
import { alert, AlertEntity, AlertHttpIntegration, alertMetricImage, httpIntegration, IncidentSettings, incidentSettings, STATUSES } from "../entities/alert_management";
import { MetricImage } from "../entities/metric_images";
import * as q from "./queries";
import * as services from "./services";
import { MAPPABLE_FIELDS, randomHex, RESOLVED, type AttributeMapping } from "./rules";

/**
 * Alert management, our REST extension (GitLab does this through its web interface and GraphQL): HTTP integrations (Maintainer), the project's incident settings (Maintainer), and alerts
 * (Reporter reads, Developer changes). The receiver itself is in receiver.ts.
 */
export const alertManagementRoutes = router();

const Mappings = p.hashes({
  field_name: p.oneOf(...MAPPABLE_FIELDS),
  path: p.strings(),
  type: p.oneOf("string", "array", "datetime").optional(),
});
const CreateIntegration = z.object({ name: p.string(), active: p.bool().optional(), payload_attribute_mappings: Mappings.optional() });
const UpdateIntegration = z.object({ name: p.string().optional(), active: p.bool().optional(), payload_attribute_mappings: Mappings.optional() });
const Settings = z.object({ create_issue: p.bool().optional(), auto_close_incident: p.bool().optional(), send_email: p.bool().optional() });
const ListAlerts = pageParams.extend({ status: p.oneOf(...STATUSES).optional(), search: p.string().optional() });
const UpdateAlert = z.object({ status: p.oneOf(...STATUSES).optional(), assignee_ids: p.ids({ comma: true }).optional() });

const toMapping = (list: z.output<typeof Mappings> | undefined): AttributeMapping | undefined =>
  list && Object.fromEntries(list.map((m) => [m.field_name, { path: m.path, type: m.type ?? "string" }]));

/** HttpIntegration validations: `name` present, at most 255 characters. */
function checkName(name: string | undefined) {
  if (name === undefined) return;
  if (!name.trim()) throw validation({ name: ["can't be blank"] });
  if ([...name].length > 255) throw validation({ name: ["is too long (maximum is 255 characters)"] });
}

async function integrationOf(c: Ctx, project: ProjectWithAccess) {
  const id = pathRowId(c.req.param("integration_id"));
  const row = id !== null ? await q.findIntegration(c.var.db(), project.id, id) : null;
  if (!row) throw notFound("Integration");
  return row;
}

const presentIntegration = (c: Ctx, project: ProjectWithAccess, row: Parameters<typeof httpIntegration>[0] | Parameters<typeof httpIntegration>[0][], status: 200 | 201 = 200) =>
  present(c, row, httpIntegration, { fullPath: project.fullPath }, status);

const INTEGRATIONS = "/projects/:id/alert_management/http_integrations";

/** GET /projects/:id/alert_management/http_integrations */
alertManagementRoutes.get(INTEGRATIONS, { response: [AlertHttpIntegration], paginated: false }, async (c) => {
  const project = await authorizedProject(c, "admin_operations", { signedIn: true });
  return presentIntegration(c, project, await q.listIntegrations(c.var.db(), project.id));
});

/** POST /projects/:id/alert_management/http_integrations (HttpIntegrations::CreateService): a new endpoint and key. */
alertManagementRoutes.post(INTEGRATIONS, { params: CreateIntegration, response: AlertHttpIntegration }, async (c) => {
  const params = await readParams(c, CreateIntegration);
  const project = await authorizedProject(c, "admin_operations", { signedIn: true });
  checkName(params.name);
  const row = await q.insertIntegration(c.var.db(), project.id, {
    name: params.name.trim(),
    active: params.active ?? false,
    payloadAttributeMapping: toMapping(params.payload_attribute_mappings) ?? {},
    endpointIdentifier: randomHex(16),
    token: randomHex(16),
  });
  return presentIntegration(c, project, row, 201);
});

/** GET /projects/:id/alert_management/http_integrations/:integration_id */
alertManagementRoutes.get(`${INTEGRATIONS}/:integration_id`, { response: AlertHttpIntegration }, async (c) => {
  const project = await authorizedProject(c, "admin_operations", { signedIn: true });
  return presentIntegration(c, project, await integrationOf(c, project));
});

/** PUT /projects/:id/alert_management/http_integrations/:integration_id */
alertManagementRoutes.put(`${INTEGRATIONS}/:integration_id`, { params: UpdateIntegration, response: AlertHttpIntegration }, async (c) => {
  const params = await readParams(c, UpdateIntegration);
  const project = await authorizedProject(c, "admin_operations", { signedIn: true });
  const found = await integrationOf(c, project);
  checkName(params.name);
  const row = await q.updateIntegration(c.var.db(), found.id, {
    ...(params.name !== undefined && { name: params.name.trim() }),
    ...(params.active !== undefined && { active: params.active }),
    ...(params.payload_attribute_mappings !== undefined && { payloadAttributeMapping: toMapping(params.payload_attribute_mappings) }),
  });
  return presentIntegration(c, project, row);
});

/** DELETE /projects/:id/alert_management/http_integrations/:integration_id: 204. */
alertManagementRoutes.delete(`${INTEGRATIONS}/:integration_id`, async (c) => {
  const project = await authorizedProject(c, "admin_operations", { signedIn: true });
  const found = await integrationOf(c, project);
  await q.deleteIntegration(c.var.db(), found.id);
  return c.body(null, 204);
});

/** POST …/:integration_id/reset_token (`httpIntegrationResetToken`): a new key; the old one stops working. */
alertManagementRoutes.post(`${INTEGRATIONS}/:integration_id/reset_token`, { response: AlertHttpIntegration, status: 200 }, async (c) => {
  const project = await authorizedProject(c, "admin_operations", { signedIn: true });
  const found = await integrationOf(c, project);
  return presentIntegration(c, project, await q.updateIntegration(c.var.db(), found.id, { token: randomHex(16) }));
});

/** GET /projects/:id/alert_management/settings: the alert part of the incident settings. */
alertManagementRoutes.get("/projects/:id/alert_management/settings", { response: IncidentSettings }, async (c) => {
  const project = await authorizedProject(c, "admin_operations", { signedIn: true });
  return c.json(incidentSettings(await q.loadSettings(c.var.db(), project.id)));
});

/** PUT /projects/:id/alert_management/settings (`create_issue`, `auto_close_incident`, `send_email`). */
alertManagementRoutes.put("/projects/:id/alert_management/settings", { params: Settings, response: IncidentSettings }, async (c) => {
  // Grape's `at_least_one_of`, as GitLab's REST update endpoints declare it: an empty update is a 400.
  const params = await readParams(c, Settings, [{ atLeastOneOf: ["create_issue", "auto_close_incident", "send_email"] }]);
  const project = await authorizedProject(c, "admin_operations", { signedIn: true });
  const row = await q.saveSettings(c.var.db(), project.id, {
    ...(params.create_issue !== undefined && { createIssue: params.create_issue }),
    ...(params.auto_close_incident !== undefined && { autoCloseIncident: params.auto_close_incident }),
    ...(params.send_email !== undefined && { sendEmail: params.send_email }),
  });
  return c.json(incidentSettings(row));
});

/** GET /projects/:id/alert_management/alerts (AlertManagement::AlertsFinder: `status`, `search`), newest first. */
alertManagementRoutes.get("/projects/:id/alert_management/alerts", { params: ListAlerts, response: [AlertEntity] }, async (c) => {
  requireUser(c);
  const params = await readParams(c, ListAlerts);
  const project = await authorizedProject(c, "read_alert_management_alert");
  const page = pageOf(params);
  const statuses = params.status ? [STATUSES.indexOf(params.status)] : null;
  const list = await q.listAlerts(c.var.db(), project.id, { statuses, search: params.search?.trim() || null }, page);
  paginate(c, page, list.total);
  return present(c, list.rows, alert, { fullPath: project.fullPath });
});

async function alertOf(c: Ctx, project: ProjectWithAccess) {
  const iid = pathRowId(c.req.param("alert_iid"));
  const row = iid !== null ? await q.findAlert(c.var.db(), project.id, iid) : null;
  if (!row) throw notFound("Alert");
  return row;
}

/** GET /projects/:id/alert_management/alerts/:alert_iid */
alertManagementRoutes.get("/projects/:id/alert_management/alerts/:alert_iid", { response: AlertEntity }, async (c) => {
  const project = await authorizedProject(c, "read_alert_management_alert", { signedIn: true });
  return present(c, await alertOf(c, project), alert, { fullPath: project.fullPath });
});

/**
 * PUT /projects/:id/alert_management/alerts/:alert_iid (AlertManagement::Alerts::UpdateService):
 * `status` with its system note (resolving sets `ended_at`), `assignee_ids` (members who may read
 * alerts; each new assignee gets an `assigned` to-do on the alert).
 */
alertManagementRoutes.put("/projects/:id/alert_management/alerts/:alert_iid", { params: UpdateAlert, response: AlertEntity, errors: [409] }, async (c) => {
  const params = await readParams(c, UpdateAlert);
  const project = await authorizedProject(c, "update_alert_management_alert");
  const found = await alertOf(c, project);
  const actor = c.var.actor!;
  const db = c.var.db();
  const wanted = params.assignee_ids?.filter((id, i, all) => id > 0 && all.indexOf(id) === i);
  const assignees = wanted ? await q.membersAmong(db, project.id, wanted, Access.REPORTER) : null;
  if (wanted && assignees!.length !== wanted.length) throw apiError("Assignee has no permissions", 400);
  try {
    await db.transaction(async (tx) => {
      const now = new Date();
      const notes: string[] = [];
      if (params.status !== undefined && STATUSES.indexOf(params.status) !== found.status) {
        const status = STATUSES.indexOf(params.status);
        await q.setAlert(tx, found.id, { status, endedAt: status === RESOLVED ? now : null, updatedAt: now });
        notes.push(`changed the status to **${params.status[0].toUpperCase()}${params.status.slice(1)}**`);
      }
      if (assignees) {
        const before = await q.replaceAssignees(tx, found.id, assignees.map((u) => u.id));
        const added = assignees.filter((u) => !before.includes(u.id));
        if (added.length) notes.push(`assigned to ${added.map((u) => `@${u.username}`).join(" and ")}`);
        await createTodos(tx, { userIds: added.map((u) => u.id), action: "assigned", targetType: "AlertManagement::Alert", targetId: found.id, projectId: project.id, authorId: actor.user.id });
        await q.setAlert(tx, found.id, { updatedAt: now });
      }
      await createSystemNotes(tx, { noteableType: "AlertManagement::Alert", noteableId: found.id, projectId: project.id, authorId: actor.user.id, bodies: notes, now });
    });
  } catch (e) {
    // Reopening a resolved alert while another one with its fingerprint is open.
    if (isUniqueViolation(e, "index_partial_am_alerts_on_project_id_and_fingerprint"))
      throw conflict("An open alert with the same fingerprint exists");
    throw e;
  }
  return present(c, (await q.findAlert(db, project.id, found.iid))!, alert, { fullPath: project.fullPath });
});

// ---------------------------------------------------------------------------------------------
// Metric images of alerts (lib/api/alert_management_alerts.rb, GitLab 14.9+). AlertPolicy gives every
// metric image ability with `read_alert_management_alert`; `find_project_alert` (AlertsFinder) finds
// nothing for others, so writes answer `authorize!`'s 403 and the list "Alert not found".

const METRIC_IMAGES = "/projects/:id/alert_management_alerts/:alert_iid/metric_images";
// `requires :alert_iid, type: Integer` (and `:metric_image_id`): a non-integer is Grape's 400.
const AlertImages = z.object({ alert_iid: p.int() });
const OneImage = AlertImages.extend({ metric_image_id: p.int() });
const UploadImage = AlertImages.extend({ file: p.file(), url: p.string().optional(), url_text: p.string().optional() });
const UpdateImage = OneImage.extend({ url: p.string().nullable().optional(), url_text: p.string().nullable().optional() });

/** `find_project_alert`: the project's alert by iid, when the caller may read alerts; else null. */
async function readableAlert(c: Ctx, iid: number) {
  const project = await findProject(c, c.req.param("id")!);
  if (!allowed(c.var.actor, "read_alert_management_alert", project) || !isRowId(iid)) return null;
  return q.findAlert(c.var.db(), project.id, iid);
}

async function imageOf(c: Ctx, alertId: number, imageId: number) {
  const image = isRowId(imageId) ? await findMetricImage(c.var.db(), { alertId }, imageId) : null;
  if (!image) throw apiError("Metric image not found", 404);
  return image;
}

/**
 * POST /projects/:id/alert_management_alerts/:alert_iid/metric_images (201). Differs from GitLab: an
 * invalid image answers 400 with the validation message (GitLab 15.4 renders it without a status, a 500;
 * later versions answer 400).
 */
alertManagementRoutes.post(METRIC_IMAGES, { params: UploadImage, response: MetricImage }, async (c) => {
  const params = await readParamsWithPath(c, UploadImage);
  // `bad_request!('File is too large') if max_file_size_exceeded?` comes before the alert lookup.
  if (params.file.size > MAX_FILE_SIZE) throw badRequest("File is too large");
  const found = await readableAlert(c, params.alert_iid);
  if (!found) throw forbidden();
  const upload = checkUpload(params);
  if (upload.errors.length > 0) throw apiError(`Validation failed: ${upload.errors.join(", ")}`, 400);
  const image = await uploadMetricImage(c.var.db(), c.env.BLOBS, { alertId: found.id }, upload.image);
  return present(c, image, alertMetricImage, undefined, 201);
});

/** GET /projects/:id/alert_management_alerts/:alert_iid/metric_images: oldest first, not paginated. */
alertManagementRoutes.get(METRIC_IMAGES, { params: AlertImages, response: [MetricImage], paginated: false }, async (c) => {
  const params = await readParamsWithPath(c, AlertImages);
  const found = await readableAlert(c, params.alert_iid);
  if (!found) throw apiError("Alert not found", 404);
  return present(c, await listMetricImages(c.var.db(), { alertId: found.id }), alertMetricImage);
});

/** PUT /projects/:id/alert_management_alerts/:alert_iid/metric_images/:metric_image_id (`url`, `url_text`). */
alertManagementRoutes.put(`${METRIC_IMAGES}/:metric_image_id`, { params: UpdateImage, response: MetricImage, errors: [422] }, async (c) => {
  const params = await readParamsWithPath(c, UpdateImage);
  const found = await readableAlert(c, params.alert_iid);
  if (!found) throw forbidden();
  const image = await imageOf(c, found.id, params.metric_image_id);
  const { changes, valid } = checkChanges(params);
  if (!valid) throw apiError("Metric image could not be updated", 422);
  return present(c, await updateMetricImage(c.var.db(), { alertId: found.id }, image.id, changes), alertMetricImage);
});

/** DELETE /projects/:id/alert_management_alerts/:alert_iid/metric_images/:metric_image_id: 204. */
alertManagementRoutes.delete(`${METRIC_IMAGES}/:metric_image_id`, { params: OneImage }, async (c) => {
  const params = await readParamsWithPath(c, OneImage);
  const found = await readableAlert(c, params.alert_iid);
  if (!found) throw forbidden();
  const image = await imageOf(c, found.id, params.metric_image_id);
  await deleteMetricImage(c.var.db(), c.env.BLOBS, { alertId: found.id }, image);
  return c.body(null, 204);
});
