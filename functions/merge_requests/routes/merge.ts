import * as z from "zod";
import { mirrorsForPush } from "../../shared/remote_mirrors";
import type { ProjectWithAccess } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { apiError, unauthorized } from "../../kernel/errors";
import { findProject } from "../../kernel/lookup";
import { p, readParams, validateParams } from "../../kernel/params";
import { baseUrl, present } from "../../kernel/present";
import { hookEvents } from "../../shared/webhooks";
import { router } from "../../kernel/router";
import { findProjectMergeRequest } from "../../shared/issuables/find";
import { mergeToRef } from "../../shared/git";
import { listProtections } from "../../shared/protected_branches/access";
import { autoMergeCancelResult, mergeRequest, type MergeRequestContext, type MergeRequestRow, MergeRequestEntity } from "../../entities/merge_requests";
import * as mq from "../merge_queries";
import { mergeMergeRequest } from "../merge_service";
import { afterMergeHooks, branchPair, canMergeInto, defaultMergeMessage } from "../merging";
import * as q from "../queries";

/** Merging (lib/api/merge_requests.rb, 15.4): merge, merge_ref, cancel_merge_when_pipeline_succeeds. */
export const mergeRoutes = router();

/** `requires :merge_request_iid, type: Integer`. */
export function iidParam(c: Ctx): string {
  const iid = c.req.param("merge_request_iid")!;
  validateParams({ merge_request_iid: iid }, z.object({ merge_request_iid: p.int() }));
  return iid;
}

async function presentMergeRequest(c: Ctx, project: ProjectWithAccess, id: number, status: 200 | 201 = 200) {
  const row = await q.mergeRequestById(c.var.db(), c.var.actor, id);
  return present<MergeRequestRow, Partial<MergeRequestContext>>(c, row, mergeRequest, { fromProject: { id: project.id, namespaceId: project.namespaceId } }, status);
}

const notAllowed = () => apiError("405 Method Not Allowed", 405);
const cannotBeMerged = () => apiError("Branch cannot be merged", 406);

const MergeParams = z.object({
  merge_commit_message: p.string().optional().describe("Custom merge commit message"),
  squash_commit_message: p.string().optional().describe("Custom squash commit message"),
  should_remove_source_branch: p.bool().optional().describe("When true, the source branch will be deleted if possible"),
  merge_when_pipeline_succeeds: p.bool().optional().describe("When true, this merge request will be merged when the pipeline succeeds"),
  sha: p.string().optional().describe("When present, must have the HEAD SHA of the source branch"),
  squash: p.bool().optional().describe("When true, the commits will be squashed into a single commit on merge"),
});

/**
 * PUT /projects/:id/merge_requests/:merge_request_iid/merge (lib/api/merge_requests.rb): 401 unless the
 * caller may push or merge into the target branch, 405 unless `mergeable_state?` (open, not a draft,
 * not broken, the pipeline when the project requires it), 406 "Branch cannot be merged" unless
 * `mergeable?` (EE: the approval rules met; no conflict; a fast-forward possible for `ff` and
 * `rebase_merge`), 409 on a `sha` that is not the source head.
 * Differs from GitLab: conflicts are checked at the time of the request, so they answer 406 (GitLab
 * answers 405 once its background check has marked the merge request `cannot_be_merged`).
 * `merge_when_pipeline_succeeds` with a running head pipeline records the request; the pipeline's
 * coordinator merges it when that pipeline succeeds (merge_requests/auto_merge.ts). With a head pipeline
 * that already succeeded it merges at once; with none, or a failed one, it answers 405, as 15.4's
 * `automatically_mergeable?` / `immediately_mergeable?` do (no fallback to an immediate merge: that
 * came with later auto-merge strategies). A head pipeline may be an external one, made by
 * `POST /projects/:id/statuses/:sha` (commit_statuses/). The checks and the merge are the merge
 * service's (merge_service.ts), which auto-merge runs too.
 */
mergeRoutes.put("/projects/:id/merge_requests/:merge_request_iid/merge", { params: MergeParams, response: MergeRequestEntity, errors: [405, 406, 409] }, async (c) => {
  const iid = iidParam(c);
  const params = await readParams(c, MergeParams);
  const project = await findProject(c, c.req.param("id"));
  const db = c.var.db();
  const found = await findProjectMergeRequest(c, project, iid);
  const actor = requireUser(c);
  const outcome = await mergeMergeRequest(db, { project, actor }, found, {
    sha: params.sha,
    squash: params.squash,
    mergeCommitMessage: params.merge_commit_message,
    squashCommitMessage: params.squash_commit_message,
    shouldRemoveSourceBranch: params.should_remove_source_branch,
    whenPipelineSucceeds: params.merge_when_pipeline_succeeds,
  });
  switch (outcome.kind) {
    case "merged":
      await hookEvents(c.env, baseUrl(c), afterMergeHooks(found, project.id, actor.user.id, outcome.closedIssues));
      // Push mirrors follow every ref change (shared/remote_mirrors).
      c.executionCtx.waitUntil(mirrorsForPush(c.env, project.id));
      break;
    case "waiting":
      break;
    case "unauthorized":
      throw unauthorized();
    case "not_allowed":
      throw notAllowed();
    case "cannot_be_merged":
      throw cannotBeMerged();
    case "sha_mismatch":
      throw apiError(`SHA does not match HEAD of source branch: ${outcome.head}`, 409);
    case "failed":
      if (outcome.failure === "sha_mismatch") throw apiError(`SHA does not match HEAD of source branch: ${outcome.head}`, 409);
      if (outcome.failure === "conflict" || outcome.failure === "needs_rebase") throw cannotBeMerged();
      // A push rule refusal: as GitLab, `merge_error` says it and the merge request is presented, still open (200).
      if (outcome.mergeError) {
        await mq.setMergeError(db, found.id, outcome.mergeError);
        break;
      }
      if (outcome.failure !== "ref_moved") throw notAllowed();
      // Differs from GitLab: its merge fails into `merge_error` and answers 200; the target kept
      // moving under us, so we say so the same way.
      await mq.setMergeError(db, found.id, "Something went wrong during merge: the target branch was updated meanwhile");
  }
  return presentMergeRequest(c, project, found.id);
});

/**
 * POST /projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds
 * (lib/api/merge_requests.rb 15.4): 401 unless the caller may merge or asked for the automatic merge
 * (`can_cancel_auto_merge?`), then AutoMergeService#cancel's own result with Grape's POST status 201:
 * `{"status":"success"}`, or, when no automatic merge is set (a merged or closed merge request has
 * none), `{"status":"error","message":"Can't cancel the automatic merge","http_status":406}`, still 201.
 * python-gitlab's `cancel_merge_when_pipeline_succeeds()` returns that body.
 */
mergeRoutes.post("/projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds", async (c) => {
  const iid = iidParam(c);
  const project = await findProject(c, c.req.param("id"));
  const mr = await findProjectMergeRequest(c, project, iid);
  const actor = requireUser(c);
  const protections = await listProtections(c.var.db(), project.id);
  if (!canMergeInto(actor, project, protections, mr.targetBranch) && mr.mergeUserId !== actor.user.id) throw unauthorized();
  if (!mr.mergeWhenPipelineSucceeds) return c.json(autoMergeCancelResult(false), 201);
  await mq.cancelAutoMerge(c.var.db(), mr.id);
  return c.json(autoMergeCancelResult(true), 201);
});

/**
 * GET /projects/:id/merge_requests/:merge_request_iid/merge_ref (lib/api/merge_requests.rb): the merge
 * of the source into the target written to `refs/merge-requests/<iid>/merge` (MergeToRefService, as the
 * mergeability check does), authored by the merge request's author; 400 when it cannot be merged.
 */
mergeRoutes.get("/projects/:id/merge_requests/:merge_request_iid/merge_ref", async (c) => {
  const iid = iidParam(c);
  const project = await findProject(c, c.req.param("id"));
  const db = c.var.db();
  const mr = await findProjectMergeRequest(c, project, iid);
  const mergeable = mr.state === "opened" && !project.emptyRepo;
  const context = await mq.mergeContext(db, mr, { author: mergeable, closingIssues: mergeable });
  const sha = mergeable
    ? await mergeToRef(db, branchPair(project, mr), {
        sourceBranch: mr.sourceBranch,
        targetBranch: mr.targetBranch,
        ref: `refs/merge-requests/${mr.iid}/merge`,
        message: defaultMergeMessage(project, mr, context.closingIssues),
        user: context.author ?? { name: "Ghost User", email: "ghost@example.com" },
        userId: mr.authorId,
      })
    : null;
  if (!sha) throw apiError("Merge request is not mergeable", 400);
  return c.json({ commit_id: sha });
});
