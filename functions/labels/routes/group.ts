import * as z from "zod";
import { authorizeGroup, type GroupWithAccess } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { checkUnmodifiedSince, conflict, notFound, validation } from "../../kernel/errors";
import { findGroup, authorizedGroup } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, rawParams, readParams, validateParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { groupLabel, type LabelRow, GroupLabel } from "../../entities/labels";
import { labelDescriptionsHtml } from "../../shared/markdown/label_descriptions";
import * as q from "../queries";
import { labelErrors, labelTitle, normalizeColor } from "../rules";

/**
 * Group labels (lib/api/group_labels.rb, lib/api/helpers/labels_helpers.rb). Every endpoint needs a
 * signed-in caller (`before { authenticate! }`). Subscribe and unsubscribe live in `../subscriptions.ts`.
 */
export const groupLabelRoutes = router();

const scopeShape = {
  include_ancestor_groups: p.bool().optional(),
  include_descendant_groups: p.bool().optional(),
  only_group_labels: p.bool().optional(),
};

const ListLabels = z.object({ with_counts: p.bool().optional(), ...scopeShape, search: p.string().optional(), ...pageParams.shape });
const GetLabel = z.object(scopeShape);

/** `label_create_params`: `priority` is declared but only project labels keep it. */
const CreateLabel = z.object({
  name: p.string(),
  color: p.string(),
  description: p.string().nullable().optional(),
  priority: p.int().nullable().optional(),
});

/** `group_label_update_params`. */
const updateShape = {
  new_name: p.string().optional(),
  color: p.string().optional(),
  description: p.string().nullable().optional(),
};
const UPDATE_KEYS = ["new_name", "color", "description"];
const UpdateLabel = z.object(updateShape);
const UpdateLabelByParam = z.object({ label_id: p.int().optional(), name: p.string().optional(), ...updateShape });
const DeleteLabelByParam = z.object({ name: p.string() });

type Scope = z.output<typeof GetLabel>;

/** The defaults of group_labels.rb: ancestors yes, descendants no, group labels only. */
function scopeOf(params: Scope): q.GroupLabelScope {
  return {
    includeAncestorGroups: params.include_ancestor_groups ?? true,
    includeDescendantGroups: params.include_descendant_groups ?? false,
    onlyGroupLabels: params.only_group_labels ?? true,
  };
}

/**
 * `find_label(parent, id_or_title, include_ancestor_groups: false)` for updates and deletes.
 * Deliberate difference from GitLab: GitLab's finder then also matches labels of the group's projects
 * (`only_group_labels` is dropped there); here only the group's own labels are changed through the group.
 */
const OWN: q.GroupLabelScope = { includeAncestorGroups: false, includeDescendantGroups: false, onlyGroupLabels: true };

function withLabel(row: Awaited<ReturnType<typeof q.findLabel>>): LabelRow {
  if (!row) throw notFound("Label");
  return { ...row, counts: null };
}

/** GET /groups/:id/labels (lib/api/group_labels.rb) */
groupLabelRoutes.get("/groups/:id/labels", { params: ListLabels, response: [GroupLabel] }, async (c) => {
  requireUser(c);
  const params = await readParams(c, ListLabels);
  const group = await authorizedGroup(c, "read_label");
  const page = pageOf(params);
  const opts = { search: params.search, withCounts: params.with_counts ?? false };
  const list = await q.listLabels(c.var.db(), { kind: "group", group, scope: scopeOf(params) }, opts, c.var.actor, page);
  paginate(c, page, list.total);
  return present(c, list.rows, groupLabel, await labelDescriptionsHtml(c, list.rows, { group }));
});

/** GET /groups/:id/labels/:name (lib/api/group_labels.rb): by id, else by title. */
groupLabelRoutes.get("/groups/:id/labels/:name", { params: GetLabel, response: GroupLabel }, async (c) => {
  requireUser(c);
  const params = await readParams(c, GetLabel);
  const group = await authorizedGroup(c, "read_label");
  const label = withLabel(await q.findLabel(c.var.db(), { kind: "group", group, scope: scopeOf(params) }, c.req.param("name"), c.var.actor));
  return present(c, label, groupLabel, await labelDescriptionsHtml(c, [label], { group }));
});

/** POST /groups/:id/labels (lib/api/group_labels.rb, `create_label`): 201. */
groupLabelRoutes.post("/groups/:id/labels", { params: CreateLabel, response: GroupLabel, errors: [409] }, async (c) => {
  requireUser(c);
  const params = await readParams(c, CreateLabel);
  const group = await authorizedGroup(c, "admin_label");
  const db = c.var.db();
  if (await q.findLabelByTitle(db, { group }, params.name)) throw conflict("Label already exists");
  const values = { title: labelTitle(params.name), color: normalizeColor(params.color) };
  const errors = labelErrors(values);
  if (Object.keys(errors).length) throw validation(errors);
  const created = await q.insertLabel(db, { groupId: group.id }, { title: values.title!, color: values.color, description: params.description ?? null, priority: null });
  if (!created) throw conflict("Label already exists");
  return present(c, { ...created, counts: null, subscribed: false }, groupLabel, await labelDescriptionsHtml(c, [created], { group }), 201);
});

type UpdateParams = z.output<typeof UpdateLabel>;

/** `update_label` on a group label. */
async function updateLabel(c: Ctx, group: GroupWithAccess, idOrTitle: string, params: UpdateParams) {
  authorizeGroup(c, "admin_label", group);
  const db = c.var.db();
  const label = withLabel(await q.findLabel(db, { kind: "group", group, scope: OWN }, idOrTitle, c.var.actor));
  const changes: Partial<q.LabelValues> = {};
  // `Label#title=` ignores a blank title.
  const title = params.new_name === undefined ? null : labelTitle(params.new_name);
  if (title !== null) changes.title = title;
  if (params.color !== undefined) changes.color = normalizeColor(params.color);
  if (params.description !== undefined) changes.description = params.description;
  const errors = labelErrors({ title: changes.title ?? label.title, color: changes.color ?? label.color });
  if (Object.keys(errors).length) throw validation(errors);
  if (Object.keys(changes).length === 0) return present(c, label, groupLabel, await labelDescriptionsHtml(c, [label], { group }));
  const updated = await q.updateLabel(db, label.id, changes);
  if (!updated) throw validation({ title: ["has already been taken"] });
  return present(c, { ...updated, counts: null, subscribed: label.subscribed }, groupLabel, await labelDescriptionsHtml(c, [updated], { group }));
}

/** PUT /groups/:id/labels/:name (lib/api/group_labels.rb): `:name` is the id or the title. */
groupLabelRoutes.put("/groups/:id/labels/:name", { params: UpdateLabel, response: GroupLabel }, async (c) => {
  requireUser(c);
  const params = await readParams(c, UpdateLabel, [{ atLeastOneOf: UPDATE_KEYS }]);
  const group = await findGroup(c, c.req.param("id"));
  return updateLabel(c, group, c.req.param("name"), params);
});

/** PUT /groups/:id/labels (lib/api/group_labels.rb, deprecated in 12.4): by `label_id` or `name`. */
groupLabelRoutes.put("/groups/:id/labels", { params: UpdateLabelByParam, deprecated: true, response: GroupLabel }, async (c) => {
  requireUser(c);
  const params = await readParams(c, UpdateLabelByParam, [{ atLeastOneOf: UPDATE_KEYS }, { exactlyOneOf: ["label_id", "name"] }]);
  const group = await findGroup(c, c.req.param("id"));
  return updateLabel(c, group, String(params.label_id ?? params.name), params);
});

/** `delete_label`: 204, or 412 when `If-Unmodified-Since` is older than the label. */
async function deleteLabel(c: Ctx, idOrTitle: string) {
  const group = await authorizedGroup(c, "admin_label");
  const db = c.var.db();
  const label = withLabel(await q.findLabel(db, { kind: "group", group, scope: OWN }, idOrTitle, c.var.actor));
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), label.updatedAt);
  await q.deleteLabel(db, label.id);
  return c.body(null, 204);
}

/** DELETE /groups/:id/labels/:name (lib/api/group_labels.rb) */
groupLabelRoutes.delete("/groups/:id/labels/:name", async (c) => {
  requireUser(c);
  await rawParams(c);
  return deleteLabel(c, c.req.param("name"));
});

/** DELETE /groups/:id/labels (lib/api/group_labels.rb, deprecated in 12.4): by `name`. */
groupLabelRoutes.delete("/groups/:id/labels", { params: DeleteLabelByParam, deprecated: true }, async (c) => {
  requireUser(c);
  const params = validateParams(await rawParams(c), DeleteLabelByParam);
  return deleteLabel(c, params.name);
});
