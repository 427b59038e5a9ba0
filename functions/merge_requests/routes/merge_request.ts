import * as z from "zod";
import { allowed, authorize } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { checkUnmodifiedSince, forbidden, notFound, recordNotFound } from "../../kernel/errors";
import { canReadMergeRequest, canUpdateMergeRequest } from "../../shared/issuables/policy";
import { findMergeRequest, findProjectMergeRequest } from "../../shared/issuables/find";
import { findProject, loadProject } from "../../kernel/lookup";
import { p, pathRowId, readParams, validateParams } from "../../kernel/params";
import { baseUrl, present } from "../../kernel/present";
import { hookAttrsBefore, hookEvent, updateAction } from "../../shared/webhooks";
import { router } from "../../kernel/router";
import { mergeRequest, type MergeRequestContext, type MergeRequestPipelineRow, type MergeRequestRow, MergeRequestEntity } from "../../entities/merge_requests";
import { headPipelineRow } from "../pipeline_queries";
import * as q from "../queries";
import * as services from "../services";
import { divergedCommitsCount, refreshMergeRequest } from "../merging";
import { isApproved } from "../../shared/approvals/state";
import { renderMarkdown } from "../../shared/markdown/render";

export const mergeRequestRoutes = router();

/**
 * `optional_params` of lib/api/merge_requests.rb (15.4), in Grape's order.
 * (with EE's `approvals_before_merge`, see services.ts#approvalsBeforeMerge). `allow_maintainer_to_push`
 * is `allow_collaboration` under its old name (`as: :allow_collaboration`, declared after it, so it
 * wins when both come); services.ts#allowCollaboration decides whether it is kept.
 */
const optional = {
  assignee_id: p.int().optional().describe("The ID of a user to assign the merge request"),
  assignee_ids: p.ints({ comma: true }).optional().describe("Comma-separated list of assignee ids"),
  reviewer_ids: p.ints({ comma: true }).optional().describe("Comma-separated list of reviewer ids"),
  description: p.string().optional().describe("The description of the merge request"),
  labels: p.strings({ comma: true }).optional().describe("Comma-separated list of label names"),
  add_labels: p.strings({ comma: true }).optional().describe("Comma-separated list of label names"),
  remove_labels: p.strings({ comma: true }).optional().describe("Comma-separated list of label names"),
  milestone_id: p.int().optional().describe("The ID of a milestone to assign the merge request"),
  remove_source_branch: p.bool().optional().describe("Remove source branch when merging"),
  allow_collaboration: p.bool().optional().describe("Allow commits from members who can merge to the target branch"),
  allow_maintainer_to_push: p.bool().optional().describe("[deprecated] See allow_collaboration"),
  squash: p.bool().optional().describe("When true, the commits will be squashed into a single commit on merge"),
  approvals_before_merge: p.int().optional().describe("Number of approvals required before this can be merged"),
};

const CreateParams = z.object({
  title: p.string().describe("The title of the merge request"),
  source_branch: p.string().describe("The source branch"),
  target_branch: p.string().describe("The target branch"),
  target_project_id: p.int().optional().describe("The target project of the merge request defaults to the :id of the project"),
  ...optional,
});

const UPDATE_AT_LEAST_ONE = [
  "assignee_id",
  "assignee_ids",
  "reviewer_ids",
  "description",
  "labels",
  "add_labels",
  "remove_labels",
  "milestone_id",
  "remove_source_branch",
  "allow_collaboration",
  "allow_maintainer_to_push",
  "squash",
  "target_branch",
  "title",
  "state_event",
  "discussion_locked",
  // Not `approvals_before_merge`: 15.4's EE parameters do not add it here, so it never comes alone.
];

const UpdateParams = z.object({
  title: p.nonBlank().optional().describe("The title of the merge request"),
  target_branch: p.nonBlank().optional().describe("The target branch"),
  state_event: p.oneOf("close", "reopen").optional().describe("Status of the merge request"),
  discussion_locked: p.bool().optional().describe("Whether the MR discussion is locked"),
  ...optional,
});

const GetParams = z.object({
  render_html: p.bool().optional().describe("Returns the description and title rendered HTML"),
  include_diverged_commits_count: p.bool().optional().describe("Returns the commits count behind the target branch"),
  include_rebase_in_progress: p.bool().optional().describe("Returns whether a rebase operation is ongoing"),
});

/** `requires :merge_request_iid, type: Integer`: `merge_request_iid is invalid` before any lookup. */
function iidParam(c: Ctx): string {
  const iid = c.req.param("merge_request_iid")!;
  validateParams({ merge_request_iid: iid }, z.object({ merge_request_iid: p.int() }));
  return iid;
}

/** `convert_parameters_from_legacy_format`: a present `assignee_id` replaces `assignee_ids`. */
function assigneeIds(params: { assignee_id?: number; assignee_ids?: number[] }): number[] | undefined {
  return params.assignee_id !== undefined ? [params.assignee_id] : params.assignee_ids;
}

function fromProject(project: { id: number; namespaceId: number }): Partial<MergeRequestContext> {
  return { fromProject: { id: project.id, namespaceId: project.namespaceId } };
}

async function presentOne(c: Ctx, row: MergeRequestRow, project: { id: number; namespaceId: number }, status: 200 | 201 = 200) {
  return present<MergeRequestRow, Partial<MergeRequestContext>>(c, row, mergeRequest, fromProject(project), status);
}

/**
 * POST /projects/:id/merge_requests (lib/api/merge_requests.rb, MergeRequests::CreateService): called
 * on the SOURCE project; `target_project_id` names the project the merge request goes to (the source
 * itself by default, else a project of its fork network: a fork to its source, or between forks). The
 * merge request lives in the target (its iid, its lists, its labels and milestones).
 * As in GitLab, branches are validated by name only: neither needs to exist yet (MergeRequest has no
 * existence validation; the merge request shows `cannot_be_merged` until both do).
 * Differs from GitLab: a project linked into a network with `POST /projects/:id/fork/:forked_from_id`
 * keeps its own object pool (see functions/projects/), and merge requests between projects of
 * different pools answer the 422 of a project outside the network (GitLab fetches the source branch
 * into the target's repository).
 */
mergeRequestRoutes.post("/projects/:id/merge_requests", { params: CreateParams, response: MergeRequestEntity, errors: [409, 422] }, async (c) => {
  const params = await readParams(c, CreateParams);
  const source = await findProject(c, c.req.param("id"));
  authorize(c, "create_merge_request_from", source);
  // CreateService#set_projects!: `Project.find(target_project_id)` (a missing one is ActiveRecord's
  // 404), then `create_merge_request_from` on the source and `create_merge_request_in` on the target,
  // so a target the caller cannot read is 403, not 404.
  let project = source;
  if (params.target_project_id !== undefined && params.target_project_id !== source.id) {
    const target = await loadProject(c, String(params.target_project_id));
    if (!target) throw recordNotFound();
    if (!allowed(c.var.actor, "create_merge_request_in", target)) throw forbidden();
    project = target;
  }
  const actor = requireUser(c);
  const approvals = await services.approvalsBeforeMerge(c.var.db(), project.id, params.approvals_before_merge, false);
  const collaboration = await services.allowCollaboration(c.var.db(), actor, project, source, params.source_branch, params.allow_maintainer_to_push ?? params.allow_collaboration);
  const id = await services.createMergeRequest(c.var.db(), { project, actor, baseUrl: baseUrl(c) }, {
    sourceProjectId: source.id,
    title: params.title,
    description: params.description ?? null,
    sourceBranch: params.source_branch,
    targetBranch: params.target_branch,
    assigneeIds: assigneeIds(params),
    reviewerIds: params.reviewer_ids,
    milestoneId: params.milestone_id,
    labels: params.labels,
    forceRemoveSourceBranch: params.remove_source_branch ?? null,
    squash: params.squash,
    approvalsBeforeMerge: approvals,
    allowCollaboration: collaboration,
  });
  await hookEvent(c.env, baseUrl(c), { kind: "merge_request", projectId: project.id, id, action: "open", userId: actor.user.id });
  // GitLab 15.4 writes the first diff version in the model's `after_create :ensure_merge_request_diff`,
  // so the answer has `sha`, `diff_refs` and `changes_count` (python-gitlab's users read `mr.sha` off
  // it). Ours comes with the mergeability check the first read would run anyway.
  // Differs from GitLab: `merge_status` is then the check's outcome (`can_be_merged` or
  // `cannot_be_merged`); GitLab answers `checking` while its worker prepares the merge request.
  const created = await q.mergeRequestById(c.var.db(), c.var.actor, id);
  const row = (await refreshMergeRequest(c.var.db(), project, created)) === created ? created : await q.mergeRequestById(c.var.db(), c.var.actor, id);
  // `present merge_request, project: user_project`: references are relative to the source project.
  return presentOne(c, row, source, 201);
});

/** GET /projects/:id/merge_requests/:merge_request_iid (lib/api/merge_requests.rb) */
mergeRequestRoutes.get("/projects/:id/merge_requests/:merge_request_iid", { params: GetParams, response: MergeRequestEntity }, async (c) => {
  const params = await readParams(c, GetParams);
  const iid = iidParam(c);
  const project = await findProject(c, c.req.param("id"));
  // findMergeRequest's rule (`find_merge_request_with_access`: the row, then read_merge_request on it,
  // 403 for a merge request the caller may not read) without its extra statement.
  if (pathRowId(iid) === null) throw notFound("Merge Request");
  let row = await q.mergeRequestByIid(c.var.db(), c.var.actor, project.id, Number(iid));
  if (!row) throw notFound("Merge Request");
  if (!canReadMergeRequest(c.var.actor, project, { authorId: row.authorId, assigneeIds: row.assignees.map((a) => a.id) })) throw forbidden();
  // GitLab's entity starts an asynchronous mergeability check; ours runs when a head moved.
  if ((await refreshMergeRequest(c.var.db(), project, row)) !== row) row = await q.mergeRequestById(c.var.db(), c.var.actor, row.id);
  const headPipeline = project.jobsEnabled ? await headPipelineRow(c.var.db(), row!) : null;
  // The approval state matters only once nothing earlier blocks (`detailed_merge_status` order).
  const approved =
    row!.state === "opened" && !row!.draft && row!.mergeStatus === "can_be_merged"
      ? await isApproved(c.var.db(), c.var.actor, project, row!)
      : undefined;
  // `include_diverged_commits_count`: computed only when asked for, as the entity's `if:` does.
  const divergedCommits = params.include_diverged_commits_count ? await divergedCommitsCount(c.var.db(), project, row!) : undefined;
  // `render_html`: MarkupHelper.markdown_field of the title (single-line pipeline) and the description.
  const renderedHtml = params.render_html
    ? {
        title: (await renderMarkdown(c, row!.title, { project, singleLine: true })),
        description: row!.description === null ? null : await renderMarkdown(c, row!.description, { project }),
      }
    : undefined;
  return present<MergeRequestRow & { headPipeline: MergeRequestPipelineRow | null; approved?: boolean; divergedCommits?: number }, Partial<MergeRequestContext>>(c, { ...row!, headPipeline, approved, divergedCommits }, mergeRequest, {
    ...fromProject(project),
    renderHtml: params.render_html,
    renderedHtml,
    includeRebaseInProgress: params.include_rebase_in_progress,
  });
});

/** PUT /projects/:id/merge_requests/:merge_request_iid (lib/api/merge_requests.rb), with `state_event` close/reopen. */
mergeRequestRoutes.put("/projects/:id/merge_requests/:merge_request_iid", { params: UpdateParams, response: MergeRequestEntity, errors: [409, 422] }, async (c) => {
  const iid = iidParam(c);
  const params = await readParams(c, UpdateParams, [{ atLeastOneOf: UPDATE_AT_LEAST_ONE }]);
  const project = await findProject(c, c.req.param("id"));
  const mr = await findMergeRequest(c, project, iid);
  if (!canUpdateMergeRequest(c.var.actor, project, mr)) throw forbidden();
  const actor = requireUser(c);
  const approvals = await services.approvalsBeforeMerge(c.var.db(), project.id, params.approvals_before_merge, mr.state === "merged");
  const requested = params.allow_maintainer_to_push ?? params.allow_collaboration;
  const source = requested === undefined || mr.sourceProjectId === project.id ? null : await loadProject(c, String(mr.sourceProjectId));
  const collaboration = await services.allowCollaboration(c.var.db(), actor, project, source, mr.sourceBranch, requested);
  await services.updateMergeRequest(c.var.db(), { project, actor, baseUrl: baseUrl(c) }, mr, {
    title: params.title,
    description: params.description,
    targetBranch: params.target_branch,
    stateEvent: params.state_event,
    assigneeIds: assigneeIds(params),
    reviewerIds: params.reviewer_ids,
    milestoneId: params.milestone_id,
    labels: params.labels,
    addLabels: params.add_labels,
    removeLabels: params.remove_labels,
    forceRemoveSourceBranch: params.remove_source_branch,
    squash: params.squash,
    discussionLocked: params.discussion_locked,
    approvalsBeforeMerge: approvals,
    allowCollaboration: collaboration,
  });
  const updated = await q.mergeRequestById(c.var.db(), c.var.actor, mr.id);
  await hookEvent(c.env, baseUrl(c), {
    kind: "merge_request",
    projectId: project.id,
    id: mr.id,
    action: updateAction(mr.state, updated?.state ?? mr.state),
    userId: actor.user.id,
    before: hookAttrsBefore(mr),
  });
  return presentOne(c, updated, project);
});

/** DELETE /projects/:id/merge_requests/:merge_request_iid (lib/api/merge_requests.rb): owners and admins, 204. */
mergeRequestRoutes.delete("/projects/:id/merge_requests/:merge_request_iid", async (c) => {
  const iid = iidParam(c);
  const project = await findProject(c, c.req.param("id"));
  // `find_project_merge_request`, then `authorize!(:destroy_merge_request, merge_request)`.
  const mr = await findProjectMergeRequest(c, project, iid);
  authorize(c, "destroy_merge_request", project);
  checkUnmodifiedSince(c.req.header("If-Unmodified-Since"), mr.updatedAt);
  await services.deleteMergeRequest(c.var.db(), mr.id);
  return c.body(null, 204);
});
