import * as z from "zod";
import { authorizeGroup, type GroupWithAccess } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { apiError, forbidden, recordNotFound } from "../../kernel/errors";
import { findGroup } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, readParamsWithPath } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { loadIssueRows } from "../../shared/issuables/issue_preload";
import { canReadEpic } from "../../shared/issuables/policy";
import { epicIssue, epicIssueLink, type EpicRow, EpicIssue, EpicIssueLink } from "../../entities/epics";
import * as q from "../queries";
import { epicIssueNotes, orderAfterMove } from "../services";

/**
 * Epic issues (ee/lib/api/epic_issues.rb): the issues assigned to an epic. Every call needs a user; an
 * unreadable group is 404, a missing or unreadable epic 403, writes need `admin_epic` (reporter).
 * An issue belongs to at most one epic: assigning it to another epic moves it.
 */
export const epicIssueRoutes = router();

async function findEpicOf(c: Ctx, iid: number): Promise<{ group: GroupWithAccess; found: EpicRow }> {
  const group = await findGroup(c, c.req.param("id") ?? "");
  const found = await q.findEpic(c.var.db(), group, iid);
  if (!found || !canReadEpic(c.var.actor, group, found)) throw forbidden();
  return { group, found };
}

const context = (group: GroupWithAccess) => ({ group, from: { kind: "group" as const, id: group.id } });

const List = z.object({ epic_iid: p.int(), ...pageParams.shape });
const Assign = z.object({ epic_iid: p.int(), issue_id: p.id() });
const Link = z.object({ epic_iid: p.int(), epic_issue_id: p.id() });
const Move = z.object({ epic_iid: p.int(), epic_issue_id: p.id(), move_before_id: p.id().optional(), move_after_id: p.id().optional() });

for (const prefix of ["/groups/:id/epics/:epic_iid/issues", "/groups/:id/-/epics/:epic_iid/issues"]) {
  /** GET …/issues: readable issues in the epic's order, paginated over the list (Kaminari.paginate_array). */
  epicIssueRoutes.get(prefix, { params: List, response: [EpicIssue] }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, List);
    const { group, found } = await findEpicOf(c, params.epic_iid);
    const all = await q.epicIssues(c.var.db(), c.var.actor, found.id);
    const page = pageOf(params);
    paginate(c, page, all.length);
    return present(c, all.slice(page.offset, page.offset + page.limit), epicIssue, context(group));
  });

  /** POST …/issues/:issue_id (EpicIssues::CreateService): assigns the issue (by global id), first in the epic. */
  epicIssueRoutes.post(`${prefix}/:issue_id`, { params: Assign, response: EpicIssueLink, errors: [409] }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, Assign);
    const { group, found } = await findEpicOf(c, params.epic_iid);
    authorizeGroup(c, "admin_epic", group);
    const db = c.var.db();
    const target = await q.issueForEpic(db, actor, found, params.issue_id);
    if (!target.exists) throw recordNotFound(); // Issue.find
    if (!target.linkable) throw apiError("No matching issue found. Make sure that you are adding a valid issue URL.", 404);
    if (target.currentEpicId === found.id) throw apiError("Issue(s) already assigned", 409);
    const [[issueRow], [previous]] = await Promise.all([
      loadIssueRows(db, [params.issue_id], actor),
      q.loadEpicRows(db, target.currentEpicId === null ? [] : [target.currentEpicId]),
    ]);
    // EpicIssues::CreateService#create_notes: added, or moved from its previous epic.
    if (!issueRow) throw apiError("No matching issue found. Make sure that you are adding a valid issue URL.", 404);
    const notes = epicIssueNotes(found, issueRow, "added", previous ?? null);
    const linkId = await q.assignIssueWithNotes(db, found, params.issue_id, actor.user.id, notes);
    const link = await q.epicIssueLink(db, found.id, linkId);
    return present(c, { ...link!, epic: found, issue: issueRow }, epicIssueLink, context(group), 201);
  });

  /** DELETE …/issues/:epic_issue_id (EpicIssues::DestroyService): answers the removed link. */
  epicIssueRoutes.delete(`${prefix}/:epic_issue_id`, { params: Link, response: EpicIssueLink, status: 200 }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, Link);
    const { group, found } = await findEpicOf(c, params.epic_iid);
    authorizeGroup(c, "admin_epic", group);
    const db = c.var.db();
    const link = await q.epicIssueLink(db, found.id, params.epic_issue_id);
    if (!link) throw recordNotFound(); // epic.epic_issues.find
    const [issueRow] = await loadIssueRows(db, [link.issueId], actor);
    if (!issueRow) throw apiError("No Issue Link found", 404);
    // EpicIssues::DestroyService#create_notes.
    await q.removeEpicIssueWithNotes(db, found, link.id, actor.user.id, epicIssueNotes(found, issueRow, "removed"));
    return present(c, { ...link, epic: found, issue: issueRow }, epicIssueLink, context(group));
  });

  /** PUT …/issues/:epic_issue_id (EpicIssues::UpdateService): reorders, then answers the epic's issues. */
  epicIssueRoutes.put(`${prefix}/:epic_issue_id`, { params: Move, response: [EpicIssue], paginated: false }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, Move);
    const { group, found } = await findEpicOf(c, params.epic_iid);
    authorizeGroup(c, "admin_epic", group);
    const db = c.var.db();
    const link = await q.epicIssueLink(db, found.id, params.epic_issue_id);
    if (!link) throw recordNotFound();
    if (params.move_before_id !== undefined || params.move_after_id !== undefined) {
      const others = (await q.epicIssueOrder(db, found.id)).filter((id) => id !== link.id);
      // GitLab answers the list even when a named link is not in the epic (the service's error is dropped).
      const order = orderAfterMove(others, link.id, params.move_before_id, params.move_after_id);
      if (order) await q.writeEpicIssueOrder(db, order);
    }
    return present(c, await q.epicIssues(db, c.var.actor, found.id), epicIssue, context(group));
  });
}
