import * as z from "zod";
import type { ProjectWithAccess } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { apiError, checkUnmodifiedSince, conflict, notFound, validation } from "../../kernel/errors";
import { authorizedProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, rawParams, readParams, validateParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { groupLabel, projectLabel, type LabelRow, ProjectLabel, GroupLabel } from "../../entities/labels";
import * as q from "../queries";
import { labelErrors, labelTitle, normalizeColor } from "../rules";
import { promoteLabel } from "../services";
import { labelDescriptionsHtml } from "../../shared/markdown/label_descriptions";

/**
 * Project labels (lib/api/labels.rb, lib/api/helpers/label_helpers.rb). Every endpoint needs a signed-in
 * caller (`before { authenticate! }`), before parameters are validated.
 * Subscribe and unsubscribe live in `../subscriptions.ts`.
 */
export const projectLabelRoutes = router();

/** Grape's `type: Integer, allow_blank: true`: an empty value is nil (remove the priority). */
const priorityParam = z.preprocess((v) => (v === "" ? null : v), p.int().nullable()).optional();

const ListLabels = pageParams.extend({
  with_counts: p.bool().optional(),
  include_ancestor_groups: p.bool().optional(),
  search: p.string().optional(),
});

const GetLabel = z.object({ include_ancestor_groups: p.bool().optional() });

const CreateLabel = z.object({
  name: p.string(),
  color: p.string(),
  description: p.string().nullable().optional(),
  priority: priorityParam,
});

const updateShape = {
  new_name: p.string().optional(),
  color: p.string().optional(),
  description: p.string().nullable().optional(),
  priority: priorityParam,
};
const UPDATE_KEYS = ["new_name", "color", "description", "priority"];
const UpdateLabel = z.object(updateShape);
const UpdateLabelByParam = z.object({ label_id: p.int().optional(), name: p.string().optional(), ...updateShape });
const DeleteLabelByParam = z.object({ label_id: p.int().optional(), name: p.string().optional() });

/** The project's labels, and its groups' with `include_ancestor_groups`. */
function owner(project: ProjectWithAccess, includeAncestorGroups: boolean): q.LabelOwner {
  return { kind: "project", project, includeAncestorGroups };
}

function withLabel(row: Awaited<ReturnType<typeof q.findLabel>>): LabelRow {
  if (!row) throw notFound("Label");
  return { ...row, counts: null };
}

async function presentLabel(c: Ctx, row: LabelRow, project: ProjectWithAccess, status: 200 | 201 = 200) {
  return present(c, row, projectLabel, { projectId: project.id, ...(await labelDescriptionsHtml(c, [row], { project })) }, status);
}

/** GET /projects/:id/labels (lib/api/labels.rb) */
projectLabelRoutes.get("/projects/:id/labels", { params: ListLabels, response: [ProjectLabel] }, async (c) => {
  requireUser(c);
  const params = await readParams(c, ListLabels);
  const project = await authorizedProject(c, "read_label");
  const page = pageOf(params);
  const opts = { search: params.search, withCounts: params.with_counts ?? false };
  const list = await q.listLabels(c.var.db(), owner(project, params.include_ancestor_groups ?? true), opts, c.var.actor, page);
  paginate(c, page, list.total);
  return present(c, list.rows, projectLabel, { projectId: project.id, ...(await labelDescriptionsHtml(c, list.rows, { project })) });
});

/** GET /projects/:id/labels/:name (lib/api/labels.rb): by id, else by title. */
projectLabelRoutes.get("/projects/:id/labels/:name", { params: GetLabel, response: ProjectLabel }, async (c) => {
  requireUser(c);
  const params = await readParams(c, GetLabel);
  const project = await authorizedProject(c, "read_label");
  const label = withLabel(await q.findLabel(c.var.db(), owner(project, params.include_ancestor_groups ?? true), c.req.param("name"), c.var.actor));
  return presentLabel(c, label, project);
});

/** POST /projects/:id/labels (lib/api/labels.rb, `create_label`) */
projectLabelRoutes.post("/projects/:id/labels", { params: CreateLabel, response: ProjectLabel, errors: [409] }, async (c) => {
  requireUser(c);
  const params = await readParams(c, CreateLabel);
  const project = await authorizedProject(c, "admin_label");
  const db = c.var.db();
  // `available_labels_for(parent).find_by_title(params[:name])`: ancestor group labels count too.
  if (await q.findLabelByTitle(db, { project }, params.name)) throw conflict("Label already exists");
  const values = { title: labelTitle(params.name), color: normalizeColor(params.color) };
  const errors = labelErrors(values);
  if (Object.keys(errors).length) throw validation(errors);
  const created = await q.insertLabel(db, { projectId: project.id }, {
    title: values.title!,
    color: values.color,
    description: params.description ?? null,
    priority: params.priority ?? null,
  });
  if (!created) throw conflict("Label already exists");
  return presentLabel(c, { ...created, counts: null, subscribed: false }, project, 201);
});

type UpdateParams = z.output<typeof UpdateLabel>;

/** `update_label`: the sent attributes; `priority` null removes it. */
async function updateLabel(c: Ctx, idOrTitle: string, params: UpdateParams) {
  const project = await authorizedProject(c, "admin_label");
  const db = c.var.db();
  const label = withLabel(await q.findLabel(db, owner(project, false), idOrTitle, c.var.actor));
  const changes: Partial<q.LabelValues> = {};
  // `Label#title=` ignores a blank title.
  const title = params.new_name === undefined ? null : labelTitle(params.new_name);
  if (title !== null) changes.title = title;
  if (params.color !== undefined) changes.color = normalizeColor(params.color);
  if (params.description !== undefined) changes.description = params.description;
  if (params.priority !== undefined) changes.priority = params.priority;
  const errors = labelErrors({ title: changes.title ?? label.title, color: changes.color ?? label.color });
  if (Object.keys(errors).length) throw validation(errors);
  if (Object.keys(changes).length === 0) return presentLabel(c, label, project);
  const updated = await q.updateLabel(db, label.id, changes);
  if (!updated) throw validation({ title: ["has already been taken"] });
  return presentLabel(c, { ...updated, counts: null, subscribed: label.subscribed }, project);
}

/** `promote_label` (lib/api/helpers/label_helpers.rb): `:name` is the id or the title of a project label. */
async function promote(c: Ctx, idOrTitle: string) {
  const project = await authorizedProject(c, "admin_label");
  if (project.namespace.type !== "Group") throw apiError("Failed to promote project label to group label", 400);
  const label = withLabel(await q.findLabel(c.var.db(), owner(project, false), idOrTitle));
  const promoted = await promoteLabel(c.var.db(), label, project.namespace);
  return present(c, { ...promoted, counts: null, subscribed: false }, groupLabel, await labelDescriptionsHtml(c, [promoted], { project }));
}

const PromoteLabelByParam = z.object({ name: p.string() });

/**
 * PUT /projects/:id/labels/promote (lib/api/labels.rb, deprecated in 12.4 but still routed): the label
 * by `name`. Registered before `PUT /projects/:id/labels/:name`, as Grape declares it, so that it wins.
 */
projectLabelRoutes.put("/projects/:id/labels/promote", { params: PromoteLabelByParam, deprecated: true, response: GroupLabel }, async (c) => {
  requireUser(c);
  const params = validateParams(await rawParams(c), PromoteLabelByParam);
  return promote(c, params.name);
});

/** PUT /projects/:id/labels/:name (lib/api/labels.rb): `:name` is the id or the title. */
projectLabelRoutes.put("/projects/:id/labels/:name", { params: UpdateLabel, response: ProjectLabel }, async (c) => {
  const params = await readParams(c, UpdateLabel, [{ atLeastOneOf: UPDATE_KEYS }]);
  return updateLabel(c, c.req.param("name")!, params);
});

/** PUT /projects/:id/labels (lib/api/labels.rb, deprecated in 12.4): the label by `label_id` or `name`. */
projectLabelRoutes.put("/projects/:id/labels", { params: UpdateLabelByParam, deprecated: true, response: ProjectLabel }, async (c) => {
  const params = await readParams(c, UpdateLabelByParam, [{ atLeastOneOf: UPDATE_KEYS }, { exactlyOneOf: ["label_id", "name"] }]);
  return updateLabel(c, String(params.label_id ?? params.name), params);
});

/** `delete_label`: 204, or 412 when `If-Unmodified-Since` is older than the label. */
async function deleteLabel(c: Ctx, idOrTitle: string) {
  const project = await authorizedProject(c, "admin_label");
  const db = c.var.db();
  const label = withLabel(await q.findLabel(db, owner(project, false), idOrTitle));
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), label.updatedAt);
  await q.deleteLabel(db, label.id);
  return c.body(null, 204);
}

/** DELETE /projects/:id/labels/:name (lib/api/labels.rb) */
projectLabelRoutes.delete("/projects/:id/labels/:name", async (c) => {
  await rawParams(c);
  return deleteLabel(c, c.req.param("name")!);
});

/** DELETE /projects/:id/labels (lib/api/labels.rb, deprecated in 12.4): by `label_id` or `name`. */
projectLabelRoutes.delete("/projects/:id/labels", { params: DeleteLabelByParam, deprecated: true }, async (c) => {
  const params = validateParams(await rawParams(c), DeleteLabelByParam, [{ exactlyOneOf: ["label_id", "name"] }]);
  return deleteLabel(c, String(params.label_id ?? params.name));
});

/**
 * PUT /projects/:id/labels/:name/promote (lib/api/labels.rb, `promote_label`, Labels::PromoteService):
 * the project label becomes a label of the project's group; labels of that title in the group's other
 * projects merge into it. GroupLabel, 200.
 */
projectLabelRoutes.put("/projects/:id/labels/:name/promote", { response: GroupLabel }, async (c) => {
  requireUser(c);
  await rawParams(c);
  return promote(c, c.req.param("name")!);
});
