import * as z from "zod";
import { allowed, canReadProject, type ProjectWithAccess } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, notFound, recordNotFound } from "../kernel/errors";
import { canReadIssue, type IssueWithAssignees } from "../shared/issuables/policy";
import { findIssue } from "../shared/issuables/find";
import { findProject } from "../kernel/lookup";
import { p, pathRowId, readParams, validateParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import type { IssueContext } from "../entities/issues";
import { issueLink, IssueLinkEntity, relatedIssue, RelatedIssue, type IssueLinkRow, type RelatedIssueRow } from "../entities/issue_links";
import * as q from "./queries";
import { createLink, destroyLink, issueReference, type LinkEnd } from "./services";

/**
 * Issue links (lib/api/issue_links.rb, 15.4). Every endpoint needs a signed-in user (`authenticate!`),
 * reads included. The list is not paginated, as GitLab's.
 */
export const issueLinksRoutes = router();

const CreateParams = z.object({
  target_project_id: p.string(),
  target_issue_iid: p.string(),
  link_type: p.oneOf("relates_to", "blocks", "is_blocked_by").optional(),
});

function end(issue: IssueWithAssignees, project: ProjectWithAccess): LinkEnd {
  return { id: issue.id, iid: issue.iid, projectId: issue.projectId, project: { id: project.id, path: project.path, fullPath: project.fullPath, namespaceId: project.namespaceId } };
}

function context(project: ProjectWithAccess): Partial<IssueContext> {
  return { from: { kind: "project", id: project.id, namespaceId: project.namespaceId } };
}

/** The project and issue of the path, for a signed-in caller. */
async function source(c: Ctx) {
  requireUser(c);
  // `requires :issue_iid, type: Integer` on the resource.
  validateParams({ issue_iid: c.req.param("issue_iid") }, z.object({ issue_iid: p.id() }));
  const project = await findProject(c, c.req.param("id")!);
  const issue = await findIssue(c, project, c.req.param("issue_iid")!);
  return { project, issue };
}

/**
 * `IssueLink.for_source_or_target(issue).find(id)` (`404 Not found`), then the other issue as
 * `find_project_issue` would find it.
 * Differs from GitLab: GitLab re-finds the link's target only, which is the listed issue itself when
 * the link points at it; here the other issue must always be readable.
 */
async function linkOf(c: Ctx, issueId: number) {
  const id = c.req.param("issue_link_id")!;
  if (pathRowId(id) === null) throw recordNotFound();
  const found = await q.linkOf(c.var.db(), c.var.actor, issueId, Number(id));
  if (!found) throw recordNotFound();
  if (!canReadProject(c.var.actor, found.otherProject)) throw notFound("Project");
  if (!canReadIssue(c.var.actor, found.otherProject, found.other)) throw notFound("Issue");
  return found;
}

/** Both issues of the link, read before a delete presents them; an issue deleted meanwhile takes the link with it (404). */
async function linkPair(c: Ctx, link: { sourceId: number; targetId: number; linkType: string }): Promise<IssueLinkRow> {
  const pair = await q.linkIssues(c.var.db(), c.var.actor, link.sourceId, link.targetId);
  if (!pair) throw apiError("No Issue Link found", 404);
  return { ...pair, linkType: link.linkType };
}

async function presentLink(c: Ctx, project: ProjectWithAccess, link: { sourceId: number; targetId: number; linkType: string }, status: 200 | 201) {
  return present<IssueLinkRow, Partial<IssueContext>>(c, await linkPair(c, link), issueLink, context(project), status);
}

/** GET /projects/:id/issues/:issue_iid/links (lib/api/issue_links.rb): readable linked issues in link order. */
issueLinksRoutes.get("/projects/:id/issues/:issue_iid/links", { response: [RelatedIssue], paginated: false }, async (c) => {
  const { project, issue } = await source(c);
  const rows = await q.relatedIssues(c.var.db(), c.var.actor, issue.id);
  return present<RelatedIssueRow, Partial<IssueContext>>(c, rows, relatedIssue, { ...context(project), includeSubscribed: false });
});

/** GET /projects/:id/issues/:issue_iid/links/:issue_link_id (lib/api/issue_links.rb, 15.1+) */
issueLinksRoutes.get("/projects/:id/issues/:issue_iid/links/:issue_link_id", { response: IssueLinkEntity }, async (c) => {
  const { project, issue } = await source(c);
  const { link } = await linkOf(c, issue.id);
  return presentLink(c, project, link, 200);
});

/** POST /projects/:id/issues/:issue_iid/links (lib/api/issue_links.rb): a two-way relation, 201 with the link. */
issueLinksRoutes.post("/projects/:id/issues/:issue_iid/links", { params: CreateParams, response: IssueLinkEntity, errors: [409, 422] }, async (c) => {
  const params = await readParams(c, CreateParams);
  const { project, issue } = await source(c);
  const actor = requireUser(c);
  const wanted = params.target_project_id;
  const sameProject = wanted === String(project.id) || wanted.toLowerCase() === project.fullPath.toLowerCase();
  const targetProject = sameProject ? project : await findProject(c, wanted);
  const target = await findIssue(c, targetProject, params.target_issue_iid);
  // IssueLinks::CreateService#linkable_issuables: admin_issue_link on the issue and on the target.
  const permitted = allowed(actor, "admin_issue_link", project) && allowed(actor, "admin_issue_link", targetProject);
  const notLinkable = () => apiError("No matching issue found. Make sure that you are adding a valid issue URL.", 404);
  if (target.id === issue.id) {
    if (!permitted) throw notLinkable();
    // IssueLink#check_self_relation, reported as "<reference> cannot be added: <errors>".
    throw apiError(`${issueReference(end(target, targetProject), project)} cannot be added: cannot be related to itself`, 422);
  }
  const result = await createLink(c.var.db(), actor.user.id, end(issue, project), end(target, targetProject), params.link_type ?? "relates_to", permitted);
  if (result.status === "exists") throw apiError("Issue(s) already assigned", 409);
  if (result.status === "forbidden") throw notLinkable();
  return presentLink(c, project, result, 201);
});

/** DELETE /projects/:id/issues/:issue_iid/links/:issue_link_id (lib/api/issue_links.rb): 200 with the removed link. */
issueLinksRoutes.delete("/projects/:id/issues/:issue_iid/links/:issue_link_id", { response: IssueLinkEntity, status: 200 }, async (c) => {
  const { project, issue } = await source(c);
  const actor = requireUser(c);
  const { link, other, otherProject } = await linkOf(c, issue.id);
  // IssueLinks::DestroyService#permission_to_remove_relation?: admin_issue_link on both issues.
  if (!allowed(actor, "admin_issue_link", project) || !allowed(actor, "admin_issue_link", otherProject))
    throw apiError("No Issue Link found", 404);
  const [sourceEnd, targetEnd] =
    link.sourceId === issue.id ? [end(issue, project), end(other, otherProject)] : [end(other, otherProject), end(issue, project)];
  const removed = await linkPair(c, link);
  if (!(await destroyLink(c.var.db(), actor.user.id, link.id, sourceEnd, targetEnd))) throw apiError("No Issue Link found", 404);
  return present<IssueLinkRow, Partial<IssueContext>>(c, removed, issueLink, context(project), 200);
});
