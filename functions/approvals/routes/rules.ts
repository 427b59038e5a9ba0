import * as z from "zod";
import { allowed, type ProjectWithAccess } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { checkUnmodifiedSince, forbidden, recordNotFound, validation } from "../../kernel/errors";
import { findProject, authorizedProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, readParams, readParamsWithPath } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { projectApprovalRule, ProjectApprovalRule } from "../../entities/approvals";
import * as q from "../queries";

/**
 * Project approval rules (ee/lib/api/project_approval_rules.rb, helpers/project_approval_rules_helpers.rb,
 * ApprovalRules::CreateService / UpdateService). Authentication required; maintainers write, developers
 * (`create_merge_request_in`) and maintainers read.
 */
export const approvalRuleRoutes = router();

/** `authorize_read_project_approval_rule`: `admin_project`, else `create_merge_request_in`. */
export function authorizeReadRules(c: Ctx, project: ProjectWithAccess): void {
  if (allowed(c.var.actor, "admin_project", project)) return;
  if (!allowed(c.var.actor, "create_merge_request_in", project)) throw forbidden();
}

/** ApprovalProjectRule::APPROVALS_REQUIRED_MAX. */
const APPROVALS_REQUIRED_MAX = 100;

const RuleFields = {
  user_ids: p.ids({ comma: true }).optional(),
  group_ids: p.ids({ comma: true }).optional(),
  protected_branch_ids: p.ids({ comma: true }).optional(),
};
const CreateRule = z.object({
  name: p.string(),
  approvals_required: p.int(),
  // Differs from GitLab: an unknown rule type is a 400 here (GitLab's enum raises); report rules are not built.
  rule_type: p.oneOf("regular", "any_approver").optional(),
  ...RuleFields,
});
const UpdateRule = z.object({
  approval_rule_id: p.id(),
  name: p.string(),
  approvals_required: p.int(),
  ...RuleFields,
  remove_hidden_groups: p.bool().optional(),
});
const RuleId = z.object({ approval_rule_id: p.id() });

/** ApprovalProjectRule's validations, with GitLab's messages (`{"message": {...}}`, 400). */
export function validateRule(name: string, approvalsRequired: number): void {
  const errors: Record<string, string[]> = {};
  if (name.trim() === "") errors.name = ["can't be blank"];
  // Differs from GitLab: names are held to 255 characters (the unique index on the name cannot take
  // arbitrarily long keys; GitLab's column is unbounded text).
  else if (name.length > 255) errors.name = ["is too long (maximum is 255 characters)"];
  if (approvalsRequired < 0) errors.approvals_required = ["must be greater than or equal to 0"];
  if (approvalsRequired > APPROVALS_REQUIRED_MAX) errors.approvals_required = [`must be less than or equal to ${APPROVALS_REQUIRED_MAX}`];
  if (Object.keys(errors).length) throw validation(errors);
}

async function findRule(c: Ctx, project: ProjectWithAccess, id: number) {
  const [rule] = await q.listRules(c.var.db(), project.id, id);
  if (!rule) throw recordNotFound();
  return rule;
}

async function detailed(c: Ctx, project: ProjectWithAccess, rule: q.ApprovalProjectRule) {
  const [details] = await q.withDetails(c.var.db(), c.var.actor, project.id, [rule]);
  return details;
}

/** GET /projects/:id/approval_rules (paginated since 15.3) */
approvalRuleRoutes.get("/projects/:id/approval_rules", { params: pageParams, response: [ProjectApprovalRule] }, async (c) => {
  requireUser(c);
  const project = await findProject(c, c.req.param("id"));
  authorizeReadRules(c, project);
  const page = pageOf(await readParams(c, pageParams));
  const rules = await q.listRules(c.var.db(), project.id);
  paginate(c, page, rules.length);
  const onPage = await q.withDetails(c.var.db(), c.var.actor, project.id, rules.slice(page.offset, page.offset + page.limit));
  return present(c, onPage, projectApprovalRule);
});

/** GET /projects/:id/approval_rules/:approval_rule_id */
approvalRuleRoutes.get("/projects/:id/approval_rules/:approval_rule_id", { params: RuleId, response: ProjectApprovalRule }, async (c) => {
  requireUser(c);
  const project = await findProject(c, c.req.param("id"));
  authorizeReadRules(c, project);
  const params = await readParamsWithPath(c, RuleId);
  const rule = await findRule(c, project, params.approval_rule_id);
  return present(c, await detailed(c, project, rule), projectApprovalRule);
});

/** POST /projects/:id/approval_rules (ApprovalRules::CreateService) */
approvalRuleRoutes.post("/projects/:id/approval_rules", { params: CreateRule, response: ProjectApprovalRule }, async (c) => {
  const project = await authorizedProject(c, "admin_project", { signedIn: true });
  const params = await readParams(c, CreateRule);
  validateRule(params.name, params.approvals_required);
  const anyApprover = params.rule_type === "any_approver";
  if (anyApprover && (await q.hasAnyApproverRule(c.var.db(), project.id)))
    throw validation({ rule_type: ["any-approver for the project already exists"] });
  // An any-approver rule has no approvers of its own: anyone eligible counts.
  const refs = await q.eligibleReferences(c.var.db(), c.var.actor!, project.id, {
    userIds: anyApprover ? undefined : params.user_ids,
    groupIds: anyApprover ? undefined : params.group_ids,
    protectedBranchIds: params.protected_branch_ids,
  });
  const rule = await q.insertRule(c.var.db(), project.id, {
    name: params.name,
    approvalsRequired: params.approvals_required,
    ruleType: params.rule_type ?? "regular",
    ...refs,
  });
  if (!rule) throw validation({ name: ["has already been taken"] });
  return present(c, await detailed(c, project, rule), projectApprovalRule, {}, 201);
});

/**
 * PUT /projects/:id/approval_rules/:approval_rule_id (ApprovalRules::UpdateService): the lists that
 * were sent replace the rule's; groups the caller cannot see stay unless `remove_hidden_groups`.
 */
approvalRuleRoutes.put("/projects/:id/approval_rules/:approval_rule_id", { params: UpdateRule, response: ProjectApprovalRule }, async (c) => {
  const project = await authorizedProject(c, "admin_project", { signedIn: true });
  const params = await readParamsWithPath(c, UpdateRule);
  const rule = await findRule(c, project, params.approval_rule_id);
  validateRule(params.name, params.approvals_required);
  const anyApprover = rule.ruleType === "any_approver";
  const refs = await q.eligibleReferences(c.var.db(), c.var.actor!, project.id, {
    userIds: anyApprover ? undefined : params.user_ids,
    groupIds: anyApprover ? undefined : params.group_ids,
    protectedBranchIds: params.protected_branch_ids,
  });
  const keepGroupIds = params.remove_hidden_groups ? [] : (await detailed(c, project, rule)).hiddenGroupIds;
  const updated = await q.updateRule(c.var.db(), rule.id, { name: params.name, approvalsRequired: params.approvals_required, ...refs, keepGroupIds });
  if (!updated) throw validation({ name: ["has already been taken"] });
  return present(c, await detailed(c, project, updated), projectApprovalRule);
});

/** DELETE /projects/:id/approval_rules/:approval_rule_id (`destroy_conditionally!`) */
approvalRuleRoutes.delete("/projects/:id/approval_rules/:approval_rule_id", { params: RuleId }, async (c) => {
  const project = await authorizedProject(c, "admin_project", { signedIn: true });
  const params = await readParamsWithPath(c, RuleId);
  const rule = await findRule(c, project, params.approval_rule_id);
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), rule.updatedAt);
  if (!(await q.deleteRule(c.var.db(), rule.id))) throw recordNotFound();
  return c.body(null, 204);
});
