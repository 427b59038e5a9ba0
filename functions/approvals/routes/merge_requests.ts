import { z } from "zod";
import type { ProjectWithAccess } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { apiError, notFound, unauthorized } from "../../kernel/errors";
import { findProject } from "../../kernel/lookup";
import { p, readParamsWithPath } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { findMergeRequest } from "../../shared/issuables/find";
import { approvalStateEntity, mergeRequestApprovals } from "../entities";
import * as q from "../queries";
import { approvalState, canApprove, suggestedApprovers } from "../services";

/**
 * A merge request's approvals (ee/lib/api/merge_request_approvals.rb with 15.4's `approval_state`):
 * reads for whoever reads the merge request, writes for signed-in users (`authenticate_non_get!`).
 * Not built: merge-request-level rules (`…/approval_rules`), overriding `approvals_required` per merge
 * request (`POST …/approvals`), `PUT …/approvers`: those paths are 404 like any unknown route.
 */
export const mergeRequestApprovalRoutes = router();

const Iid = z.object({ merge_request_iid: p.id() });
const Approve = Iid.extend({ sha: p.string().optional(), approval_password: p.string().optional() });

/** Everything the approval entities need: one settings read, the rules in four statements, the approvals. */
async function loadState(c: Ctx, project: ProjectWithAccess, mr: Awaited<ReturnType<typeof findMergeRequest>>) {
  const db = c.var.db();
  const settings = await q.getSettings(db, project.id);
  const rules = await q.withDetails(db, c.var.actor, project.id, await q.listRules(db, project.id));
  const given = await q.listApprovals(db, mr.id);
  const state = approvalState(mr, settings, rules, given);
  const userCanApprove = canApprove(state, mr, settings, c.var.actor, project.accessLevel);
  return { settings, state, userCanApprove, suggested: suggestedApprovers(state) };
}

async function findBoth(c: Ctx) {
  const project = await findProject(c, c.req.param("id")!);
  await readParamsWithPath(c, Iid);
  const mr = await findMergeRequest(c, project, c.req.param("merge_request_iid")!);
  return { project, mr };
}

/** GET /projects/:id/merge_requests/:merge_request_iid/approvals */
mergeRequestApprovalRoutes.get("/projects/:id/merge_requests/:merge_request_iid/approvals", async (c) => {
  const { project, mr } = await findBoth(c);
  return present(c, mr, mergeRequestApprovals, await loadState(c, project, mr));
});

/** GET /projects/:id/merge_requests/:merge_request_iid/approval_state */
mergeRequestApprovalRoutes.get("/projects/:id/merge_requests/:merge_request_iid/approval_state", async (c) => {
  const { project, mr } = await findBoth(c);
  const { state } = await loadState(c, project, mr);
  return present(c, state, approvalStateEntity);
});

/**
 * POST /projects/:id/merge_requests/:merge_request_iid/approve (MergeRequests::ApprovalService).
 * Who may not approve (already approved, not eligible, the author when authors may not approve, a
 * merge request that is not open) gets 401, as GitLab's `unauthorized!`; a `sha` other than the
 * source branch's head is 409.
 * Differs from GitLab: `require_password_to_approve` is stored and shown but `approval_password` is
 * not checked (passwords are verified only by the sign-in flow, which this API does not have).
 */
mergeRequestApprovalRoutes.post("/projects/:id/merge_requests/:merge_request_iid/approve", async (c) => {
  const actor = requireUser(c);
  const project = await findProject(c, c.req.param("id"));
  const params = await readParamsWithPath(c, Approve);
  const mr = await findMergeRequest(c, project, String(params.merge_request_iid));
  if (!(await loadState(c, project, mr)).userCanApprove) throw unauthorized();
  if (params.sha !== undefined) {
    const head = await q.sourceHead(c.var.db(), mr);
    if (params.sha !== head) throw apiError(`SHA does not match HEAD of source branch: ${head}`, 409);
  }
  if (!(await q.approve(c.var.db(), mr, actor.user.id))) throw unauthorized();
  return present(c, mr, mergeRequestApprovals, await loadState(c, project, mr), 201);
});

/** POST /projects/:id/merge_requests/:merge_request_iid/unapprove (MergeRequests::RemoveApprovalService) */
mergeRequestApprovalRoutes.post("/projects/:id/merge_requests/:merge_request_iid/unapprove", async (c) => {
  const actor = requireUser(c);
  const { project, mr } = await findBoth(c);
  if (!(await q.unapprove(c.var.db(), mr, actor.user.id))) throw notFound();
  return present(c, mr, mergeRequestApprovals, await loadState(c, project, mr), 201);
});
