import * as z from "zod";
import { authorizeGroup, type GroupWithAccess } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { apiError, forbidden, recordNotFound, validation } from "../../kernel/errors";
import { findGroup } from "../../kernel/lookup";
import { p, readParamsWithPath, validateParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { canReadEpic } from "../../shared/issuables/policy";
import { epic, linkedEpic, type EpicRow, Epic, LinkedEpic } from "../../entities/epics";
import * as q from "../queries";
import { DEPTH_EXCEEDED, MAX_HIERARCHY_DEPTH, orderAfterMove, parentError, relationNotes } from "../services";

/**
 * Epic links (ee/lib/api/epic_links.rb): child epics of an epic. Every call needs a user
 * (`authenticate!`); a group the caller may not read is 404, a missing or unreadable parent epic 403
 * (`authorize!` on a nil epic), writes need `admin_epic` on the group (reporter). The licence always
 * carries multi-level epics, so the 403 for an unlicensed instance never happens here.
 * Not built: the system notes GitLab writes on both epics when a link changes.
 */
export const epicLinkRoutes = router();

/** The group and the epic named by the path, read-checked as `authorize!(:read_epic, epic)`. */
async function findParentEpic(c: Ctx, iid: number): Promise<{ group: GroupWithAccess; parent: EpicRow }> {
  const group = await findGroup(c, c.req.param("id") ?? "");
  const parent = await q.findEpic(c.var.db(), group, iid);
  if (!parent || !canReadEpic(c.var.actor, group, parent)) throw forbidden();
  return { group, parent };
}

/** `findParentEpic`, then `authorize! :admin_epic` on the group, as every write here does. */
async function adminParentEpic(c: Ctx, iid: number): Promise<{ group: GroupWithAccess; parent: EpicRow }> {
  const found = await findParentEpic(c, iid);
  authorizeGroup(c, "admin_epic", found.group);
  return found;
}

const OneEpic = z.object({ epic_iid: p.int() });
const ChildEpic = z.object({ epic_iid: p.int(), child_epic_id: p.id() });
const NewChild = z.object({ epic_iid: p.int(), title: p.string(), confidential: p.bool().optional() });
const Reorder = z.object({
  epic_iid: p.int(),
  child_epic_id: p.id(),
  move_before_id: p.id().optional(),
  move_after_id: p.id().optional(),
});

for (const prefix of ["/groups/:id/epics/:epic_iid/epics", "/groups/:id/-/epics/:epic_iid/epics"]) {
  /** GET …/epics/:epic_iid/epics: the readable children, in their order. */
  epicLinkRoutes.get(prefix, { params: OneEpic, response: [Epic], paginated: false }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, OneEpic);
    const { group, parent } = await findParentEpic(c, params.epic_iid);
    const children = await q.childEpics(c.var.db(), group, c.var.actor, parent.id);
    return present(c, children, epic, { group });
  });

  /** POST …/epics/:epic_iid/epics/:child_epic_id (EpicLinks::CreateService): relate, moving it from another parent. */
  epicLinkRoutes.post(`${prefix}/:child_epic_id`, { params: ChildEpic, response: Epic, errors: [409] }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, ChildEpic);
    const { group, parent } = await adminParentEpic(c, params.epic_iid);
    const db = c.var.db();
    const child = await q.findEpicInGroupTree(db, group, c.var.actor, params.child_epic_id);
    if (!child) throw apiError("No matching epic found. Make sure that you are adding a valid epic URL.", 404);
    const reason = parentError(parent, child, await q.hierarchyFacts(db, parent, child));
    if (reason) throw apiError(reason, 409);
    // EpicLinks::CreateService#create_notes.
    await q.setParentWithNotes(db, child, parent.id, actor.user.id, relationNotes(parent, child, "relate_epic"));
    const updated = await q.findEpicInGroupTree(db, group, c.var.actor, child.id);
    return present(c, updated!, epic, { group }, 201);
  });

  /** POST …/epics/:epic_iid/epics (Epics::CreateService with `parent_id`): a new child, compact. */
  epicLinkRoutes.post(prefix, { params: NewChild, response: LinkedEpic }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, NewChild);
    const { group, parent } = await adminParentEpic(c, params.epic_iid);
    const title = params.title.trim();
    if (title === "") throw validation({ title: ["can't be blank"] });
    if ([...title].length > 255) throw validation({ title: ["is too long (maximum is 255 characters)"] });
    const confidential = params.confidential ?? parent.confidential;
    const db = c.var.db();
    if (parent.confidential && !confidential)
      throw validation({ parent: ["This epic cannot be added. A non-confidential epic cannot be added to a confidential parent epic."] });
    if ((await q.epicLevel(db, parent.id)) >= MAX_HIERARCHY_DEPTH) throw validation({ parent: [DEPTH_EXCEEDED] });
    const created = await q.insertEpic(db, { groupId: group.id, authorId: actor.user.id, title, confidential, parentId: parent.id });
    // First among its siblings, as `move_to_start`; the relation's notes as EpicLinks::CreateService writes them.
    const relation = relationNotes(parent, { id: created.id, iid: created.iid, groupId: group.id, groupFullPath: group.fullPath }, "relate_epic");
    await q.setParentWithNotes(db, created, parent.id, actor.user.id, relation);
    const row = (await q.findEpicInGroupTree(db, group, c.var.actor, created.id))!;
    const flags = await q.childrenAndIssues(db, created.id);
    const linked = { ...row, ...flags, parentIid: parent.iid, parentGroup: { id: parent.groupId, fullPath: parent.groupFullPath } };
    return present(c, linked, linkedEpic, {}, 201);
  });

  /** PUT …/epics/:epic_iid/epics/:child_epic_id (EpicLinks::UpdateService): reorder among its siblings. */
  epicLinkRoutes.put(`${prefix}/:child_epic_id`, { params: Reorder, response: [Epic], paginated: false }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, Reorder);
    const { group, parent } = await adminParentEpic(c, params.epic_iid);
    const db = c.var.db();
    const child = await q.findEpicInGroupTree(db, group, c.var.actor, params.child_epic_id);
    if (!child) throw apiError("Epic not found for given params", 404);
    if (params.move_before_id !== undefined || params.move_after_id !== undefined) {
      const siblings = child.parentId === null ? [] : await q.siblingIds(db, child.parentId, child.id);
      const order = orderAfterMove(siblings, child.id, params.move_before_id, params.move_after_id);
      if (!order) throw apiError("Epic not found for given params", 404);
      await q.writeChildOrder(db, order);
    }
    const children = await q.childEpics(db, group, c.var.actor, parent.id);
    return present(c, children, epic, { group });
  });

  /** DELETE …/epics/:epic_iid/epics/:child_epic_id (Epics::UpdateService with `parent: nil`). */
  epicLinkRoutes.delete(`${prefix}/:child_epic_id`, { params: ChildEpic, response: Epic, status: 200 }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, ChildEpic);
    const { group, parent } = await adminParentEpic(c, params.epic_iid);
    const db = c.var.db();
    const child = await q.findEpicInGroupTree(db, group, c.var.actor, params.child_epic_id);
    // Deliberate difference: GitLab fails on an unknown child here; we answer the record's 404.
    if (!child) throw recordNotFound();
    // EpicLinks::DestroyService#create_notes, when the epic was this parent's child.
    const notes = child.parentId === parent.id ? relationNotes(parent, child, "unrelate_epic") : [];
    await q.setParentWithNotes(db, child, null, actor.user.id, notes);
    const updated = await q.findEpicInGroupTree(db, group, c.var.actor, child.id);
    return present(c, updated!, epic, { group });
  });
}
