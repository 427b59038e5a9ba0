import { canCollaborate } from "../../shared/protected_branches/collaboration";
import * as z from "zod";
import { Access } from "../../kernel/access";
import { requireUser } from "../../kernel/auth";
import { conflict, forbidden } from "../../kernel/errors";
import { findProject, projectWithAccess } from "../../kernel/lookup";
import { p, readParams } from "../../kernel/params";
import { baseUrl } from "../../kernel/present";
import { router } from "../../kernel/router";
import { pipelinesForPush } from "../../shared/ci/coordinator";
import { rebaseBranch } from "../../shared/git";
import { findProjectMergeRequest } from "../../shared/issuables/find";
import { branchAccess, callerOf, listProtections } from "../../shared/protected_branches/access";
import { rebaseAccepted, RebaseInProgress } from "../../entities/merge_requests";
import * as mq from "../merge_queries";
import { branchPair } from "../merging";
import { iidParam } from "./merge";

/** Rebasing a merge request's source branch (lib/api/merge_requests.rb, MergeRequests::RebaseService). */
export const rebaseRoutes = router();

/** MergeRequests::RebaseService::REBASE_ERROR as 15.x words it. */
export const REBASE_ERROR = "Rebase failed: Rebase locally, resolve all conflicts, then push the branch.";

const RebaseParams = z.object({ skip_ci: p.bool().optional() });

/**
 * PUT /projects/:id/merge_requests/:merge_request_iid/rebase (lib/api/merge_requests.rb):
 * `authorize_push_to_merge_request!` (403 `Source branch does not exist`, 403 `Cannot push to source
 * branch`), then the rebase, answered 202 `{"rebase_in_progress": …}`. A conflict (or a target that is
 * gone) leaves the branch alone and sets `merge_error`, which the single GET shows.
 * Differs from GitLab: the rebase runs during the request (GitLab queues RebaseWorker), so the answer
 * says `rebase_in_progress: false` and the outcome is already visible; the push check comes before the
 * source branch's existence (GitLab checks the branch first).
 * For a merge request from a fork the push rights are the fork's (`Gitlab::UserAccess` on the source
 * project, `can_collaborate?`: `push_code` there or a merge request allowing the caller's
 * collaboration), and the rebased branch is the fork's.
 */
rebaseRoutes.put("/projects/:id/merge_requests/:merge_request_iid/rebase", { params: RebaseParams, response: RebaseInProgress, errors: [409], status: 202 }, async (c) => {
  // `authenticate_non_get!` comes before everything.
  const actor = requireUser(c);
  const iid = iidParam(c);
  const params = await readParams(c, RebaseParams);
  const project = await findProject(c, c.req.param("id"));
  const mr = await findProjectMergeRequest(c, project, iid);
  const db = c.var.db();
  const source = mr.sourceProjectId === project.id ? project : await projectWithAccess(db, actor.user.id, { id: mr.sourceProjectId });
  // A fork that is gone has no source branch (`source_branch_exists?` needs the source project).
  if (!source) throw forbidden("Source branch does not exist");
  // Gitlab::UserAccess#can_push_to_branch?: `push_code` (developers, not archived) or collaboration,
  // then the branch's protection.
  const canPushCode = await canCollaborate(db, actor, source, mr.sourceBranch);
  const protections = canPushCode ? await listProtections(db, source.id) : [];
  const access = branchAccess(protections, mr.sourceBranch, callerOf(actor, source), { emptyRepo: source.emptyRepo, defaultBranch: source.defaultBranch });
  if (!canPushCode || !access.canPush) throw forbidden("Cannot push to source branch");
  // `rebase_async` refuses a merge request that is not open (ActiveRecord::StaleObjectError).
  if (mr.state !== "opened") throw conflict();

  const outcome = await rebaseBranch(db, branchPair(project, mr), {
    sourceBranch: mr.sourceBranch,
    targetBranch: mr.targetBranch,
    user: { name: actor.user.name, email: actor.user.commitEmail || actor.user.email },
    userId: actor.user.id,
  });
  if (!outcome.ok && outcome.failure === "source_not_found") throw forbidden("Source branch does not exist");
  // RebaseService#set_rebase_error: a pre-receive refusal (the push rule) is worded with the hook's message.
  if (!outcome.ok) await mq.setMergeError(db, mr.id, outcome.failure === "push_rule" ? `The rebase pre-receive hook failed: ${outcome.message}.` : REBASE_ERROR);
  // The moved source branch wrote a push event: its pipeline starts now, unless `skip_ci`.
  else if (outcome.rebased)
    c.executionCtx.waitUntil(pipelinesForPush(c.env, source.id, { ciSkip: !!params.skip_ci, baseUrl: baseUrl(c) }).catch((e) => console.error("pipelines for push:", e)));
  return c.json(rebaseAccepted(), 202);
});
