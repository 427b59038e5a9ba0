// The pure half of writing commits: what a commit needs read, what it changes and
// what it must check, with no I/O. `commit_files.ts` runs it: one state read, the plan, one batched
// history walk for the `last_commit_id` checks, the tree work, one write.
import { isOid } from "../pure/bytes";
import { branchRef, isProhibitedBranchName, isValidBranchName } from "../pure/refnames";
import type { BranchState } from "../store/state";
import type { CommitFailure } from "./failures";
import type { CommitAction, Person } from "./worktree";
import type { Repo } from "../store/revisions";
import type { ProtectionRow } from "../store/state";

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
  /**
   * Hold the commit to the project's push rule (GitLab's pre-receive hook runs on API commits too):
   * the rule is read with the branch state, in the same statement. Needs `userId`.
   */
  pushRules?: boolean;
};

/** Actions per commit (docs/git.md, "Limits"). */
export const MAX_ACTIONS = 1000;

/** The actions whose `last_commit_id` Files::MultiService#validate! checks. */
const CHECKED_ACTIONS = new Set(["update", "move", "delete"]);

const checkPath = (a: CommitAction) => (a.previousPath || a.filePath).replace(/^\/+/, "");

/** `attrs[:start_branch] ||= attrs[:branch_name] unless attrs[:start_sha]` (lib/api/commits.rb). */
const startBranchOf = (input: CommitFilesInput) => input.startBranch || (input.startSha ? null : input.branch);

/**
 * What the state read must bring for `input`, known before anything is read: the refs (the target
 * branch and, in the same project, the start branch), the start sha, and where the history for the
 * `last_commit_id` checks starts with the paths to check (none when no action carries one).
 */
export function commitReads(input: CommitFilesInput, sameRepo: boolean): {
  names: string[];
  startNames: string[];
  startSha: string | null;
  checkPaths: string[];
  checkFrom: { ref: string } | { oid: string } | null;
} {
  const startSha = input.startSha && isOid(input.startSha) ? input.startSha : null;
  const startBranch = startBranchOf(input);
  const startNames = startBranch ? [branchRef(startBranch)] : [];
  const checkPaths = [...new Set(input.actions.filter((a) => a.lastCommitId && CHECKED_ACTIONS.has(a.action)).map(checkPath))];
  const checkFrom = !checkPaths.length ? null : startBranch ? { ref: branchRef(startBranch) } : startSha ? { oid: startSha } : null;
  return {
    names: [branchRef(input.branch), ...(sameRepo ? startNames : [])],
    startNames: sameRepo ? [] : startNames,
    startSha,
    checkPaths: checkFrom ? checkPaths : [],
    checkFrom,
  };
}

/** The paths the actions touch, normalised as the work tree splits them (the directories to load). */
export function touchedPaths(actions: CommitAction[]): string[] {
  return actions
    .flatMap((a) => [a.filePath, a.previousPath].filter((p): p is string => !!p))
    .map((p) => p.split("/").filter((s) => s && s !== ".").join("/"));
}

export type CommitPlan = {
  targetRef: string;
  /** The compare-and-swap: where the target ref must be when it moves (null: it must not exist). */
  before: string | null;
  parent: string | null;
  parentTree: string | null;
  parentGeneration: number | null;
  repoEmpty: boolean;
  /** The first branch of an empty repository: it becomes HEAD and is protected (else null). */
  initializeBranch: string | null;
  /** `last_commit_id` checks: the last commit touching each path from `checkTip` must be the given one. */
  checks: { path: string; expected: string }[];
  /** The commit the checks' history walk starts from (the start branch's tip or the start sha). */
  checkTip: string | null;
  /** The directories to load: every path an action names. */
  touched: string[];
};

/** What the planner needs to know besides the input: the state read for the target and start repositories. */
export type PlanState = { target: BranchState; start: BranchState; sameRepo: boolean; firstAttempt: boolean };

/**
 * Commits::CreateService#validate! and Files::MultiService#validate! (GitLab 15.4), then the start
 * point, the compare-and-swap and the checks: `start_sha`, else the start branch, else nothing (an
 * empty repository). Pure.
 */
export function planCommit(input: CommitFilesInput, state: PlanState): { ok: true; plan: CommitPlan } | { ok: false; failure: CommitFailure } {
  const failure = (f: CommitFailure) => ({ ok: false as const, failure: f });
  if (input.actions.length > MAX_ACTIONS) return failure({ kind: "too_many_actions", max: MAX_ACTIONS });
  const startSha = input.startSha || null;
  const startBranch = startBranchOf(input);
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
  // Gitaly's UserCommitFiles runs the pre-receive hook, whose BranchCheck refuses a 40-hex branch name.
  // Differs from GitLab in order only: refused here before the actions are applied, so a request that
  // is also wrong in its actions (a file that exists) gets this message instead of Gitaly's.
  if (isProhibitedBranchName(input.branch)) return failure({ kind: "prohibited_branch_name" });
  // Files::MultiService#validate!: last_commit_id of update, move and delete, on the start branch.
  const checks = startEmpty
    ? []
    : input.actions.filter((a) => a.lastCommitId && CHECKED_ACTIONS.has(a.action)).map((a) => ({ path: checkPath(a), expected: a.lastCommitId! }));
  return {
    ok: true,
    plan: {
      targetRef,
      before: existing?.target ?? null,
      parent,
      parentTree,
      parentGeneration,
      repoEmpty,
      initializeBranch: repoEmpty ? input.branch : null,
      checks,
      checkTip: startTip ? startTip.peeled ?? startTip.target : startSha,
      touched: touchedPaths(input.actions),
    },
  };
}

/**
 * The first failing `last_commit_id` check, given the last commit that touched each path (null: none
 * did, which passes as in GitLab, whose check compares only when the file has a last commit). Pure.
 */
export function failedCheck(plan: CommitPlan, lastCommits: Map<string, string | null>): CommitFailure | null {
  for (const check of plan.checks) {
    const found = lastCommits.get(check.path) ?? null;
    if (found && found !== check.expected) return { kind: "file_changed", path: check.path };
  }
  return null;
}
