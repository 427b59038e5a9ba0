// Merging merge requests through the git core: the mergeability check behind `merge_status` and the
// diff versions (MergeabilityCheckService, RefreshService), and what the merge itself (merge_service.ts)
// shares with other endpoints: the branch pair, the default message, who may merge and remove.
import type { ProjectWithAccess } from "../kernel/abilities";
import { Access } from "../kernel/access";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { toSentence } from "../kernel/present";
import {
  branchRef,
  checkMergeability,
  diffTreePairs,
  readPairTips,
  repoOf,
  RevWalk,
  sourceCommitCount,
  storeSource,
  type BranchPair,
  type Mergeability,
  type PairTips,
} from "../shared/git";
import { branchAccess, callerOf, canMergeInto, type Protection } from "../shared/protected_branches/access";
import type { MergeRequestWithAssignees } from "../shared/issuables/policy";
import type { HookEvent } from "../shared/webhooks";
import * as mq from "./merge_queries";
import type { ClosingIssue } from "./merge_queries";

/** Marks a missing branch in the recorded check heads (so that its reappearance triggers a check). */
const MISSING = "-";

/** What the mergeability check needs of the target project (a list row's project carries no access). */
type RepoProject = Pick<ProjectWithAccess, "id" | "defaultBranch" | "poolId" | "emptyRepo">;

type Checkable = Pick<
  MergeRequestWithAssignees,
  "id" | "state" | "sourceProjectId" | "sourceBranch" | "targetBranch" | "sha" | "mergeStatus" | "mergeCheckSourceSha" | "mergeCheckTargetSha"
>;

/**
 * The merge request's two repositories: the source branch's project (the target project itself, or a
 * fork in its network) and the target's. Forks share the network's object pool (docs/git.md, "Tables"), which
 * creating the merge request checked, so both sides read objects from the target's pool.
 */
export function branchPair(project: RepoProject, mr: { sourceProjectId: number }): BranchPair {
  const target = repoOf(project);
  if (mr.sourceProjectId === project.id) return { source: target, target };
  return { source: { projectId: mr.sourceProjectId, poolId: target.poolId, defaultBranch: null }, target };
}

/**
 * MergeRequests::MergeabilityCheckService run synchronously when a head moved since the last check
 * (GitLab runs it in Sidekiq and shows `checking` meanwhile), plus RefreshService's new diff version
 * when the source head is new. Costs one statement when nothing moved. Returns the row as it now is.
 * `read`: the tips (and the trial merge of them) when the caller has them already (the merge service),
 * so that nothing is read or merged twice.
 */
export async function refreshMergeRequest<T extends Checkable>(db: Executor, project: RepoProject, mr: T, read?: { tips: PairTips; check: Mergeability | null }): Promise<T> {
  if (mr.state !== "opened" || project.emptyRepo) return mr;
  const pair = branchPair(project, mr);
  const repo = pair.target;
  // The source head is read from the source project: a push to a fork's branch shows up here.
  const tips = read?.tips ?? (await readPairTips(db, pair, { sourceRef: branchRef(mr.sourceBranch), targetRef: branchRef(mr.targetBranch) }));
  const { source, target } = tips;
  const sourceSha = source?.target ?? MISSING;
  const targetSha = target?.target ?? MISSING;
  if (mr.mergeStatus !== "unchecked" && mr.mergeCheckSourceSha === sourceSha && mr.mergeCheckTargetSha === targetSha) return mr;

  const check = read?.check ?? (await checkMergeability(db, pair, mr.sourceBranch, mr.targetBranch, tips));
  let diff: Parameters<typeof mq.recordCheck>[2]["diff"] = null;
  if ((check.kind === "ok" || check.kind === "conflict" || check.kind === "no_commits") && check.source.target !== mr.sha) {
    // The trial merge brought the base's tree and the history between the heads: only the trees
    // along the changed paths are read here.
    const [changes] = await diffTreePairs(storeSource(db, repo.poolId), [{ oldRoot: check.baseTree, newRoot: check.source.tree }]);
    const commits = await sourceCommitCount(db, repo, check);
    diff = { head: check.source.target, base: check.base, start: check.target.target, files: changes.length, commits };
  }
  // `broken?` (no commits, a missing branch) and conflicts are `cannot_be_merged`.
  const mergeStatus = check.kind === "ok" ? "can_be_merged" : "cannot_be_merged";
  const sha = source?.target ?? mr.sha;
  await mq.recordCheck(db, mr.id, { status: mergeStatus, sourceSha, targetSha, sha, diff });
  return { ...mr, mergeStatus, sha, mergeCheckSourceSha: sourceSha, mergeCheckTargetSha: targetSha };
}

/**
 * The lists' side of `refreshMergeRequest`, so that a list and the single GET show the same
 * `merge_status` (and `sha`) after a push: the list statement itself says which rows' branch heads
 * moved since their last check (`checkStale`, merge_request_preload.ts), and only those are checked,
 * each once (the check records the heads it saw, so the next read finds nothing to do). A page where
 * nothing moved costs no statement and no trial merge.
 * Differs from GitLab: GitLab marks merge requests `unchecked` on push and rechecks in Sidekiq, its
 * lists showing the stored value meanwhile (a GET answering `checking`); here the first read after a
 * push, list or GET, does the check, so both answer the same.
 */
export async function refreshListed<T extends Checkable & { checkStale: boolean; project: RepoProject }>(db: Executor, rows: T[]): Promise<T[]> {
  const out: T[] = [];
  for (const row of rows) out.push(row.checkStale ? { ...(await refreshMergeRequest(db, row.project, row)), checkStale: false } : row);
  return out;
}

/**
 * `MergeRequest#diverged_commits_count` (`compute_diverged_commits_count`): the commits of the target
 * branch its source branch lacks (`git rev-list --count source..target`, Repository#count_commits_between),
 * 0 when either branch is missing. Read from the branches as they are now, as GitLab's cache keyed by
 * both heads is; for a fork both sides are in the network's pool.
 */
export async function divergedCommitsCount(db: Executor, project: ProjectWithAccess, mr: { sourceProjectId: number; sourceBranch: string; targetBranch: string }): Promise<number> {
  if (project.emptyRepo) return 0;
  const pair = branchPair(project, mr);
  const { source, target } = await readPairTips(db, pair, { sourceRef: branchRef(mr.sourceBranch), targetRef: branchRef(mr.targetBranch) });
  if (!source || !target) return 0;
  const walk = new RevWalk(db, pair.target.poolId, { batch: 1000 });
  return (await walk.log({ kind: "tips", include: [target.peeled ?? target.target], exclude: [source.peeled ?? source.target] }, {})).length;
}

/** `Issue#to_reference(target_project)`: `#1`, `project#1` next door, `group/project#1` elsewhere. */
function issueReference(issue: { iid: number; projectId: number; path: string; fullPath: string; namespaceId: number }, project: ProjectWithAccess): string {
  if (issue.projectId === project.id) return `#${issue.iid}`;
  if (issue.namespaceId === project.namespaceId) return `${issue.path}#${issue.iid}`;
  return `${issue.fullPath}#${issue.iid}`;
}

/**
 * MergeRequest#default_merge_commit_message (15.4, no project template), from the issues the merge
 * request closes (`mq.mergeContext`).
 */
export function defaultMergeMessage(
  project: ProjectWithAccess,
  mr: { iid: number; title: string; sourceBranch: string; targetBranch: string },
  closingIssues: ClosingIssue[],
): string {
  const closes = closingIssues.map((i) => issueReference(i, project));
  const parts = [`Merge branch '${mr.sourceBranch}' into '${mr.targetBranch}'`, mr.title];
  if (closes.length) parts.push(`Closes ${toSentence(closes)}`);
  parts.push(`See merge request ${project.fullPath}!${mr.iid}`);
  return parts.join("\n\n");
}

/** `Project#squash_enabled_by_default?` … `MergeRequest#squash_on_merge?`. */
export function squashOnMerge(project: ProjectWithAccess, squash: boolean): boolean {
  if (project.squashOption === "always") return true;
  if (project.squashOption === "never") return false;
  return squash;
}

// `MergeRequest#can_be_merged_by?` lives with the protected branches: pushes to a fork's branch that
// allows collaboration ask it too.
export { canMergeInto };

/**
 * `MergeRequest#can_remove_source_branch?`: the branch is not protected in the source project, is not
 * its default branch, and the user may push code there (`push_code` on the source project).
 */
export function canRemoveSourceBranch(actor: Actor, source: ProjectWithAccess, protections: Protection[], branch: string): boolean {
  if (source.archived) return false;
  if (!actor.isAdmin && source.accessLevel < Access.DEVELOPER) return false;
  const access = branchAccess(protections, branch, callerOf(actor, source), { emptyRepo: false, defaultBranch: source.defaultBranch });
  return !access.protected && branch !== source.defaultBranch;
}

/**
 * MergeService#after_merge's hooks, in order: the Merge Request Hook with action `merge`, then the Issue
 * Hook (`close`) of each issue the merge closed (Issues::CloseService#execute_hooks).
 */
export function afterMergeHooks(mr: { id: number }, projectId: number, userId: number, closedIssues: { id: number; projectId: number }[] = []): HookEvent[] {
  return [
    { kind: "merge_request" as const, projectId, id: mr.id, action: "merge" as const, userId },
    ...closedIssues.map((issue) => ({ kind: "issue" as const, projectId: issue.projectId, id: issue.id, action: "close" as const, userId })),
  ];
}
