import { actorForUser } from "../kernel/auth";
import type { Database } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { projectWithAccess } from "../kernel/lookup";
import type { FinishedPipeline } from "../shared/ci/finished";
import { hookEvents } from "../shared/webhooks";
import { loadMergeRequest } from "../shared/issuables/find";
import * as mq from "./merge_queries";
import { mergeMergeRequest } from "./merge_service";
import { afterMergeHooks } from "./merging";

/**
 * AutoMerge::MergeWhenPipelineSucceedsService#process (GitLab 15.4), run by the pipeline's coordinator
 * once a pipeline succeeds (shared/ci/finished.ts): each open merge request that waits on a pipeline of
 * this branch and head merges, as its merge user, with the parameters recorded when the merge was asked
 * for (`should_remove_source_branch`, `squash`), through the merge endpoint's service (merge_service.ts).
 * As in GitLab, one that is not mergeable now (a draft, a conflict, missing approvals, a moved head)
 * is left waiting, and a merge that fails writes `merge_error`.
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
    // The pipeline ran in the source project (a fork's, for a merge request from a fork) on `sha`:
    // a head that moved since is a mismatch, and the merge request keeps waiting.
    const outcome = await mergeMergeRequest(db, { project, actor }, found, {
      sha: pipeline.sha,
      pipelineSucceeded: true,
      shouldRemoveSourceBranch: found.shouldRemoveSourceBranch ?? undefined,
    });
    if (outcome.kind === "failed") await mq.setMergeError(db, found.id, outcome.mergeError ?? `Something went wrong during merge: ${outcome.failure}`);
    // MergeService#after_merge's hooks, as the merge user.
    else if (outcome.kind === "merged") await hookEvents(env, (env.EXTERNAL_URL ?? "http://localhost").replace(/\/+$/, ""), afterMergeHooks(found, project.id, user.id, outcome.closedIssues));
  }
}
