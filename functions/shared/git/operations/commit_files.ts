// Writing commits (GIT.md §5): `POST /projects/:id/repository/commits`, `initialize_with_readme`, and
// any later writer. Trees are built in memory from only the trees along the touched paths, and
// everything (objects, commit index, push event, ref CAS) lands in one transaction.
import { sql } from "drizzle-orm";
import type { GitCommitRow } from "../../../../db/schema";
import type { Database, Executor } from "../../../kernel/db";
import { isOid } from "../pure/bytes";
import { commitObject, type Commit, type RawObject } from "../pure/objects";
import { branchRef, isValidBranchName } from "../pure/refnames";
import { indexCommits } from "../store/commit_index";
import { writeObjects } from "../store/objects";
import { compareAndSwapRef, recordPushEvent } from "../store/refs";
import { initializeDefaultBranch } from "../store/repository";
import { lastCommitForPath, type Repo } from "../store/revisions";
import { storeSource } from "../store/trees";
import { applyActions, CommitFilesError, fail, ident, WorkTree, type CommitAction, type Person } from "./worktree";

export { MAX_FILE_SIZE, normalizePath, type CommitAction, type Person } from "./worktree";

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
};

export type CommitFilesResult =
  | { ok: true; commit: GitCommitRow; branchCreated: boolean; before: string | null }
  | { ok: false; status: 400; message: string };

/** Actions per commit (GIT.md §10). */
export const MAX_ACTIONS = 1000;
/** Attempts when another writer moved the branch meanwhile (GIT.md §5 step 5). */
export const CAS_ATTEMPTS = 3;

export class LostRace extends Error {}

// ---------------------------------------------------------------------------------------------------
// The service

type BranchTip = { target: string; peeled: string | null; tree: string | null; generation: number | null };

/**
 * Branch tips with their commit's tree and generation, and whether the project has any branch
 * (GitLab's `empty_repo?`), in one statement.
 */
async function readBranchState(db: Executor, repo: Repo, names: string[]): Promise<{ tips: Map<string, BranchTip>; hasBranches: boolean }> {
  const result = await db.execute<{ name: string | null; target: string; peeled: string | null; tree: string | null; generation: number | null; has_branches: boolean }>(sql`
    SELECT r.name, r.target, r.peeled, c.tree, c.generation,
           EXISTS (SELECT 1 FROM git_refs b WHERE b.project_id = ${repo.projectId} AND b.name LIKE 'refs/heads/%') AS has_branches
      FROM (SELECT 1) AS one
      LEFT JOIN git_refs r ON r.project_id = ${repo.projectId} AND r.name = ANY(${sql.param(names)}::text[])
      LEFT JOIN git_commits c ON c.pool_id = ${repo.poolId} AND c.oid = coalesce(r.peeled, r.target)`);
  const tips = new Map<string, BranchTip>();
  for (const row of result.rows) {
    if (row.name) tips.set(row.name, { target: row.target, peeled: row.peeled, tree: row.tree, generation: row.generation === null ? null : Number(row.generation) });
  }
  return { tips, hasBranches: result.rows[0]?.has_branches === true };
}


/**
 * Commits `actions` on `branch` (Commits::CreateService + Files::MultiService + Gitaly's
 * UserCommitFiles). Validation errors come back as `{ ok: false, status: 400, message }` with
 * GitLab's messages; the commit is indexed and the ref moved by compare-and-swap in one transaction.
 * Needs the request's database, not a transaction: it opens its own.
 */
export async function commitFiles(db: Database, repo: Repo, input: CommitFilesInput): Promise<CommitFilesResult> {
  try {
    return await commitFilesOrThrow(db, repo, input);
  } catch (error) {
    if (error instanceof CommitFilesError) return { ok: false, status: 400, message: error.message };
    throw error;
  }
}

async function commitFilesOrThrow(db: Database, repo: Repo, input: CommitFilesInput): Promise<CommitFilesResult> {
  if (input.actions.length > MAX_ACTIONS) fail(`Too many actions (at most ${MAX_ACTIONS})`);
  const startRepo = input.startRepo ?? repo;
  const startSha = input.startSha || null;
  // lib/api/commits.rb: `attrs[:start_branch] ||= attrs[:branch_name] unless attrs[:start_sha]`
  const startBranch = input.startBranch || (startSha ? null : input.branch);
  const differentBranch = startRepo.projectId !== repo.projectId || startBranch !== input.branch || startSha !== null;

  const targetRef = branchRef(input.branch);
  const sameRepo = startRepo.projectId === repo.projectId;
  const state = await readBranchState(db, repo, [targetRef, ...(sameRepo && startBranch ? [branchRef(startBranch)] : [])]);
  const startState = sameRepo ? state : await readBranchState(db, startRepo, startBranch ? [branchRef(startBranch)] : []);
  const targetRefs = state.tips;
  const startRefs = startState.tips;
  const repoEmpty = !state.hasBranches;
  const startEmpty = !startState.hasBranches;

  // Commits::CreateService#validate!
  if (startSha !== null) {
    if (input.startBranch) fail("You can't pass both start_branch and start_sha");
    if (!isOid(startSha)) fail(`Invalid start_sha '${startSha}'`);
  }
  if (startBranch && !startEmpty && !startRefs.get(branchRef(startBranch))) fail("You can only create or edit files when you are on a branch");
  const branchExists = targetRefs.has(targetRef);
  if (!repoEmpty && differentBranch && branchExists && !input.force) {
    fail(`A branch called '${input.branch}' already exists. Switch to that branch in order to make changes`);
  }
  if (differentBranch) {
    const problem = !isValidBranchName(input.branch) ? "Branch name is invalid" : branchExists && !input.force ? "Branch already exists" : null;
    if (problem) fail(`Something went wrong when we tried to create '${input.branch}' for you: ${problem}`);
  }
  // The first commit of an empty repository names its branch without GitLab validating it; git's
  // update-ref then refuses a bad name. Differs from GitLab: that error's wording is Gitaly's, this is ours.
  if (!differentBranch && !branchExists && !isValidBranchName(input.branch)) {
    fail(`Something went wrong when we tried to create '${input.branch}' for you: Branch name is invalid`);
  }
  let startShaTip: BranchTip | null = null;
  if (startSha !== null) {
    const rows = await db.execute<{ tree: string; generation: number }>(
      sql`SELECT tree, generation FROM git_commits WHERE pool_id = ${startRepo.poolId} AND oid = ${startSha}`,
    );
    if (rows.rows.length === 0) fail(`Cannot find start_sha '${startSha}'`);
    startShaTip = { target: startSha, peeled: null, tree: rows.rows[0].tree, generation: Number(rows.rows[0].generation) };
  }
  // Files::MultiService#validate!: last_commit_id of update, move and delete, on the start branch.
  for (const action of input.actions) {
    if (!action.lastCommitId || !["update", "move", "delete"].includes(action.action)) continue;
    const path = action.previousPath || action.filePath;
    if (startEmpty) continue;
    const last = await lastCommitForPath(db, startRepo, startBranch ? branchRef(startBranch) : startSha!, path);
    if (last && last !== action.lastCommitId) fail(`The file has changed since you started editing it: ${path}`);
  }

  const now = input.now ?? new Date();
  const committer = ident(input.committer, now);
  // Gitaly: author_name/author_email default to the committer's (each on its own).
  const author = ident({ name: input.authorName?.trim() || input.committer.name, email: input.authorEmail?.trim() || input.committer.email }, now);
  const touched = input.actions.flatMap((a) => [a.filePath, a.previousPath].filter((p): p is string => !!p)).map((p) => p.replace(/^\/+/, ""));

  for (let attempt = 1; ; attempt++) {
    // The start point: start_sha, else the start branch, else (an empty repository) nothing. On a
    // retry the refs are read again (the start branch is the target branch unless one was given).
    const names = [targetRef, ...(sameRepo && startBranch && startBranch !== input.branch ? [branchRef(startBranch)] : [])];
    const refsNow = attempt === 1 ? targetRefs : (await readBranchState(db, repo, names)).tips;
    const before = refsNow.get(targetRef)?.target ?? null;
    let start: BranchTip | null = startShaTip;
    if (!start && startBranch) start = (sameRepo && attempt > 1 ? refsNow : startRefs).get(branchRef(startBranch)) ?? null;
    const parent = start ? start.peeled ?? start.target : null;
    const parentTree = start?.tree ?? null;
    if (parent && !parentTree) fail(`Cannot find start_sha '${parent}'`);
    const knownParents = new Map(parent && start?.generation != null ? [[parent, { generation: start.generation, tree: parentTree! }]] : []);

    const objects: RawObject[] = [];
    const source = storeSource(db, repo.poolId);
    const tree = await WorkTree.load(source, parentTree, touched.map((p) => p.split("/").filter((s) => s && s !== ".").join("/")));
    await applyActions(tree, input.actions, objects);
    const treeOid = await tree.write(objects);
    const commit: Commit = {
      tree: treeOid,
      parents: parent ? [parent] : [],
      author,
      committer,
      extraHeaders: [],
      message: input.message,
    };
    const commitObj = await commitObject(commit);
    objects.push(commitObj);

    try {
      const row = await db.transaction(async (tx) => {
        await writeObjects(tx, repo.poolId, objects);
        const overlay = new Map(objects.map((o) => [o.oid, o]));
        const [indexed] = await indexCommits(tx, repo.poolId, [{ oid: commitObj.oid, commit }], storeSource(tx, repo.poolId, overlay), knownParents);
        const won = await compareAndSwapRef(tx, repo.projectId, targetRef, before, commitObj.oid);
        if (!won) throw new LostRace();
        await recordPushEvent(tx, { projectId: repo.projectId, ref: targetRef, before, after: commitObj.oid, userId: input.userId ?? null });
        // The first branch of an empty repository becomes its HEAD (Gitaly's FindDefaultBranchName), protected.
        if (repoEmpty) await initializeDefaultBranch(tx, repo.projectId, input.branch);
        return indexed;
      });
      return { ok: true, commit: row, branchCreated: before === null, before };
    } catch (error) {
      if (!(error instanceof LostRace)) throw error;
      // Differs from GitLab: its wording comes from Gitaly's reference transaction; we retry first.
      if (attempt >= CAS_ATTEMPTS) fail(`Could not update ${targetRef}. Please refresh and try again.`);
      // A short random pause spreads writers that lost the same race.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 15 * attempt));
    }
  }
}

/** Commits one file on an empty repository's default branch (`initialize_with_readme`). */
export async function createInitialCommit(
  db: Database,
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

