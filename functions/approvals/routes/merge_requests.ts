import * as z from "zod";
import type { ProjectWithAccess } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { apiError, checkUnmodifiedSince, forbidden, notFound, recordNotFound, unauthorized, unprocessable, validation } from "../../kernel/errors";
import { findProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { Access } from "../../kernel/access";
import { p, readParams, readParamsWithPath } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { canOverride, canApprove, loadApprovalState, suggestedApprovers } from "../../shared/approvals/state";
import { findMergeRequest, findProjectMergeRequest } from "../../shared/issuables/find";
import { canUpdateMergeRequest, type MergeRequestWithAssignees } from "../../shared/issuables/policy";
import { isBot } from "../../entities/users";
import { verifyPassword } from "../../shared/passwords";
import { MergeRequestApprovals, approvalStateEntity, MergeRequestApprovalRule, mergeRequestApprovalRule, mergeRequestApprovals, MergeRequestApprovalState } from "../../entities/approvals";
import * as q from "../queries";
import { validateRule } from "./rules";

/**
 * A merge request's approvals (lib/api/merge_request_approvals.rb and ee/lib/ee/api/merge_request_approvals.rb
 * of 15.4): reads for whoever reads the merge request, writes for signed-in users (`authenticate_non_get!`).
 * `PUT …/approvers` (and the project's `PUT /projects/:id/approvers`) were removed in GitLab 13.11
 * (gitlab-org/gitlab!57473), so 15.4 answers them 404 like any unknown route, and so does this API.
 */
export const mergeRequestApprovalRoutes = router();

const Iid = z.object({ merge_request_iid: p.id() });
const Approve = Iid.extend({ sha: p.string().optional(), approval_password: p.string().optional() });
const ApprovalsRequired = Iid.extend({ approvals_required: p.int() });

/** Everything the approval entities need (shared/approvals/state.ts#loadApprovalState) and what the caller may do. */
async function loadState(c: Ctx, project: ProjectWithAccess, mr: MergeRequestWithAssignees) {
  const { settings, state } = await loadApprovalState(c.var.db(), c.var.actor, project, mr);
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
mergeRequestApprovalRoutes.get("/projects/:id/merge_requests/:merge_request_iid/approvals", { params: Iid, response: MergeRequestApprovals }, async (c) => {
  const { project, mr } = await findBoth(c);
  return present(c, mr, mergeRequestApprovals, await loadState(c, project, mr));
});

/** GET /projects/:id/merge_requests/:merge_request_iid/approval_state */
mergeRequestApprovalRoutes.get("/projects/:id/merge_requests/:merge_request_iid/approval_state", { params: Iid, response: MergeRequestApprovalState }, async (c) => {
  const { project, mr } = await findBoth(c);
  const { state } = await loadState(c, project, mr);
  return present(c, state, approvalStateEntity);
});

/**
 * POST /projects/:id/merge_requests/:merge_request_iid/approve (MergeRequests::ApprovalService).
 * Who may not approve (already approved, not eligible, the author when authors may not approve, a
 * merge request that is not open) gets 401, as GitLab's `unauthorized!`; a `sha` other than the
 * source branch's head is 409. When the project requires the password to approve
 * (`require_password_to_approve`), an `approval_password` that is missing or not the approver's
 * password is 401 too (EE ApprovalService#incorrect_approval_password?), checked after the sha.
 */
mergeRequestApprovalRoutes.post("/projects/:id/merge_requests/:merge_request_iid/approve", { params: Approve, response: MergeRequestApprovals, errors: [409] }, async (c) => {
  const actor = requireUser(c);
  const project = await findProject(c, c.req.param("id"));
  const params = await readParamsWithPath(c, Approve);
  const mr = await findMergeRequest(c, project, String(params.merge_request_iid));
  const state = await loadState(c, project, mr);
  if (!state.userCanApprove) throw unauthorized();
  if (params.sha !== undefined) {
    const head = await q.sourceHead(c.var.db(), mr);
    if (params.sha !== head) throw apiError(`SHA does not match HEAD of source branch: ${head}`, 409);
  }
  if (state.settings.requirePasswordToApprove && !(await verifyPassword(params.approval_password ?? "", actor.user.encryptedPassword))) throw unauthorized();
  if (!(await q.approve(c.var.db(), mr, actor.user.id))) throw unauthorized();
  return present(c, mr, mergeRequestApprovals, await loadState(c, project, mr), 201);
});

/** POST /projects/:id/merge_requests/:merge_request_iid/unapprove (MergeRequests::RemoveApprovalService) */
mergeRequestApprovalRoutes.post("/projects/:id/merge_requests/:merge_request_iid/unapprove", { params: Iid, response: MergeRequestApprovals }, async (c) => {
  const actor = requireUser(c);
  const { project, mr } = await findBoth(c);
  if (!(await q.unapprove(c.var.db(), mr, actor.user.id))) throw notFound();
  return present(c, mr, mergeRequestApprovals, await loadState(c, project, mr), 201);
});

/**
 * POST /projects/:id/merge_requests/:merge_request_iid/approvals (deprecated since 12.3, still served
 * by 15.4): sets the merge request's own `approvals_before_merge`, which the approval state uses when no
 * rule applies (ApprovalMergeRequestFallback). Who may not update the merge request gets 403; a project
 * that does not let merge requests override is 422 "Overriding approvals is disabled"; fewer approvals
 * than the project asks is GitLab's validation error (400). On a merged merge request the value is
 * dropped silently (EE BaseService#filter_params keeps it only for `update_approvers`). 201 with the
 * approvals, as `GET …/approvals` shows them.
 */
mergeRequestApprovalRoutes.post("/projects/:id/merge_requests/:merge_request_iid/approvals", { params: ApprovalsRequired, deprecated: true, response: MergeRequestApprovals, errors: [422] }, async (c) => {
  requireUser(c);
  const project = await findProject(c, c.req.param("id"));
  const params = await readParamsWithPath(c, ApprovalsRequired);
  let mr = await findMergeRequest(c, project, String(params.merge_request_iid));
  if (!canUpdateMergeRequest(c.var.actor, project, mr)) throw forbidden();
  const db = c.var.db();
  const settings = await q.getSettings(db, project.id);
  if (!canOverride(settings)) throw unprocessable("Overriding approvals is disabled");
  if (mr.state !== "merged") {
    // EE MergeRequest#validate_approvals_before_merge
    if (params.approvals_required < settings.approvalsBeforeMerge)
      throw validation({ validate_approvals_before_merge: ["Number of approvals must be at least that of approvals on the target project"] });
    mr = await q.setApprovalsBeforeMerge(db, mr, params.approvals_required);
  }
  return present(c, mr, mergeRequestApprovals, await loadState(c, project, mr), 201);
});

/**
 * PUT /projects/:id/merge_requests/:merge_request_iid/reset_approvals (15.4): deletes every approval
 * of the merge request; 202. Only bot users (project or group access tokens) who may approve
 * (MergeRequestPolicy `reset_merge_request_approvals`: `approve_merge_request & bot`, that is members
 * of the project who may update the merge request), on a merge request that is not merged; anyone
 * else is 401.
 */
mergeRequestApprovalRoutes.put("/projects/:id/merge_requests/:merge_request_iid/reset_approvals", { params: Iid }, async (c) => {
  const actor = requireUser(c);
  const project = await findProject(c, c.req.param("id")!);
  await readParamsWithPath(c, Iid);
  // `find_project_merge_request`: a merge request the caller may not read is 404 here, not 403.
  const mr = await findProjectMergeRequest(c, project, c.req.param("merge_request_iid")!);
  const member = project.accessLevel >= Access.GUEST;
  if (!isBot(actor.user) || !member || !canUpdateMergeRequest(actor, project, mr) || mr.state === "merged") throw unauthorized();
  await q.resetApprovals(c.var.db(), mr.id);
  // Grape answers the value of `status :accepted`, the number itself.
  return c.json(202, 202);
});

// ----- merge request approval rules (ee/lib/api/merge_request_approval_rules.rb)

const MrRuleId = Iid.extend({ approval_rule_id: p.id() });
const CreateMrRule = Iid.extend({
  name: p.string(),
  approvals_required: p.int(),
  approval_project_rule_id: p.int().optional(),
  user_ids: p.ids({ comma: true }).optional(),
  group_ids: p.ids({ comma: true }).optional(),
});
const UpdateMrRule = MrRuleId.extend({
  name: p.string().optional(),
  approvals_required: p.int().optional(),
  user_ids: p.ids({ comma: true }).optional(),
  group_ids: p.ids({ comma: true }).optional(),
  remove_hidden_groups: p.bool().optional(),
});

/**
 * MergeRequestPolicy `update_approvers`: who may update the merge request, while it is not merged and
 * the project lets merge requests override its rules (`disable_overriding_approvers_per_merge_request`
 * off); else 403.
 */
async function findForRuleWrite(c: Ctx) {
  requireUser(c);
  const { project, mr } = await findBoth(c);
  const settings = await q.getSettings(c.var.db(), project.id);
  if (!canUpdateMergeRequest(c.var.actor, project, mr) || mr.state === "merged" || !canOverride(settings)) throw forbidden();
  return { project, mr };
}

/** ApprovalMergeRequestRule#validate_approvals_required: not fewer than the project rule it was made from asks. */
function validateAgainstSource(approvalsRequired: number, sourceRequired: number): void {
  if (approvalsRequired < sourceRequired) throw validation({ approvals_required: [`must be greater than or equal to ${sourceRequired}`] });
}

async function findMrRule(c: Ctx, mr: { id: number }, ruleId: number) {
  const [rule] = await q.listMergeRequestRules(c.var.db(), mr.id, ruleId);
  if (!rule) throw recordNotFound();
  return rule;
}

async function mrRuleDetails(c: Ctx, project: ProjectWithAccess, rule: q.ApprovalMergeRequestRule) {
  const [details] = await q.withMergeRequestRuleDetails(c.var.db(), c.var.actor, project.id, [rule]);
  return details;
}

/** GET /projects/:id/merge_requests/:merge_request_iid/approval_rules (the merge request's own rules, paginated) */
mergeRequestApprovalRoutes.get("/projects/:id/merge_requests/:merge_request_iid/approval_rules", { params: pageParams, response: [MergeRequestApprovalRule] }, async (c) => {
  const { project, mr } = await findBoth(c);
  const page = pageOf(await readParams(c, pageParams));
  const rules = await q.listMergeRequestRules(c.var.db(), mr.id);
  paginate(c, page, rules.length);
  const onPage = await q.withMergeRequestRuleDetails(c.var.db(), c.var.actor, project.id, rules.slice(page.offset, page.offset + page.limit));
  return present(c, onPage, mergeRequestApprovalRule);
});

/**
 * POST /projects/:id/merge_requests/:merge_request_iid/approval_rules (ApprovalRules::CreateService for
 * a merge request): with `approval_project_rule_id` the rule takes that project rule's name, users and
 * groups (`copy_approval_project_rule_properties`); users must be members of the project and groups
 * visible to the caller, others are dropped.
 */
mergeRequestApprovalRoutes.post("/projects/:id/merge_requests/:merge_request_iid/approval_rules", { params: CreateMrRule, response: MergeRequestApprovalRule }, async (c) => {
  const { project, mr } = await findForRuleWrite(c);
  const params = await readParamsWithPath(c, CreateMrRule);
  const db = c.var.db();
  let name = params.name;
  let userIds = params.user_ids;
  let groupIds = params.group_ids;
  let sourceId: number | null = null;
  let sourceRequired = 0;
  if (params.approval_project_rule_id !== undefined) {
    const [source] = await q.listRules(db, project.id, params.approval_project_rule_id);
    if (source) {
      const links = await q.projectRuleLinks(db, source.id);
      ({ userIds, groupIds } = links);
      name = source.name;
      sourceId = source.id;
      sourceRequired = source.approvalsRequired;
    }
  }
  validateRule(name, params.approvals_required);
  validateAgainstSource(params.approvals_required, sourceRequired);
  // The copied approvers are the project rule's as they are; only the caller's own lists are filtered.
  const refs = sourceId !== null ? { userIds, groupIds } : await q.eligibleReferences(db, c.var.actor!, project.id, { userIds, groupIds });
  const rule = await q.insertMergeRequestRule(db, mr.id, { name, approvalsRequired: params.approvals_required, approvalProjectRuleId: sourceId, ...refs });
  if (!rule) throw validation({ name: ["has already been taken"] });
  return present(c, await mrRuleDetails(c, project, rule), mergeRequestApprovalRule, {}, 201);
});

/**
 * PUT /projects/:id/merge_requests/:merge_request_iid/approval_rules/:approval_rule_id
 * (ApprovalRules::UpdateService): what was sent changes; the lists sent replace the rule's, groups the
 * caller cannot see stay unless `remove_hidden_groups`.
 */
mergeRequestApprovalRoutes.put("/projects/:id/merge_requests/:merge_request_iid/approval_rules/:approval_rule_id", { params: UpdateMrRule, response: MergeRequestApprovalRule }, async (c) => {
  const { project, mr } = await findForRuleWrite(c);
  const params = await readParamsWithPath(c, UpdateMrRule);
  const rule = await findMrRule(c, mr, params.approval_rule_id);
  const details = await mrRuleDetails(c, project, rule);
  validateRule(params.name ?? rule.name, params.approvals_required ?? rule.approvalsRequired);
  if (params.approvals_required !== undefined) validateAgainstSource(params.approvals_required, details.sourceRule?.approvalsRequired ?? 0);
  const refs = await q.eligibleReferences(c.var.db(), c.var.actor!, project.id, { userIds: params.user_ids, groupIds: params.group_ids });
  const keepGroupIds = params.remove_hidden_groups ? [] : details.hiddenGroupIds;
  const updated = await q.updateMergeRequestRule(c.var.db(), rule, { name: params.name, approvalsRequired: params.approvals_required, ...refs, keepGroupIds });
  if (!updated) throw validation({ name: ["has already been taken"] });
  return present(c, await mrRuleDetails(c, project, updated), mergeRequestApprovalRule);
});

/** DELETE /projects/:id/merge_requests/:merge_request_iid/approval_rules/:approval_rule_id (`destroy_conditionally!`) */
mergeRequestApprovalRoutes.delete("/projects/:id/merge_requests/:merge_request_iid/approval_rules/:approval_rule_id", { params: MrRuleId }, async (c) => {
  const { mr } = await findForRuleWrite(c);
  const params = await readParamsWithPath(c, MrRuleId);
  const rule = await findMrRule(c, mr, params.approval_rule_id);
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), rule.updatedAt);
  if (!(await q.deleteMergeRequestRule(c.var.db(), rule.id))) throw recordNotFound();
  return c.body(null, 204);
});
