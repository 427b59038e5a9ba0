import type { Ctx } from "../../kernel/env";
import { findIssue } from "../../shared/issuables/find";
import { findProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import * as z from "zod";
import { p, readParams, validateParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { mergeRequest, mergeRequestBasic, type MergeRequestContext, type MergeRequestRow, MergeRequestEntity, MergeRequestBasic } from "../../entities/merge_requests";
import { refreshListed } from "../merging";
import * as q from "../queries";

/** The issue endpoints that list merge requests (lib/api/issues.rb). */
export const issueRoutes = router();

/** `requires :issue_iid, type: Integer` and pagination. */
async function listParams(c: Ctx) {
  validateParams({ issue_iid: c.req.param("issue_iid") }, z.object({ issue_iid: p.id() }));
  return readParams(c, pageParams);
}

/**
 * GET /projects/:id/issues/:issue_iid/related_merge_requests (lib/api/issues.rb): the merge requests
 * whose title or description references the issue (Issues::ReferencedMergeRequestsService), readable
 * by the caller, presented with Entities::MergeRequest without `subscribed`.
 * Differs from GitLab: references made in the issue's own description and comments are not counted.
 */
issueRoutes.get("/projects/:id/issues/:issue_iid/related_merge_requests", { params: pageParams, response: [MergeRequestEntity] }, async (c) => {
  const params = await listParams(c);
  const project = await findProject(c, c.req.param("id"));
  const issue = await findIssue(c, project, c.req.param("issue_iid"));
  const page = pageOf(params);
  const { rows, total } = await q.listReferencingMergeRequests(c.var.db(), c.var.actor, { ...issue, namespaceId: project.namespaceId }, page);
  paginate(c, page, total);
  // As every list of merge requests: the merge status the single GET would show (merging.ts#refreshListed).
  return present<MergeRequestRow, Partial<MergeRequestContext>>(c, await refreshListed(c.var.db(), rows), mergeRequest, {
    fromProject: { id: project.id, namespaceId: project.namespaceId },
    includeSubscribed: false,
  });
});

/** GET /projects/:id/issues/:issue_iid/closed_by (lib/api/issues.rb): this project's merge requests that close the issue. */
issueRoutes.get("/projects/:id/issues/:issue_iid/closed_by", { params: pageParams, response: [MergeRequestBasic] }, async (c) => {
  const params = await listParams(c);
  const project = await findProject(c, c.req.param("id"));
  const issue = await findIssue(c, project, c.req.param("issue_iid"));
  const page = pageOf(params);
  const { rows, total } = await q.listClosingMergeRequests(c.var.db(), c.var.actor, issue, page);
  paginate(c, page, total);
  return present<MergeRequestRow, Partial<MergeRequestContext>>(c, await refreshListed(c.var.db(), rows), mergeRequestBasic, {
    fromProject: { id: project.id, namespaceId: project.namespaceId },
  });
});
