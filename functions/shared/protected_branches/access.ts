// Protected branches as domains use them (functions/protected_branches/ manages them): the flags a branch entity shows, the push check that
// the commits API and git pushes (smart HTTP) run, and creating a protection.
import type { Executor } from "../../kernel/db";
import { Access } from "../../kernel/access";
import * as q from "./read";
import { listRefs } from "../git";
import { tipsReaching } from "../git/store/reach";
import {
  branchAccess,
  checkBranchUpdate,
  matchingProtections,
  needsBasisCheck,
  type BranchAccess,
  type Caller,
  type PushDecision,
  type PushProject,
  type RefUpdate,
  type UpdateSource,
} from "./rules";
import type { Protection } from "../../entities/protected_branches";
import { checkTagUpdate, listProtectedTags } from "../protected_tags";

export type { BranchAccess, Caller, PushDecision, RefUpdate, UpdateSource } from "./rules";
export type { Protection };
export { branchAccess, checkBranchUpdate } from "./rules";

/** The caller as the rules see it, from a project lookup (`accessLevel`) and the actor. */
export const callerOf = (actor: { isAdmin: boolean; user: { id: number } } | null, project: { accessLevel: number }): Caller =>
  actor ? { accessLevel: project.accessLevel, isAdmin: actor.isAdmin, userId: actor.user.id } : null;

type ProjectState = { id: number; emptyRepo: boolean; defaultBranch: string | null };

/** What `caller` may do to each of `branches` (one statement). */
export async function branchesAccess(db: Executor, project: ProjectState, caller: Caller, branches: string[]): Promise<Map<string, BranchAccess>> {
  const protections = await q.listProtections(db, project.id);
  return new Map(branches.map((b) => [b, branchAccess(protections, b, caller, project)]));
}

/**
 * The protected-branch and protected-tag checks of a push (Gitlab::Checks::BranchCheck, TagCheck), for a caller who already has
 * `push_code` on the project: one decision per ref update, in order, from one statement (two more,
 * the branch tips and one walk, only when a merge-only caller creates a protected branch). Smart HTTP
 * calls this before moving any ref, and refuses the updates that are not allowed; the API's branch
 * creation calls it with `web`.
 */
export async function checkPush(
  db: Executor,
  project: ProjectState & PushProject & { poolId: number },
  caller: Caller,
  updates: RefUpdate[],
  source: UpdateSource = {},
): Promise<PushDecision[]> {
  const protections = updates.some((u) => u.ref.startsWith("refs/heads/")) ? await q.listProtections(db, project.id) : [];
  const checked: RefUpdate[] = [];
  let protectedTips: string[] | null = null;
  for (const update of updates) {
    if (!needsBasisCheck(protections, update, caller, project)) {
      checked.push(update);
      continue;
    }
    // `ProtectedBranch.any_protected?(project, repository.branch_names_contains_sha(newrev))`: some
    // existing protected branch's tip reaches the new ref's commit.
    protectedTips ??= (await listRefs(db, project.id, "refs/heads/"))
      .filter((ref) => matchingProtections(protections, ref.name.slice("refs/heads/".length)).length > 0)
      .map((ref) => ref.target);
    const basisProtected = protectedTips.length > 0 && (await tipsReaching(db, { projectId: project.id, poolId: project.poolId, defaultBranch: project.defaultBranch }, update.after!, protectedTips)).size > 0;
    checked.push({ ...update, basisProtected });
  }
  // Gitlab::Checks::TagCheck for the tags of the push (one more statement, only when tags move).
  const tagProtections = updates.some((u) => u.ref.startsWith("refs/tags/")) ? await listProtectedTags(db, project.id) : [];
  return checked.map((u) =>
    u.ref.startsWith("refs/tags/") ? checkTagUpdate(tagProtections, u, caller, source) : checkBranchUpdate(protections, u, caller, project, source),
  );
}

/**
 * `MergeRequest#can_be_merged_by?` (`Gitlab::UserAccess#can_update_branch?` without the collaboration
 * check): developers push to an unprotected branch; a protected one needs its push or merge level.
 */
export function canMergeInto(
  actor: { isAdmin: boolean; user: { id: number } } | null,
  project: { archived: boolean; accessLevel: number; emptyRepo: boolean; defaultBranch: string | null },
  protections: Protection[],
  branch: string,
): boolean {
  if (!actor || project.archived) return false;
  if (!actor.isAdmin && project.accessLevel < Access.DEVELOPER) return false;
  const access = branchAccess(protections, branch, callerOf(actor, project), { emptyRepo: project.emptyRepo, defaultBranch: project.defaultBranch });
  return access.canPush || access.canMerge;
}

/** The decision for committing to `branch` through the API (`authorize_push_to_branch!`). */
export function mayCommitTo(protections: Protection[], branch: string, caller: Caller, project: Omit<ProjectState, "id">): boolean {
  return branchAccess(protections, branch, caller, project).canPush;
}

export const listProtections = q.listProtections;

/** GitLab's full default-branch protection (the instance default): maintainers push and merge. */
export const DEFAULT_BRANCH_LEVELS = [
  { action: "push" as const, accessLevel: Access.MAINTAINER },
  { action: "merge" as const, accessLevel: Access.MAINTAINER },
];

/**
 * The `mayPush` guard the git core's writes take (commit files, cherry-pick, revert): it receives the
 * protection rows read with the branch tips, so the check costs no statement of its own.
 */
export function pushGuard(caller: Caller, project: { defaultBranch: string | null }, branch: string) {
  return (rows: q.ProtectionJson[], context: { repoEmpty: boolean }) =>
    branchAccess(rows.map(q.toProtection), branch, caller, { emptyRepo: context.repoEmpty, defaultBranch: project.defaultBranch }).canPush;
}
