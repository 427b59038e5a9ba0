import * as z from "zod";
import { allowed, type ProjectWithAccess } from "../kernel/abilities";
import { Access } from "../kernel/access";
import type { Ctx } from "../kernel/env";
import { apiError, checkUnmodifiedSince, forbidden, notFound, recordNotFound, unauthorized } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { readRef } from "../shared/git";
import { findMergeRequest } from "../shared/issuables/find";
import { loadMergeRequestRows } from "../shared/issuables/merge_request_preload";
import { canUpdateMergeRequest, type MergeRequestWithAssignees } from "../shared/issuables/policy";
import { blockedReason } from "../shared/webhooks/url_guard";
import { externalStatusCheck, ExternalStatusCheckEntity, statusCheck, StatusCheck, statusCheckResponse, StatusCheckResponseEntity } from "../entities/external_status_checks";
import * as q from "./queries";

/**
 * External status checks (ee/lib/api/status_checks.rb, GitLab 15.4): a project's checks
 * (`/projects/:id/external_status_checks`, Maintainers), the checks of a merge request with their
 * status (`GET …/merge_requests/:iid/status_checks`) and the services' answers
 * (`POST …/merge_requests/:iid/status_check_responses`). Every endpoint needs a signed-in user.
 * The project's checks also answer at the spec's name, `/projects/:id/external_approval_rules`
 * (GitLab 13.10's ee/lib/api/external_approval_rules.rb), as the same endpoints over the same rows.
 * The services are told about merge request changes by the webhook queue (shared/webhooks:
 * `status_check` deliveries of each merge request event).
 * Differs from GitLab: the Ultimate license is not checked (every instance has the feature).
 */
export const externalStatusChecksRoutes = router();

const CheckFields = {
  name: p.string(),
  external_url: p.string(),
  protected_branch_ids: p.ids({ comma: true }).optional(),
};
const CreateCheck = z.object(CheckFields);
const UpdateFields = {
  name: CheckFields.name.optional(),
  external_url: CheckFields.external_url.optional(),
  protected_branch_ids: CheckFields.protected_branch_ids,
};
const Iid = z.object({ merge_request_iid: p.int() });
const Respond = Iid.extend({
  external_status_check_id: p.int(),
  sha: p.string(),
  status: p.oneOf("passed", "failed"),
});

/** The services' refusal of a caller without `admin_project` (`{"message": ["Not allowed"]}`, 401). */
const notAllowed = () => apiError(["Not allowed"], 401);

async function findCheck(c: Ctx, project: ProjectWithAccess, id: number) {
  const check = await q.findCheck(c.var.db(), project.id, id);
  if (!check) throw recordNotFound();
  return check;
}

async function withBranches(c: Ctx, project: ProjectWithAccess, check: q.ExternalStatusCheck) {
  const [out] = await q.withBranches(c.var.db(), project.id, [check]);
  return out;
}

/**
 * The model's validations with its messages (`rule.errors.full_messages`, 422): name and URL present,
 * the URL addressable (http or https; local addresses are refused at delivery, not here, as
 * AddressableUrlValidator allows them), the protected branches the project's own. An unknown
 * protected branch id is ActiveRecord::RecordNotFound (404).
 */
async function validate(c: Ctx, project: ProjectWithAccess, input: q.CheckWrite): Promise<void> {
  const errors: string[] = [];
  if (input.name !== undefined && input.name.trim() === "") errors.push("Name can't be blank");
  if (input.externalUrl !== undefined) {
    if (input.externalUrl.trim() === "") errors.push("External url can't be blank");
    else {
      const blocked = blockedReason(input.externalUrl, { allowLocal: true });
      if (blocked) errors.push(`External url is blocked: ${blocked}`);
    }
  }
  if (input.protectedBranchIds?.length) {
    const owners = await q.protectedBranchProjects(c.var.db(), input.protectedBranchIds);
    if (input.protectedBranchIds.some((id) => !owners.has(id))) throw recordNotFound();
    if ([...owners.values()].some((projectId) => projectId !== project.id)) errors.push("all protected branches must exist within the project");
  }
  if (errors.length) throw apiError(errors, 422);
}

function takenError(taken: q.Taken) {
  return apiError([taken === "name" ? "Name has already been taken" : "External url has already been taken"], 422);
}

/**
 * The project's checks under both of their names (R6 of the compatibility rules, as integrations are
 * under `/integrations` and `/services`): GitLab 14+'s `external_status_checks/:check_id` and the
 * spec's `external_approval_rules/:rule_id`. Deliberate difference from GitLab 13.10, whose
 * `external_approval_rules` updated with PATCH and answered DELETE with 202: the spec's PUT is served,
 * and both names answer as `status_checks.rb` does.
 */
const CHECK_PATHS = [
  { prefix: "external_status_checks", id: "check_id" },
  { prefix: "external_approval_rules", id: "rule_id" },
] as const;

for (const { prefix, id } of CHECK_PATHS) {
  const base = `/projects/:id/${prefix}`;
  const item = `${base}/:${id}`;
  const ItemId = z.object({ [id]: p.int() }) as z.ZodObject<Record<typeof id, ReturnType<typeof p.int>>>;
  const Update = ItemId.extend(UpdateFields);

  /** GET …/external_status_checks: Maintainers (`admin_project`), else 401; paginated. */
  externalStatusChecksRoutes.get(base, { params: pageParams, response: [ExternalStatusCheckEntity] }, async (c) => {
    const project = await authorizedProject(c, null, { signedIn: true });
    const page = pageOf(await readParams(c, pageParams));
    if (!allowed(c.var.actor, "admin_project", project)) throw unauthorized();
    const list = await q.listChecks(c.var.db(), project.id, page);
    paginate(c, page, list.total);
    return present(c, await q.withBranches(c.var.db(), project.id, list.rows), externalStatusCheck);
  });

  /** POST …/external_status_checks (ExternalStatusChecks::CreateService): 201. */
  externalStatusChecksRoutes.post(base, { params: CreateCheck, response: ExternalStatusCheckEntity, errors: [422] }, async (c) => {
    const project = await authorizedProject(c, null, { signedIn: true });
    const params = await readParams(c, CreateCheck);
    if (!allowed(c.var.actor, "admin_project", project)) throw notAllowed();
    const input = { name: params.name, externalUrl: params.external_url, protectedBranchIds: params.protected_branch_ids };
    await validate(c, project, input);
    const created = await q.insertCheck(c.var.db(), project.id, input);
    if (typeof created === "string") throw takenError(created);
    return present(c, await withBranches(c, project, created), externalStatusCheck, {}, 201);
  });

  /** PUT …/external_status_checks/:check_id (ExternalStatusChecks::UpdateService): what was sent changes. */
  externalStatusChecksRoutes.put(item, { params: Update, response: ExternalStatusCheckEntity, errors: [422] }, async (c) => {
    const project = await authorizedProject(c, null, { signedIn: true });
    const params = await readParamsWithPath(c, Update);
    if (!allowed(c.var.actor, "admin_project", project)) throw notAllowed();
    const check = await findCheck(c, project, params[id]);
    const input = { name: params.name, externalUrl: params.external_url, protectedBranchIds: params.protected_branch_ids };
    await validate(c, project, input);
    const updated = await q.updateCheck(c.var.db(), check, input);
    if (typeof updated === "string") throw takenError(updated);
    return present(c, await withBranches(c, project, updated), externalStatusCheck);
  });

  /**
   * DELETE …/external_status_checks/:check_id: 204.
   * Deliberate difference from GitLab: a caller without `admin_project` gets the services' 401
   * `{"message": ["Not allowed"]}`; GitLab 15.4's `destroy_conditionally!` ignores the service's refusal
   * and answers 204 without deleting anything.
   */
  externalStatusChecksRoutes.delete(item, { params: ItemId }, async (c) => {
    const project = await authorizedProject(c, null, { signedIn: true });
    const params = await readParamsWithPath(c, ItemId);
    const check = await findCheck(c, project, params[id]);
    checkUnmodifiedSince(c.req.header("if-unmodified-since"), check.updatedAt);
    if (!allowed(c.var.actor, "admin_project", project)) throw notAllowed();
    await q.deleteCheck(c.var.db(), check.id);
    return c.body(null, 204);
  });
}

// ----- merge requests

/**
 * MergeRequestPolicy `approve_merge_request` (15.4): a member of the project who may update the merge
 * request; else 403 (`find_merge_request_with_access`).
 */
async function findApprovable(c: Ctx, project: ProjectWithAccess, iid: number): Promise<MergeRequestWithAssignees> {
  const mr = await findMergeRequest(c, project, String(iid));
  if (!(project.accessLevel >= Access.GUEST || c.var.actor?.isAdmin) || !canUpdateMergeRequest(c.var.actor, project, mr)) throw forbidden();
  return mr;
}

/** `diff_head_sha`: the source branch's head, or the stored sha when the branch is gone. */
async function sourceHead(c: Ctx, mr: MergeRequestWithAssignees): Promise<string | null> {
  const ref = await readRef(c.var.db(), mr.sourceProjectId, `refs/heads/${mr.sourceBranch}`);
  return ref?.target.trim() ?? mr.sha;
}

/**
 * GET /projects/:id/merge_requests/:merge_request_iid/status_checks: the checks that apply to the
 * target branch, each with its status at the source branch's head (paginated).
 */
const ListStatusChecks = Iid.extend(pageParams.shape);
externalStatusChecksRoutes.get("/projects/:id/merge_requests/:merge_request_iid/status_checks", { params: ListStatusChecks, response: [StatusCheck] }, async (c) => {
  const project = await authorizedProject(c, null, { signedIn: true });
  const params = await readParamsWithPath(c, ListStatusChecks);
  const mr = await findApprovable(c, project, params.merge_request_iid);
  const page = pageOf(params);
  const db = c.var.db();
  const list = await q.listApplicable(db, project.id, mr.targetBranch, page);
  paginate(c, page, list.total);
  const responses = await q.latestResponses(db, mr.id, await sourceHead(c, mr), list.rows.map((r) => r.id));
  const rows = list.rows.map((check) => ({ ...check, status: responses.get(check.id)?.status ?? "pending" }));
  return present(c, rows, statusCheck);
});

/**
 * POST /projects/:id/merge_requests/:merge_request_iid/status_check_responses: a service's answer for
 * the source branch's head. Who may not approve the merge request is 403, an unknown check 404, a `sha`
 * other than the head 409, and who is not a Developer (`provide_status_check_response`) 404; 201.
 */
externalStatusChecksRoutes.post("/projects/:id/merge_requests/:merge_request_iid/status_check_responses", { params: Respond, response: StatusCheckResponseEntity, errors: [409] }, async (c) => {
  const project = await authorizedProject(c, null, { signedIn: true });
  const params = await readParamsWithPath(c, Respond);
  const mr = await findApprovable(c, project, params.merge_request_iid);
  const check = await findCheck(c, project, params.external_status_check_id);
  const head = await sourceHead(c, mr);
  if (params.sha !== head) throw apiError(`SHA does not match HEAD of source branch: ${head}`, 409);
  if (!(c.var.actor!.isAdmin || project.accessLevel >= Access.DEVELOPER)) throw notFound();
  const db = c.var.db();
  const response = await q.insertResponse(db, { mergeRequestId: mr.id, externalStatusCheckId: check.id, sha: params.sha, status: params.status });
  const [row] = await loadMergeRequestRows(db, [mr.id], c.var.actor);
  const withCheck = await withBranches(c, project, check);
  return present(c, { ...response, mergeRequest: row, check: withCheck }, statusCheckResponse, { fromProject: { id: project.id, namespaceId: project.namespaceId } }, 201);
});
