// Writing commits (docs/git.md, "Writing commits"): `POST /projects/:id/repository/commits`, the files API,
// `initialize_with_readme`, and any later writer. Plan, effects, write:
//   1. read (ONE statement, store/state.ts): the branch tips, the start sha, the protections, the root
//      tree to edit and the first batch of history for the `last_commit_id` checks;
//   2. plan (`commit_plan.ts`, pure): Commits::CreateService#validate!, the start point, the ref
//      compare-and-swap, the checks; the checks' walks then run in memory over the history read in 1;
//   3. effects: the work tree (the trees along touched paths below the root, one statement per depth),
//      the index rows (the replaced blobs for line counts, one statement);
//   4. write (ONE statement, store/write.ts): objects, index rows, the ref compare-and-swap, its push
//      event and, for an empty repository, HEAD.
import type { GitCommitRow } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { commitObject, type Commit, type RawObject } from "../pure/objects";
import { buildIndexRows } from "../store/commit_index";
import { CommitLoader } from "../store/loader";
import { lastCommitsFrom, type Repo } from "../store/revisions";
import { readRepoState, type BranchState, type ProtectionRow, type RepoState } from "../store/state";
import { storeSource } from "../store/trees";
import { writeCommitAndMoveRef } from "../store/write";
import { commitReads, failedCheck, planCommit, type CommitFilesInput, type CommitPlan } from "./commit_plan";
import { CommitFailed, type CommitFailure } from "./failures";
import { applyActions, ident, WorkTree, type Person } from "./worktree";
import { apiCommitViolation } from "../../push_rules";

export { MAX_FILE_SIZE, normalizePath, type CommitAction, type Person } from "./worktree";
export type { CommitFailure } from "./failures";
export { MAX_ACTIONS, planCommit, commitReads, failedCheck, type CommitFilesInput, type CommitPlan, type PlanState } from "./commit_plan";
export { readBranchState, type BranchState, type ProtectionRow } from "../store/state";

export type CommitFilesResult =
  | { ok: true; commit: GitCommitRow; branchCreated: boolean; before: string | null }
  | { ok: false; failure: CommitFailure | { kind: "forbidden" } };

/** Attempts when another writer moved the branch meanwhile (docs/git.md, "Writing commits", step 5). */
export const CAS_ATTEMPTS = 3;

/** The state of a repository known to have no refs (a project created in this request). */
const NO_REFS: BranchState = { tips: new Map(), hasBranches: false, startSha: null, protections: [] };

/**
 * Commits `actions` on `branch` (Commits::CreateService + Files::MultiService + Gitaly's
 * UserCommitFiles). Failures come back typed (`{ ok: false, failure }`); the calling domain words them.
 */
export async function commitFiles(db: Executor, repo: Repo, input: CommitFilesInput): Promise<CommitFilesResult> {
  return commitFilesWith(db, repo, input, null);
}

async function commitFilesWith(db: Executor, repo: Repo, input: CommitFilesInput, assumed: BranchState | null): Promise<CommitFilesResult> {
  try {
    return await commitFilesOrThrow(db, repo, input, assumed);
  } catch (error) {
    if (error instanceof CommitFailed) return { ok: false, failure: error.failure };
    throw error;
  }
}

/**
 * The state read of one attempt: the target's and the start's (one statement when they are the same
 * project), with the root trees and, on the first attempt, the checks' first batch of history.
 */
async function readStates(
  db: Executor,
  repo: Repo,
  startRepo: Repo,
  reads: ReturnType<typeof commitReads>,
  first: boolean,
  protections: boolean,
  loader: CommitLoader | null,
  pushRule: { userId: number; authorEmails: string[] } | null,
) {
  const history = loader && reads.checkFrom ? { loader, from: reads.checkFrom } : undefined;
  const sameRepo = startRepo.projectId === repo.projectId;
  const target = await readRepoState(db, repo, {
    names: reads.names,
    startSha: sameRepo ? reads.startSha : null,
    protections: first && protections,
    rootTrees: sameRepo,
    history: sameRepo ? history : undefined,
    pushRule: first ? pushRule : null,
  });
  const start = sameRepo ? target : await readRepoState(db, startRepo, { names: reads.startNames, startSha: reads.startSha, rootTrees: true, history });
  return { target, start };
}

async function commitFilesOrThrow(db: Executor, repo: Repo, input: CommitFilesInput, assumed: BranchState | null): Promise<CommitFilesResult> {
  const startRepo = input.startRepo ?? repo;
  const sameRepo = startRepo.projectId === repo.projectId;
  const reads = commitReads(input, sameRepo);
  const now = input.now ?? new Date();
  const authorEmail = input.authorEmail?.trim() || input.committer.email;
  const pushRule = input.pushRules && input.userId ? { userId: input.userId, authorEmails: [authorEmail] } : null;
  let rules: RepoState["pushRule"] = null;

  for (let attempt = 1; ; attempt++) {
    const first = attempt === 1;
    // The checks run once, on the first attempt (a retry rebuilds on the winner's tip, docs/git.md, "Writing commits").
    const loader = first && reads.checkPaths.length ? new CommitLoader(db, startRepo.poolId, { paths: reads.checkPaths, batch: 256 }) : null;
    const { target, start } = first && assumed ? { target: assumed, start: assumed } : await readStates(db, repo, startRepo, reads, first, !!input.mayPush, loader, pushRule);
    if (first) rules = (target as Partial<RepoState>).pushRule ?? null;
    if (first && input.mayPush && !input.mayPush(target.protections, { repoEmpty: !target.hasBranches })) return { ok: false, failure: { kind: "forbidden" } };
    const planned = planCommit(input, { target, start, sameRepo, firstAttempt: first });
    if (!planned.ok) return planned;
    const plan = planned.plan;
    if (loader && plan.checks.length && plan.checkTip) {
      const failure = failedCheck(plan, await lastCommitsFrom(db, startRepo, plan.checkTip, loader));
      if (failure) return { ok: false, failure };
    }
    const built = await buildCommit(db, repo, input, plan, now);
    // The pre-receive hook runs once the commit exists, so the service's own failures come first.
    if (rules) {
      const message = apiCommitViolation(rules, {
        branch: input.branch,
        branchCreated: plan.before === null,
        message: input.message,
        authorEmail,
        committerEmail: input.committer.email,
        files: built.written,
      });
      if (message) return { ok: false, failure: { kind: "push_rule", message } };
    }
    const won = await writeCommitAndMoveRef(db, {
      poolId: repo.poolId,
      projectId: repo.projectId,
      ...built,
      ref: plan.targetRef,
      before: plan.before,
      userId: input.userId ?? null,
      pushEvent: repo.pushEvents !== false,
      // The first branch of an empty repository becomes its HEAD (Gitaly's FindDefaultBranchName), protected.
      initializeBranch: plan.initializeBranch,
      // A state assumed rather than read: the swap also requires that the project still has no branch.
      requireNoBranches: first && !!assumed,
    });
    if (won) return { ok: true, commit: built.commitRows[0], branchCreated: plan.before === null, before: plan.before };
    // Differs from GitLab: Gitaly fails at once when the branch moved; we rebuild on the new tip first.
    if (attempt >= CAS_ATTEMPTS) return { ok: false, failure: { kind: "ref_moved", ref: plan.targetRef } };
    // A short random pause spreads writers that lost the same race.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 15 * attempt));
  }
}

/**
 * The effects: the work tree on the parent (its root is cached by the state read; deeper directories
 * along the touched paths cost one statement per depth), the actions applied, the new trees and the
 * commit, and its index rows (the replaced blobs for line counts in one statement).
 */
async function buildCommit(db: Executor, repo: Repo, input: CommitFilesInput, plan: CommitPlan, now: Date) {
  const committer = ident(input.committer, now);
  // Gitaly: author_name/author_email default to the committer's (each on its own).
  const author = ident({ name: input.authorName?.trim() || input.committer.name, email: input.authorEmail?.trim() || input.committer.email }, now);
  const objects: RawObject[] = [];
  const tree = await WorkTree.load(storeSource(db, repo.poolId), plan.parentTree, plan.touched);
  const written = await applyActions(tree, input.actions, objects);
  const treeOid = await tree.write(objects);
  const commit: Commit = { tree: treeOid, parents: plan.parent ? [plan.parent] : [], author, committer, extraHeaders: [], message: input.message };
  const commitObj = await commitObject(commit);
  objects.push(commitObj);
  const overlay = new Map(objects.map((o) => [o.oid, o]));
  const knownParents = new Map(plan.parent && plan.parentGeneration !== null ? [[plan.parent, { generation: plan.parentGeneration, tree: plan.parentTree! }]] : []);
  const { commitRows, changeRows } = await buildIndexRows(db, repo.poolId, [{ oid: commitObj.oid, commit }], storeSource(db, repo.poolId, overlay), knownParents);
  return { objects, commitRows, changeRows, after: commitObj.oid, written };
}

/** Commits one file on an empty repository's default branch (`initialize_with_readme`). */
export async function createInitialCommit(
  db: Executor,
  repo: Repo,
  input: { branch: string; path: string; content: string; message: string; user: Person; userId: number; now?: Date },
): Promise<CommitFilesResult> {
  // The project was created in this request: its state is known (no refs) and not read. The write
  // checks it (no branch yet) in its compare-and-swap; should another writer have been first, the
  // retry reads the real state.
  return commitFilesWith(db, repo, {
    branch: input.branch,
    actions: [{ action: "create", filePath: input.path, content: input.content }],
    message: input.message,
    committer: input.user,
    userId: input.userId,
    now: input.now,
  }, NO_REFS);
}
