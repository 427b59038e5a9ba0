import * as z from "zod";
import { requireUser } from "../../kernel/auth";
import { validation } from "../../kernel/errors";
import { findProject, authorizedProject } from "../../kernel/lookup";
import { p, readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { approvalSettings, ApprovalSettingsEntity } from "../../entities/approvals";
import * as q from "../queries";
import { authorizeReadRules } from "./rules";

/**
 * The project's approval configuration (ee/lib/api/project_approvals.rb). Authentication required.
 * Differs from GitLab: GitLab authorizes both endpoints with `update_approvers`; here reading takes
 * the approval rules' read rule (developers and up) and changing takes `admin_project` (maintainers).
 */
export const approvalSettingsRoutes = router();

const FIELDS = [
  "approvals_before_merge",
  "reset_approvals_on_push",
  "disable_overriding_approvers_per_merge_request",
  "merge_requests_author_approval",
  "merge_requests_disable_committers_approval",
  "require_password_to_approve",
];

const ChangeSettings = z.object({
  approvals_before_merge: p.int().optional(),
  reset_approvals_on_push: p.bool().optional(),
  disable_overriding_approvers_per_merge_request: p.bool().optional(),
  merge_requests_author_approval: p.bool().optional(),
  merge_requests_disable_committers_approval: p.bool().optional(),
  require_password_to_approve: p.bool().optional(),
});

/** GET /projects/:id/approvals */
approvalSettingsRoutes.get("/projects/:id/approvals", { response: ApprovalSettingsEntity }, async (c) => {
  requireUser(c);
  const project = await findProject(c, c.req.param("id"));
  authorizeReadRules(c, project);
  return present(c, await q.getSettings(c.var.db(), project.id), approvalSettings);
});

/** POST /projects/:id/approvals (at least one of the six fields) */
approvalSettingsRoutes.post("/projects/:id/approvals", { params: ChangeSettings, response: ApprovalSettingsEntity }, async (c) => {
  requireUser(c);
  const project = await authorizedProject(c, "admin_project");
  const params = await readParams(c, ChangeSettings, [{ atLeastOneOf: FIELDS }]);
  // Project validation (render_validation_error!): the count cannot be negative.
  if (params.approvals_before_merge !== undefined && params.approvals_before_merge < 0)
    throw validation({ approvals_before_merge: ["must be greater than or equal to 0"] });
  const changes: Partial<q.Settings> = {
    approvalsBeforeMerge: params.approvals_before_merge,
    resetApprovalsOnPush: params.reset_approvals_on_push,
    disableOverridingApproversPerMergeRequest: params.disable_overriding_approvers_per_merge_request,
    mergeRequestsAuthorApproval: params.merge_requests_author_approval,
    mergeRequestsDisableCommittersApproval: params.merge_requests_disable_committers_approval,
    requirePasswordToApprove: params.require_password_to_approve,
  };
  const sentChanges = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<q.Settings>;
  // Grape answers 201 to a POST.
  return present(c, await q.updateSettings(c.var.db(), project.id, sentChanges), approvalSettings, {}, 201);
});
