// MergeRequests::MergeService as one service, for the merge endpoint (routes/merge.ts) and for
// auto-merge when the head pipeline succeeds (auto_merge.ts, AutoMerge::MergeWhenPipelineSucceedsService
// #process): the checks of `mergeable_state?` / `mergeable?`, FfMergeService, SquashService and
// PostMergeService. One merge reads the branch tips and the protected-branch rules in one statement,
// runs the trial merge once (the mergeability check and the merge share it), and reads the merge
// request's author and closing issues only when the commit needs them.
import type { ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { projectWithAccess } from "../kernel/lookup";
import { isApproved } from "../shared/approvals/state";
import { branchRef, checkMergeability, mergeBranches, readPairTips, type Mergeability, type MergeMethod, type MergeResult, type Person } from "../shared/git";
import type { MergeRequestWithAssignees } from "../shared/issuables/policy";
import { canMergeInto } from "../shared/protected_branches/access";
import { toProtection } from "../shared/protected_branches/read";
import * as mq from "./merge_queries";
import { branchPair, canRemoveSourceBranch, defaultMergeMessage, refreshMergeRequest, squashOnMerge } from "./merging";

/** `Ci::Pipeline` statuses that are still going (`HasStatus::ACTIVE_STATUSES`). */
const ACTIVE = ["preparing", "pending", "running", "waiting_for_resource", "created", "scheduled"];

/** What the merge is asked with: the endpoint's parameters, or what auto-merge recorded. */
export type MergeParams = {
  /** The source head the caller expects (`sha`; auto-merge: the succeeded pipeline's sha). */
  sha?: string;
  squash?: boolean;
  mergeCommitMessage?: string;
  squashCommitMessage?: string;
  shouldRemoveSourceBranch?: boolean;
  /** `merge_when_pipeline_succeeds`: merge now if the head pipeline succeeded, else wait for it. */
  whenPipelineSucceeds?: boolean;
  /** Auto-merge: the head pipeline on `sha` has just succeeded, so it is not read. */
  pipelineSucceeded?: boolean;
};

/**
 * What came of it. Refusals name GitLab's answer: `unauthorized` (401: may not merge into the target),
 * `not_allowed` (405: not `mergeable_state?`), `cannot_be_merged` (406: not `mergeable?`),
 * `sha_mismatch` (409). `failed`: the checks passed but the git merge did not (the branches moved
 * meanwhile).
 */
export type MergeOutcome =
  | { kind: "merged"; closedIssues: { id: number; projectId: number }[] }
  | { kind: "waiting" }
  | { kind: "unauthorized" | "not_allowed" | "cannot_be_merged" }
  | { kind: "sha_mismatch"; head: string }
  | { kind: "failed"; failure: Exclude<MergeResult, { ok: true }>["failure"]; head?: string; mergeError?: string };

/**
 * Merges `found` (loaded by the caller) as `actor`, or records the automatic merge. The checks, in
 * GitLab's order: may merge into the target (`can_be_merged_by?`); `mergeable_state?` (open, not a
 * draft, not broken, the pipeline when required or asked for); EE `approved?`; no conflict; a
 * fast-forward possible for `ff` and `rebase_merge`; the expected source head.
 * Statements: the tips with the protected branches (the fork's too when its branch may go) and the
 * push rule, the merge base walk and the trees of the trial merge, the check's record when a head moved, the head
 * pipeline when needed, the approval rules, the author and closing issues when the commit needs them,
 * the git write, the source branch's removal, the merge request marked merged.
 */
export async function mergeMergeRequest(db: Executor, scope: { project: ProjectWithAccess; actor: Actor }, found: MergeRequestWithAssignees, params: MergeParams): Promise<MergeOutcome> {
  const { project, actor } = scope;
  const pair = branchPair(project, found);
  const fromFork = found.sourceProjectId !== project.id;
  // MergeService#delete_source_branch?: `params.fetch('should_remove_source_branch',
  // force_remove_source_branch?)`, when the user may (`can_remove_source_branch?`). A given
  // `should_remove_source_branch: false` wins over the merge request's own `remove_source_branch`
  // (python-gitlab's large-commit-message test relies on it).
  const wantsRemoval = params.shouldRemoveSourceBranch ?? !!found.forceRemoveSourceBranch;
  const tips = await readPairTips(
    db,
    pair,
    { sourceRef: branchRef(found.sourceBranch), targetRef: branchRef(found.targetBranch) },
    // The push rule the merge's new commits pass (GitLab's pre-receive hook), read with the tips.
    { protections: true, sourceProtections: fromFork && wantsRemoval, pushRule: { side: "target", userId: actor.user.id, authorEmails: [actor.user.commitEmail || actor.user.email] } },
  );
  const protections = tips.protections.map(toProtection);
  if (!canMergeInto(actor, project, protections, found.targetBranch)) return { kind: "unauthorized" };

  // The one trial merge: it refreshes `merge_status` and is what the merge commits. A merge request
  // that is not open answers 405 whatever the branches say.
  const check: Mergeability | null = found.state === "opened" ? await checkMergeability(db, pair, found.sourceBranch, found.targetBranch, tips) : null;
  const mr = await refreshMergeRequest(db, project, found, { tips, check });
  const stateOk = mr.state === "opened" && !mr.draft && (check?.kind === "ok" || check?.kind === "conflict");

  let immediately: boolean;
  let automatically = false;
  if (params.pipelineSucceeded) immediately = stateOk;
  else {
    const mwps = !!params.whenPipelineSucceeds;
    // The head pipeline runs in the source project (the fork, for a merge request from a fork).
    const pipeline = mwps || project.onlyAllowMergeIfPipelineSucceeds ? await mq.headPipeline(db, mr.sourceProjectId, mr.sourceBranch, mr.sha) : null;
    const ciOk = !project.onlyAllowMergeIfPipelineSucceeds || pipeline?.status === "success" || pipeline?.status === "skipped";
    immediately = mwps ? stateOk && pipeline?.status === "success" : stateOk && ciOk;
    automatically = mwps && stateOk && !!pipeline && ACTIVE.includes(pipeline.status);
  }
  if (!immediately && !automatically) return { kind: "not_allowed" };
  // EE MergeRequest#mergeable?: `approved?` first, then the git checks.
  if (!(await isApproved(db, actor, project, mr))) return { kind: "cannot_be_merged" };
  if (check?.kind !== "ok") return { kind: "cannot_be_merged" };
  if (project.mergeMethod !== "merge" && !check.ffPossible) return { kind: "cannot_be_merged" };
  if (params.sha !== undefined && params.sha !== mr.sha) return { kind: "sha_mismatch", head: `${mr.sha}` };
  if (params.squash) await mq.setSquash(db, mr.id, true);
  const squash = squashOnMerge(project, !!(params.squash || mr.squash));

  if (!immediately) {
    await mq.setAutoMerge(db, mr.id, { userId: actor.user.id, shouldRemoveSourceBranch: params.shouldRemoveSourceBranch ?? null });
    return { kind: "waiting" };
  }

  // A fork's branch: its own protections and the caller's access to the fork decide its removal.
  const sourceProject = fromFork ? (wantsRemoval ? await projectWithAccess(db, actor.user.id, { id: mr.sourceProjectId }) : null) : project;
  const sourceProtections = fromFork ? tips.sourceProtections.map(toProtection) : protections;
  const removeSource = wantsRemoval && !!sourceProject && canRemoveSourceBranch(actor, sourceProject, sourceProtections, mr.sourceBranch);

  const method = (project.mergeMethod as MergeMethod) ?? "merge";
  const needsMessage = params.mergeCommitMessage === undefined && method !== "ff";
  const context = await mq.mergeContext(db, mr, { author: squash, closingIssues: needsMessage });
  const user: Person = { name: actor.user.name, email: actor.user.commitEmail || actor.user.email };
  const result = await mergeBranches(db, pair, {
    sourceBranch: mr.sourceBranch,
    targetBranch: mr.targetBranch,
    expectedSource: params.sha ?? mr.sha ?? check.source.target,
    method,
    squash,
    // A fast-forward writes no merge commit: its message is never used.
    mergeMessage: params.mergeCommitMessage ?? (needsMessage ? defaultMergeMessage(project, mr, context.closingIssues) : ""),
    squashMessage: params.squashCommitMessage ?? mr.title,
    squashMessageGiven: params.squashCommitMessage !== undefined,
    user,
    squashAuthor: context.author ?? user,
    userId: actor.user.id,
    removeSource,
    checked: check,
    pushRule: tips.pushRule,
  });
  if (!result.ok && result.failure === "push_rule") {
    // MergeService#try_merge words Gitlab::Git::PreReceiveError into `merge_error`; FfMergeService
    // (fast-forward, 15.4) keeps the hook's message alone.
    const mergeError = method === "ff" ? result.message : `Something went wrong during merge pre-receive hook. ${result.message}`.trim();
    return { kind: "failed", failure: result.failure, mergeError };
  }
  if (!result.ok) return { kind: "failed", failure: result.failure, head: "head" in result ? result.head : undefined };
  const { closedIssues } = await mq.markMerged(db, {
    mrId: mr.id,
    userId: actor.user.id,
    isAdmin: actor.isAdmin,
    mergeCommitSha: result.mergeCommitSha,
    squashCommitSha: result.squashCommitSha,
    shouldRemoveSourceBranch: params.shouldRemoveSourceBranch ?? null,
    squash,
  });
  return { kind: "merged", closedIssues };
}
