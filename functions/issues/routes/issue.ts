import * as z from "zod";
import type { ProjectWithAccess } from "../../kernel/abilities";
import { authorize } from "../../kernel/abilities";
import { requireAdmin } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { checkUnmodifiedSince, forbidden, notFound, recordNotFound } from "../../kernel/errors";
import { canReadIssue, canUpdateIssue } from "../../shared/issuables/policy";
import { findIssue } from "../../shared/issuables/find";
import { loadIssueById, loadProjectIssue, type IssueRow } from "../../shared/issuables/issue_preload";
import { findProject, authorizedProject } from "../../kernel/lookup";
import { p, pathRowId, rawParams, readParamsWithPath } from "../../kernel/params";
import { baseUrl, present } from "../../kernel/present";
import { hookAttrsBefore, hookEvent, updateAction } from "../../shared/webhooks";
import { checkRateLimit } from "../../kernel/rate_limit";
import { router } from "../../kernel/router";
import { issue, Issue } from "../../entities/issues";
import { CREATE_RULES, CreateIssue, UPDATE_RULES, UpdateIssue } from "../params";
import { clientIp } from "../rules";
import * as services from "../services";

export const issueRoutes = router();

const OneIssue = z.object({ issue_iid: p.id() });

const withAssigneeIds = (row: IssueRow) => ({ ...row, assigneeIds: row.assignees.map((a) => a.id) });

function presentIssue(c: Ctx, row: IssueRow, project: ProjectWithAccess, status: 200 | 201 = 200) {
  const from = { kind: "project", id: project.id, namespaceId: project.namespaceId } as const;
  return present(c, row, issue, { from }, status);
}

/** The issue just written, with its relations, as the caller sees it. */
async function reload(c: Ctx, project: ProjectWithAccess, where: { iid: number } | { id: number }): Promise<IssueRow> {
  const db = c.var.db();
  const row =
    "iid" in where
      ? await loadProjectIssue(db, project.id, where.iid, c.var.actor)
      : await loadIssueById(db, where.id, c.var.actor);
  if (!row) throw notFound("Issue");
  return row;
}

/** GET /issues/:id (lib/api/issues.rb): any issue by global id, administrators only. */
issueRoutes.get("/issues/:id", { response: Issue }, async (c) => {
  requireAdmin(c);
  const id = c.req.param("id");
  if (pathRowId(id) === null) throw recordNotFound();
  const row = await loadIssueById(c.var.db(), Number(id), c.var.actor);
  if (!row) throw recordNotFound();
  const from = { kind: "project", id: row.project.id, namespaceId: row.project.namespaceId } as const;
  return present(c, row, issue, { from });
});

/** GET /projects/:id/issues/:issue_iid (lib/api/issues.rb, `find_project_issue`) */
issueRoutes.get("/projects/:id/issues/:issue_iid", { params: OneIssue, response: Issue }, async (c) => {
  const params = await readParamsWithPath(c, OneIssue);
  const project = await findProject(c, c.req.param("id"));
  const row = await loadProjectIssue(c.var.db(), project.id, params.issue_iid, c.var.actor);
  if (!row || !canReadIssue(c.var.actor, project, withAssigneeIds(row))) throw notFound("Issue");
  return presentIssue(c, row, project);
});

/**
 * POST /projects/:id/issues (lib/api/issues.rb, Issues::CreateService): rate limited per user
 * (`issues_create`), after the permission check as the service does it.
 */
issueRoutes.post("/projects/:id/issues", { params: CreateIssue, response: Issue, errors: [409] }, async (c) => {
  const params = await readParamsWithPath(c, CreateIssue, CREATE_RULES);
  const project = await authorizedProject(c, "create_issue");
  const actor = c.var.actor!;
  const db = c.var.db();
  await checkRateLimit(db, "issues_create", actor.user.id);
  const request = {
    userAgent: c.req.header("user-agent") || null,
    ipAddress: clientIp(c.req.header("cf-connecting-ip"), c.req.header("x-forwarded-for")),
  };
  const id = await services.createIssue(db, project, actor, params, request);
  await hookEvent(c.env, baseUrl(c), { kind: "issue", projectId: project.id, id, action: "open", userId: actor.user.id });
  return presentIssue(c, await reload(c, project, { id }), project, 201);
});

/**
 * PUT /projects/:id/issues/:issue_iid (lib/api/issues.rb, Issues::UpdateService): a missing issue is
 * `find_by!`'s `404 Not found`.
 * Differs from GitLab: a confidential issue the caller may not read is that same 404, not a 403.
 */
issueRoutes.put("/projects/:id/issues/:issue_iid", { params: UpdateIssue, response: Issue }, async (c) => {
  const params = await readParamsWithPath(c, UpdateIssue, UPDATE_RULES);
  const raw = await rawParams(c);
  const project = await findProject(c, c.req.param("id"));
  const actor = c.var.actor!;
  const current = await loadProjectIssue(c.var.db(), project.id, params.issue_iid, actor);
  if (!current || !canReadIssue(actor, project, withAssigneeIds(current))) throw recordNotFound();
  if (!canUpdateIssue(actor, project, withAssigneeIds(current))) throw forbidden();
  const changed = await services.updateIssue(c.var.db(), project, actor, current, params, (key) => raw[key] !== undefined);
  if (!changed) return presentIssue(c, current, project);
  const updated = await reload(c, project, { iid: current.iid });
  await hookEvent(c.env, baseUrl(c), {
    kind: "issue",
    projectId: project.id,
    id: updated.id,
    action: updateAction(current.state, updated.state),
    userId: actor.user.id,
    before: hookAttrsBefore(current),
  });
  return presentIssue(c, updated, project);
});

/** DELETE /projects/:id/issues/:issue_iid (lib/api/issues.rb): owners and admins; 204, or 412 (`destroy_conditionally!`). */
issueRoutes.delete("/projects/:id/issues/:issue_iid", { params: OneIssue }, async (c) => {
  const params = await readParamsWithPath(c, OneIssue);
  const project = await findProject(c, c.req.param("id"));
  const found = await findIssue(c, project, String(params.issue_iid));
  authorize(c, "destroy_issue", project);
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.updatedAt);
  await services.deleteIssue(c.var.db(), found);
  return c.body(null, 204);
});
