import { actorForUser } from "../kernel/auth";
import type { Database } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { projectWithAccess } from "../kernel/lookup";
import { isApproved } from "../shared/approvals/state";
import type { FinishedPipeline } from "../shared/ci/finished";
import { hookEvents } from "../shared/webhooks";
import { checkMergeability } from "../shared/git";
import { loadMergeRequest } from "../shared/issuables/find";
import { listProtections } from "../shared/protected_branches/access";
import * as mq from "./merge_queries";
import { afterMergeHooks, branchPair, canMergeInto, mergeMergeRequest, refreshMergeRequest, squashOnMerge } from "./merging";
import * as q from "./queries";

/**
 * AutoMerge::MergeWhenPipelineSucceedsService#process (GitLab 15.4), run by the pipeline's coordinator
 * once a pipeline succeeds (shared/ci/finished.ts): each open merge request that waits on a pipeline of
 * this branch and head merges, as its merge user, with the parameters recorded when the merge was asked
 * for (`should_remove_source_branch`, `squash`). As in GitLab, one that is not mergeable now (a draft, a
 * conflict, missing approvals, a moved head) is left waiting, and a merge that fails writes `merge_error`.
 * Idempotent: a merged merge request no longer waits, so a second run finds nothing.
 */
export async function autoMergeAfterPipeline(env: Bindings, db: Database, pipeline: FinishedPipeline): Promise<void> {
  if (pipeline.status !== "success" || pipeline.tag) return;
  for (const waiting of await mq.autoMergeWaiting(db, pipeline.projectId, pipeline.ref, pipeline.sha)) {
    const user = waiting.mergeUserId === null ? null : await mq.userById(db, waiting.mergeUserId);
    if (!user || user.state !== "active") continue;
    const actor = actorForUser(user);
    const project = await projectWithAccess(db, user.id, { id: waiting.projectId });
    const found = project ? await loadMergeRequest(db, project.id, waiting.iid) : null;
    if (!project || !found || found.state !== "opened") continue;
    if (!canMergeInto(actor, project, await listProtections(db, project.id), found.targetBranch)) continue;
    const mr = await refreshMergeRequest(db, project, found);
    if (mr.sha !== pipeline.sha || mr.draft) continue;
    const check = await checkMergeability(db, branchPair(project, mr), mr.sourceBranch, mr.targetBranch);
    if (check.kind !== "ok" || (project.mergeMethod !== "merge" && !check.ffPossible)) continue;
    if (!(await isApproved(db, actor, project, mr))) continue;
    const full = await q.mergeRequestById(db, actor, mr.id);
    // The pipeline ran in the source project (a fork's, for a merge request from a fork).
    const sourceProject = mr.sourceProjectId === project.id ? project : await projectWithAccess(db, user.id, { id: mr.sourceProjectId });
    const outcome = await mergeMergeRequest(db, { project, actor, sourceProject }, mr, {
      expectedSource: pipeline.sha,
      squash: squashOnMerge(project, !!mr.squash),
      mergeMessage: undefined,
      squashMessage: undefined,
      shouldRemoveSourceBranch: mr.shouldRemoveSourceBranch ?? undefined,
      author: full?.author?.email ? { name: full.author.name, email: full.author.email } : null,
    });
    if (!outcome.ok) await mq.setMergeError(db, mr.id, `Something went wrong during merge: ${outcome.failure}`);
    // MergeService#after_merge's hooks, as the merge user.
    else await hookEvents(env, (env.EXTERNAL_URL ?? "http://localhost").replace(/\/+$/, ""), afterMergeHooks(mr, project.id, user.id, outcome.closedIssues));
  }
}
