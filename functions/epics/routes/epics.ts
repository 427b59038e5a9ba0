import * as z from "zod";
import { allowedOnGroup, authorizeGroup } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import { forbidden, recordNotFound, validation } from "../../kernel/errors";
import { findGroup, authorizedGroup } from "../../kernel/lookup";
import { canReadEpic } from "../../shared/issuables/policy";
import { pageOf, paginate } from "../../kernel/pagination";
import { p, rawParams, readParamsWithPath, validateParams, withPathParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { epic, Epic } from "../../entities/epics";
import { labelTitles, ListEpics } from "../params";
import * as q from "../queries";
import { castDate, parentError, planEpicLabels, planEpicUpdate, relationNotes, stateEventOf, updateNotes } from "../services";

/**
 * Group epics (ee/lib/api/epics.rb): list, get, create, update, delete. Reads are open to anonymous
 * callers on public groups (`authenticate_non_get!`); the licence always has epics.
 * Labels are group labels of the epic's group and its ancestors (missing titles become labels of the
 * epic's group); label changes are resource label events, other changes system notes (services.ts).
 * Not built: `color` (ignored, as GitLab does while its `epic_color_highlight` flag is off),
 * `my_reaction_emoji`.
 */
export const epicRoutes = router();

const OneEpic = z.object({ epic_iid: p.int() });
const UpdateEpic = z.object({
  epic_iid: p.int(),
  title: p.string().optional(),
  color: p.string().optional(),
  description: p.string().optional(),
  confidential: p.bool().optional(),
  updated_at: p.datetime().optional(),
  start_date_fixed: p.string().optional(),
  start_date: p.string().optional(), // GitLab's later alias of start_date_fixed
  start_date_is_fixed: p.bool().optional(),
  due_date_fixed: p.string().optional(),
  end_date: p.string().optional(), // GitLab's later alias of due_date_fixed
  due_date_is_fixed: p.bool().optional(),
  labels: p.strings({ comma: true }).optional(),
  add_labels: p.strings({ comma: true }).optional(),
  remove_labels: p.strings({ comma: true }).optional(),
  state_event: p.oneOf("reopen", "close").optional(),
  parent_id: p.id().optional(),
});
const UPDATE_FIELDS = ["add_labels", "color", "confidential", "description", "due_date_fixed", "due_date_is_fixed", "labels", "parent_id", "remove_labels", "start_date_fixed", "start_date_is_fixed", "state_event", "title"];
const CreateEpic = z.object({
  title: p.string(),
  description: p.string().optional(),
  color: p.string().optional(),
  confidential: p.bool().optional(),
  created_at: p.datetime().optional(),
  start_date_fixed: p.string().optional(), // `start_date, as: :start_date_fixed`
  start_date_is_fixed: p.bool().optional(),
  due_date_fixed: p.string().optional(), // `end_date, as: :due_date_fixed`
  due_date_is_fixed: p.bool().optional(),
  labels: p.strings({ comma: true }).optional(),
  add_labels: p.strings({ comma: true }).optional(),
  parent_id: p.id().optional(),
});

for (const prefix of ["/groups/:id/epics", "/groups/:id/-/epics"]) {
  /** GET /groups/:id/epics (ee/lib/api/epics.rb) */
  epicRoutes.get(prefix, { params: ListEpics, response: [Epic] }, async (c) => {
    const params = await readParamsWithPath(c, ListEpics);
    const group = await findGroup(c, c.req.param("id") ?? "");
    const page = pageOf(params);
    const list = await q.listEpics(c.var.db(), group, c.var.actor, params, page);
    paginate(c, page, list.total);
    return present(c, list.rows, epic, { group, withLabelsDetails: params.with_labels_details ?? false });
  });

  /**
   * GET /groups/:id/epics/:epic_iid (ee/lib/api/epics.rb). `authorize!(:read_epic, epic)` with a nil
   * epic is forbidden: GitLab answers 403, not 404, to a missing or unreadable epic.
   */
  epicRoutes.get(`${prefix}/:epic_iid`, { params: OneEpic, response: Epic }, async (c) => {
    const params = await readParamsWithPath(c, OneEpic);
    const group = await findGroup(c, c.req.param("id") ?? "");
    const found = await q.findEpic(c.var.db(), group, params.epic_iid);
    if (!found || !canReadEpic(c.var.actor, group, found)) throw forbidden();
    return present(c, found, epic, { group });
  });

  /** POST /groups/:id/epics (ee/lib/api/epics.rb, Epics::CreateService) */
  epicRoutes.post(prefix, { params: CreateEpic, response: Epic }, async (c) => {
    const actor = requireUser(c);
    const raw = await rawParams(c);
    // `start_date` and `end_date` are declared `as: :start_date_fixed` / `as: :due_date_fixed`.
    const aliased = { ...raw, start_date_fixed: raw.start_date_fixed ?? raw.start_date, due_date_fixed: raw.due_date_fixed ?? raw.end_date };
    const params = validateParams(aliased, CreateEpic);
    const group = await authorizedGroup(c, "admin_epic");
    const title = params.title.trim();
    if (title === "") throw validation({ title: ["can't be blank"] });
    if ([...title].length > 255) throw validation({ title: ["is too long (maximum is 255 characters)"] });
    // Setting created_at is allowed only for admins and owners (`set_epic_created_at`).
    const createdAt = params.created_at && allowedOnGroup(actor, "set_epic_created_at", group) ? params.created_at : undefined;
    const db = c.var.db();
    const confidential = params.confidential ?? false;
    // Epics::CreateService#assign_parent_epic_for: EpicLinks::CreateService's checks (Epic#validate_parent)
    // on the new epic, and its system notes on both.
    const parent = params.parent_id !== undefined ? await q.findEpicInGroupTree(db, group, actor, params.parent_id) : null;
    if (params.parent_id !== undefined && !parent) throw recordNotFound();
    if (parent) {
      const facts = await q.hierarchyFacts(db, parent, { id: 0, groupId: group.id } as Parameters<typeof q.hierarchyFacts>[2]);
      const child = { id: 0, parentId: null, groupId: group.id, confidential } as Parameters<typeof parentError>[1];
      const reason = parentError(parent, child, { ...facts, childDepth: 1, childIsAncestorOfParent: false });
      if (reason) throw validation({ parent: [reason] });
    }
    const labels = await planEpicLabels(db, group, [], { labels: params.labels, add_labels: params.add_labels });
    const created = await q.insertEpic(
      db,
      {
        groupId: group.id,
        authorId: actor.user.id,
        title,
        description: params.description ?? null,
        confidential,
        parentId: parent?.id ?? null,
        startDate: castDate(params.start_date_fixed),
        startDateIsFixed: params.start_date_is_fixed ?? false,
        dueDate: castDate(params.due_date_fixed),
        dueDateIsFixed: params.due_date_is_fixed ?? false,
        ...(createdAt ? { createdAt, updatedAt: createdAt } : {}),
      },
      labels ?? q.NO_LABEL_CHANGES,
      (row) => (parent ? relationNotes(parent, { ...row, groupFullPath: group.fullPath }, "relate_epic") : []),
    );
    const row = (await q.findEpic(db, group, created.iid))!;
    return present(c, row, epic, { group }, 201);
  });
  /** PUT /groups/:id/epics/:epic_iid (Epics::UpdateService): at least one change; owners may set updated_at. */
  epicRoutes.put(`${prefix}/:epic_iid`, { params: UpdateEpic, response: Epic }, async (c) => {
    const actor = requireUser(c);
    const raw = await rawParams(c);
    const aliased = { ...raw, start_date_fixed: raw.start_date_fixed ?? raw.start_date, due_date_fixed: raw.due_date_fixed ?? raw.end_date };
    const params = validateParams(withPathParams(c, aliased), UpdateEpic, [{ atLeastOneOf: UPDATE_FIELDS }]);
    const group = await findGroup(c, c.req.param("id") ?? "");
    const db = c.var.db();
    const found = await q.findEpic(db, group, params.epic_iid);
    if (!found || !canReadEpic(actor, group, found)) throw forbidden();
    authorizeGroup(c, "admin_epic", group);
    const changes = await planEpicUpdate(db, actor, group, found, params, allowedOnGroup(actor, "set_epic_updated_at", group));
    const labels = await planEpicLabels(db, group, found.labels.map((l) => l.id), params);
    const notes = updateNotes(found, changes);
    if (changes.parentId !== undefined && changes.parentId !== null && changes.parentId !== found.parentId) {
      const parent = await q.findEpicInGroupTree(db, group, actor, changes.parentId);
      if (parent) notes.push(...relationNotes(parent, found, "relate_epic"));
    }
    await q.updateEpic(db, found, changes, { actorId: actor.user.id, labels: labels ?? q.NO_LABEL_CHANGES, notes, stateEvent: stateEventOf(found, changes) });
    const updated = (await q.findEpic(db, group, found.iid))!;
    return present(c, updated, epic, { group });
  });

  /** DELETE /groups/:id/epics/:epic_iid (Issuable::DestroyService): owners only; 204. */
  epicRoutes.delete(`${prefix}/:epic_iid`, { params: OneEpic }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, OneEpic);
    const group = await findGroup(c, c.req.param("id") ?? "");
    const found = await q.findEpic(c.var.db(), group, params.epic_iid);
    if (!found || !canReadEpic(actor, group, found)) throw forbidden();
    authorizeGroup(c, "destroy_epic", group);
    await q.deleteEpic(c.var.db(), found.id);
    return c.body(null, 204);
  });
}
