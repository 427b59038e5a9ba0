import * as z from "zod";
import type { ProjectWithAccess } from "../../kernel/abilities";
import type { Ctx } from "../../kernel/env";
import { apiError, forbidden, notFound } from "../../kernel/errors";
import { findProject, loadProject } from "../../kernel/lookup";
import { p, readParamsWithPath } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { canReadIssue, canUpdateIssue } from "../../shared/issuables/policy";
import { loadIssueById, loadProjectIssue, type IssueRow } from "../../shared/issuables/issue_preload";
import { issue, Issue } from "../../entities/issues";
import * as services from "../services";

/** Move, clone and reorder (lib/api/issues.rb). */
export const moveRoutes = router();

const withAssigneeIds = (row: IssueRow) => ({ ...row, assigneeIds: row.assignees.map((a) => a.id) });

/**
 * `user_project.issues.find_by(iid:)`, `not_found!('Issue')`.
 * Differs from GitLab: an issue the caller may not read (confidential) is that 404 too, where GitLab
 * goes on to the service's 400 or the 403.
 */
async function findReadable(c: Ctx, project: ProjectWithAccess, iid: number): Promise<IssueRow> {
  const row = await loadProjectIssue(c.var.db(), project.id, iid, c.var.actor);
  if (!row || !canReadIssue(c.var.actor, project, withAssigneeIds(row))) throw notFound("Issue");
  return row;
}

/** `Project.find_by(id: to_project_id)`: any project (the service refuses what the caller may not use). */
async function targetProject(c: Ctx, id: number): Promise<ProjectWithAccess> {
  const target = id > 0 ? await loadProject(c, String(id)) : null;
  if (!target) throw notFound("Project");
  return target;
}

async function presentNew(c: Ctx, id: number, from: ProjectWithAccess) {
  const row = await loadIssueById(c.var.db(), id, c.var.actor);
  if (!row) throw notFound("Issue");
  return present(c, row, issue, { from: { kind: "project", id: from.id, namespaceId: from.namespaceId } }, 201);
}

const Move = z.object({ issue_iid: p.id(), to_project_id: p.int() });
const Clone = Move.extend({ with_notes: p.bool().default(false) });

/** POST /projects/:id/issues/:issue_iid/move (Issues::MoveService): 201 with the new issue, refusals 400. */
moveRoutes.post("/projects/:id/issues/:issue_iid/move", { params: Move, response: Issue }, async (c) => {
  const params = await readParamsWithPath(c, Move);
  const project = await findProject(c, c.req.param("id"));
  const original = await findReadable(c, project, params.issue_iid);
  const target = await targetProject(c, params.to_project_id);
  const id = await services.copyIssue(c.var.db(), "move", project, target, c.var.actor!, original, false);
  return presentNew(c, id, project);
});

/** POST /projects/:id/issues/:issue_iid/clone (Issues::CloneService): 201 with the new issue, refusals 400. */
moveRoutes.post("/projects/:id/issues/:issue_iid/clone", { params: Clone, response: Issue }, async (c) => {
  const params = await readParamsWithPath(c, Clone);
  const project = await findProject(c, c.req.param("id"));
  const original = await findReadable(c, project, params.issue_iid);
  const target = await targetProject(c, params.to_project_id);
  const id = await services.copyIssue(c.var.db(), "clone", project, target, c.var.actor!, original, params.with_notes);
  return presentNew(c, id, target);
});

const Reorder = z.object({ issue_iid: p.id(), move_after_id: p.int().optional(), move_before_id: p.int().optional() });

/**
 * PUT /projects/:id/issues/:issue_iid/reorder (Issues::ReorderService): `update_issue` or 403; a
 * neighbour outside the issue's positioning scope, or none, is 422 `{"error": "Unprocessable Entity"}`.
 */
moveRoutes.put("/projects/:id/issues/:issue_iid/reorder", { params: Reorder, response: Issue, errors: [422] }, async (c) => {
  const params = await readParamsWithPath(c, Reorder, [{ atLeastOneOf: ["move_after_id", "move_before_id"] }]);
  const project = await findProject(c, c.req.param("id"));
  const row = await findReadable(c, project, params.issue_iid);
  if (!canUpdateIssue(c.var.actor, project, withAssigneeIds(row))) throw forbidden();
  const ask = { moveAfterId: params.move_after_id, moveBeforeId: params.move_before_id };
  if (!(await services.reorderIssue(c.var.db(), project, row.id, ask))) throw apiError({ error: "Unprocessable Entity" }, 422);
  const updated = await loadProjectIssue(c.var.db(), project.id, row.iid, c.var.actor);
  return present(c, updated!, issue, { from: { kind: "project", id: project.id, namespaceId: project.namespaceId } });
});
