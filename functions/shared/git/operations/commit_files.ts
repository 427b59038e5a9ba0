// Writing commits (GIT.md §5): `POST /projects/:id/repository/commits`, the files API,
// `initialize_with_readme`, and any later writer. Three steps:
//   1. read: the branch tips, the start sha and the project's protections in one statement;
//   2. plan (`planCommit`, pure): Commits::CreateService#validate! and the start point;
//   3. effects and write: the `last_commit_id` checks (one history load for all paths), the work tree
//      (only the trees along touched paths), the index rows, then ONE statement writing objects, index
//      rows, the ref compare-and-swap, its push event and, for an empty repository, HEAD.
import { sql } from "drizzle-orm";
import type { GitCommitRow } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { isOid } from "../pure/bytes";
import { commitObject, type Commit, type RawObject } from "../pure/objects";
import { branchRef, isValidBranchName } from "../pure/refnames";
import { buildIndexRows } from "../store/commit_index";
import { lastCommitsForPaths, type Repo } from "../store/revisions";
import { storeSource } from "../store/trees";
import { writeCommitAndMoveRef } from "../store/write";
import { CommitFailed, type CommitFailure } from "./failures";
import { applyActions, ident, WorkTree, type CommitAction, type Person } from "./worktree";
import { levelsJson } from "../../protected_branches/read";

export { MAX_FILE_SIZE, normalizePath, type CommitAction, type Person } from "./worktree";
export type { CommitFailure } from "./failures";

export type CommitFilesInput = {
  /** The branch to commit to (created when missing, from the start point). */
  branch: string;
  startBranch?: string | null;
  startSha?: string | null;
  /** A project of the same fork network to start from (its refs; the pool is shared). */
  startRepo?: Repo | null;
  actions: CommitAction[];
  message: string;
  authorName?: string | null;
  authorEmail?: string | null;
  /** The user: committer, and author unless author_name/author_email are given. */
  committer: Person;
  force?: boolean;
  userId?: number | null;
  /** Commit time (tests pin it); defaults to now. Dates are written with `+0000` as GitLab does. */
  now?: Date;
  /**
   * May the user push to `branch`? Called with the project's protected-branch rows (as stored, levels
   * included) read in the same statement as the branch tips; false fails with `forbidden`.
   */
  mayPush?: (protections: ProtectionRow[], context: { repoEmpty: boolean }) => boolean;
};

/** A protected branch as the state read returns it (the protected_branches domain interprets it). */
export type ProtectionRow = {
  id: number;
  name: string;
  allow_force_push: boolean;
  code_owner_approval_required: boolean;
  created_at: string;
  updated_at: string;
  levels: { id: number; action: "push" | "merge" | "unprotect"; access_level: number }[];
};

export type CommitFilesResult =
  | { ok: true; commit: GitCommitRow; branchCreated: boolean; before: string | null }
  | { ok: false; failure: CommitFailure | { kind: "forbidden" } };

/** Actions per commit (GIT.md §10). */
export const MAX_ACTIONS = 1000;
/** Attempts when another writer moved the branch meanwhile (GIT.md §5 step 5). */
export const CAS_ATTEMPTS = 3;


// ---------------------------------------------------------------------------------------------------
// 1. Read

type BranchTip = { target: string; peeled: string | null; tree: string | null; generation: number | null };

export type BranchState = {
  tips: Map<string, BranchTip>;
  /** GitLab's `empty_repo?` is "no branches". */
  hasBranches: boolean;
  /** The start sha's commit row, when one was asked for (null: not a commit of the pool). */
  startSha: { tree: string; generation: number } | null;
  protections: ProtectionRow[];
};

/**
 * Branch tips with their commit's tree and generation, whether the project has any branch, the
 * start sha's commit and the project's protections, in one statement.
 */
export async function readBranchState(db: Executor, repo: Repo, names: string[], startSha: string | null = null, withProtections = false): Promise<BranchState> {
  const result = await db.execute<{
    name: string | null;
    target: string;
    peeled: string | null;
    tree: string | null;
    generation: number | null;
    has_branches: boolean;
    sha_tree: string | null;
    sha_generation: number | null;
    protections: ProtectionRow[] | string | null;
  }>(sql`
    SELECT r.name, r.target, r.peeled, c.tree, c.generation,
           EXISTS (SELECT 1 FROM git_refs b WHERE b.project_id = ${repo.projectId} AND b.name LIKE 'refs/heads/%') AS has_branches,
           s.tree AS sha_tree, s.generation AS sha_generation,
           ${
             withProtections
               ? sql`(SELECT json_agg(json_build_object('id', pb.id, 'name', pb.name, 'allow_force_push', pb.allow_force_push,
                    'code_owner_approval_required', pb.code_owner_approval_required, 'created_at', pb.created_at, 'updated_at', pb.updated_at,
                    'levels', ${levelsJson}) ORDER BY pb.id)
                   FROM protected_branches pb WHERE pb.project_id = ${repo.projectId})`
               : sql`NULL::json`
           } AS protections
      FROM (SELECT 1) AS one
      LEFT JOIN git_commits s ON s.pool_id = ${repo.poolId} AND s.oid = ${startSha ?? ""}
      LEFT JOIN git_refs r ON r.project_id = ${repo.projectId} AND r.name = ANY(${sql.param(names)}::text[])
      LEFT JOIN git_commits c ON c.pool_id = ${repo.poolId} AND c.oid = coalesce(r.peeled, r.target)`);
  const tips = new Map<string, BranchTip>();
  for (const row of result.rows) {
    if (row.name) tips.set(row.name, { target: row.target, peeled: row.peeled, tree: row.tree, generation: row.generation === null ? null : Number(row.generation) });
  }
  const first = result.rows[0];
  const protections = first?.protections ? (typeof first.protections === "string" ? JSON.parse(first.protections) : first.protections) : [];
  return {
    tips,
    hasBranches: first?.has_branches === true,
    startSha: first?.sha_tree ? { tree: first.sha_tree, generation: Number(first.sha_generation) } : null,
    protections,
  };
}

// ---------------------------------------------------------------------------------------------------
// 2. Plan

export type CommitPlan = {
  targetRef: string;
  /** Where the target ref must be when it moves (null: it must not exist). */
  before: string | null;
  parent: string | null;
  parentTree: string | null;
  parentGeneration: number | null;
  repoEmpty: boolean;
  /** `last_commit_id` checks: the last commit touching each path on `checkRev` must be the given one. */
  checks: { path: string; expected: string }[];
  checkRev: string | null;
};

/** What the planner needs to know besides the input: the state read for the target and start repositories. */
export type PlanState = { target: BranchState; start: BranchState; sameRepo: boolean; firstAttempt: boolean };

/**
 * Commits::CreateService#validate! and Files::MultiService#validate! (GitLab 15.4), then the start
 * point: `start_sha`, else the start branch, else nothing (an empty repository). Pure.
 */
export function planCommit(input: CommitFilesInput, state: PlanState): { ok: true; plan: CommitPlan } | { ok: false; failure: CommitFailure } {
  const failure = (f: CommitFailure) => ({ ok: false as const, failure: f });
  if (input.actions.length > MAX_ACTIONS) return failure({ kind: "too_many_actions", max: MAX_ACTIONS });
  const startSha = input.startSha || null;
  // lib/api/commits.rb: `attrs[:start_branch] ||= attrs[:branch_name] unless attrs[:start_sha]`
  const startBranch = input.startBranch || (startSha ? null : input.branch);
  const differentBranch = !state.sameRepo || startBranch !== input.branch || startSha !== null;
  const targetRef = branchRef(input.branch);
  const repoEmpty = !state.target.hasBranches;
  const startEmpty = !state.start.hasBranches;
  if (startSha !== null) {
    if (input.startBranch) return failure({ kind: "start_branch_and_sha" });
    if (!isOid(startSha)) return failure({ kind: "invalid_start_sha", sha: startSha });
  }
  const startTip = startBranch ? state.start.tips.get(branchRef(startBranch)) ?? null : null;
  if (startBranch && !startEmpty && !startTip) return failure({ kind: "not_on_branch" });
  const existing = state.target.tips.get(targetRef) ?? null;
  // On a retry the branch may have been created by the writer we lost to: it is ours to build on.
  if (state.firstAttempt && !repoEmpty && differentBranch && existing && !input.force) return failure({ kind: "branch_exists", branch: input.branch });
  if (differentBranch) {
    if (!isValidBranchName(input.branch)) return failure({ kind: "cannot_create_branch", branch: input.branch, reason: "invalid" });
    if (state.firstAttempt && existing && !input.force) return failure({ kind: "cannot_create_branch", branch: input.branch, reason: "exists" });
  }
  // The first commit of an empty repository names its branch without GitLab validating it; git's
  // update-ref then refuses a bad name. Differs from GitLab: that error's wording is Gitaly's.
  if (!differentBranch && !existing && !isValidBranchName(input.branch)) return failure({ kind: "cannot_create_branch", branch: input.branch, reason: "invalid" });
  let parent: string | null = null;
  let parentTree: string | null = null;
  let parentGeneration: number | null = null;
  if (startSha !== null) {
    if (!state.start.startSha) return failure({ kind: "start_sha_not_found", sha: startSha });
    [parent, parentTree, parentGeneration] = [startSha, state.start.startSha.tree, state.start.startSha.generation];
  } else if (startTip) {
    [parent, parentTree, parentGeneration] = [startTip.peeled ?? startTip.target, startTip.tree, startTip.generation];
    if (!parentTree) return failure({ kind: "start_sha_not_found", sha: parent });
  }
  // Files::MultiService#validate!: last_commit_id of update, move and delete, on the start branch.
  const checks = startEmpty
    ? []
    : input.actions
        .filter((a) => a.lastCommitId && ["update", "move", "delete"].includes(a.action))
        .map((a) => ({ path: (a.previousPath || a.filePath).replace(/^\/+/, ""), expected: a.lastCommitId! }));
  return {
    ok: true,
    plan: {
      targetRef,
      before: existing?.target ?? null,
      parent,
      parentTree,
      parentGeneration,
      repoEmpty,
      checks,
      checkRev: startBranch ? branchRef(startBranch) : startSha,
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// 3. Effects and write

/**
 * Commits `actions` on `branch` (Commits::CreateService + Files::MultiService + Gitaly's
 * UserCommitFiles). Failures come back typed (`{ ok: false, failure }`); the calling domain words them.
 */
export async function commitFiles(db: Executor, repo: Repo, input: CommitFilesInput): Promise<CommitFilesResult> {
  try {
    return await commitFilesOrThrow(db, repo, input);
  } catch (error) {
    if (error instanceof CommitFailed) return { ok: false, failure: error.failure };
    throw error;
  }
}

async function commitFilesOrThrow(db: Executor, repo: Repo, input: CommitFilesInput): Promise<CommitFilesResult> {
  const startRepo = input.startRepo ?? repo;
  const sameRepo = startRepo.projectId === repo.projectId;
  const startSha = input.startSha && isOid(input.startSha) ? input.startSha : null;
  const startBranch = input.startBranch || (input.startSha ? null : input.branch);
  const names = [branchRef(input.branch), ...(sameRepo && startBranch ? [branchRef(startBranch)] : [])];
  const now = input.now ?? new Date();
  const committer = ident(input.committer, now);
  // Gitaly: author_name/author_email default to the committer's (each on its own).
  const author = ident({ name: input.authorName?.trim() || input.committer.name, email: input.authorEmail?.trim() || input.committer.email }, now);
  const touched = input.actions.flatMap((a) => [a.filePath, a.previousPath].filter((p): p is string => !!p)).map((p) => p.split("/").filter((s) => s && s !== ".").join("/"));

  for (let attempt = 1; ; attempt++) {
    const target = await readBranchState(db, repo, names, sameRepo ? startSha : null, attempt === 1 && !!input.mayPush);
    const start = sameRepo ? target : await readBranchState(db, startRepo, startBranch ? [branchRef(startBranch)] : [], startSha);
    if (attempt === 1 && input.mayPush && !input.mayPush(target.protections, { repoEmpty: !target.hasBranches })) return { ok: false, failure: { kind: "forbidden" } };
    const planned = planCommit(input, { target, start, sameRepo, firstAttempt: attempt === 1 });
    if (!planned.ok) return planned;
    const plan = planned.plan;
    if (attempt === 1 && plan.checks.length && plan.checkRev) {
      const last = await lastCommitsForPaths(db, startRepo, plan.checkRev, plan.checks.map((c) => c.path));
      for (const check of plan.checks) {
        const found = last.get(check.path) ?? null;
        if (found && found !== check.expected) return { ok: false, failure: { kind: "file_changed", path: check.path } };
      }
    }

    const objects: RawObject[] = [];
    const tree = await WorkTree.load(storeSource(db, repo.poolId), plan.parentTree, touched);
    await applyActions(tree, input.actions, objects);
    const treeOid = await tree.write(objects);
    const commit: Commit = { tree: treeOid, parents: plan.parent ? [plan.parent] : [], author, committer, extraHeaders: [], message: input.message };
    const commitObj = await commitObject(commit);
    objects.push(commitObj);
    const overlay = new Map(objects.map((o) => [o.oid, o]));
    const knownParents = new Map(plan.parent && plan.parentGeneration !== null ? [[plan.parent, { generation: plan.parentGeneration, tree: plan.parentTree! }]] : []);
    const { commitRows, changeRows } = await buildIndexRows(db, repo.poolId, [{ oid: commitObj.oid, commit }], storeSource(db, repo.poolId, overlay), knownParents);
    const won = await writeCommitAndMoveRef(db, {
      poolId: repo.poolId,
      projectId: repo.projectId,
      objects,
      commitRows,
      changeRows,
      ref: plan.targetRef,
      before: plan.before,
      after: commitObj.oid,
      userId: input.userId ?? null,
      // The first branch of an empty repository becomes its HEAD (Gitaly's FindDefaultBranchName), protected.
      initializeBranch: plan.repoEmpty ? input.branch : null,
    });
    if (won) return { ok: true, commit: commitRows[0], branchCreated: plan.before === null, before: plan.before };
    // Differs from GitLab: Gitaly fails at once when the branch moved; we rebuild on the new tip first.
    if (attempt >= CAS_ATTEMPTS) return { ok: false, failure: { kind: "ref_moved", ref: plan.targetRef } };
    // A short random pause spreads writers that lost the same race.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 15 * attempt));
  }
}

/** Commits one file on an empty repository's default branch (`initialize_with_readme`). */
export async function createInitialCommit(
  db: Executor,
  repo: Repo,
  input: { branch: string; path: string; content: string; message: string; user: Person; userId: number; now?: Date },
): Promise<CommitFilesResult> {
  return commitFiles(db, repo, {
    branch: input.branch,
    actions: [{ action: "create", filePath: input.path, content: input.content }],
    message: input.message,
    committer: input.user,
    userId: input.userId,
    now: input.now,
  });
}
