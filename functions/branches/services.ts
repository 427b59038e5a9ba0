// Branches::CreateService, Branches::ValidateNewService and Branches::DeleteService (GitLab 15.4). Each
// ref move is one compare-and-swap with its push event, in the git core's own transaction.
import type { GitCommitRow, User } from "../../db/schema";
import type { Database } from "../kernel/db";
import { apiError, checkUnmodifiedSince, notFound } from "../kernel/errors";
import {
  branchRef,
  createBranch,
  createInitialCommit,
  deleteRefWithEvent,
  isValidBranchName,
  readRef,
  readRefsWithCommits,
  resolveCommitRows,
  type Repo,
} from "../shared/git";
import { checkPush, type Caller } from "../shared/protected_branches/access";
import { newBranchViolation, pushRuleContext } from "../shared/push_rules";
import * as q from "./queries";

export type CreatedBranch = { repo: Repo; commit: GitCommitRow; head: GitCommitRow | null };

/**
 * `POST /projects/:id/repository/branches`: an empty repository first gets `README.md` (empty) on its
 * default branch, committed as "Add README.md" (`create_default_branch`); then the name is validated
 * (`Branch name is invalid`, `Branch already exists`), the ref resolved (`Invalid reference name: <ref>`)
 * and the protected-branch checks of a web push applied (`checkPush`), then the push rule's
 * `branch_name_regex` (`Branch name does not follow the pattern '<regex>'`).
 * Also returns the default branch's tip, which the entity's `merged` compares with.
 */
export async function createBranchFromRef(
  db: Database,
  repo: Repo,
  project: { emptyRepo: boolean },
  user: User,
  input: { branch: string; ref: string; caller: Caller },
): Promise<CreatedBranch> {
  if (project.emptyRepo) {
    const defaultBranch = repo.defaultBranch || "main";
    // A concurrent first commit makes this fail with "A file with this name already exists"; the
    // branch then exists either way, which is all that is needed here.
    await createInitialCommit(db, repo, {
      branch: defaultBranch,
      path: "README.md",
      content: "",
      message: "Add README.md",
      user: { name: user.name, email: user.email },
      userId: user.id,
    });
    repo = { ...repo, defaultBranch: repo.defaultBranch || defaultBranch };
  }
  if (!isValidBranchName(input.branch)) throw apiError("Branch name is invalid", 400);
  const resolved = await resolveCommitRows(db, repo, [input.ref, "HEAD"]);
  const target = resolved.get(input.ref) ?? null;
  if (!target) {
    // ValidateNewService runs before the ref is looked at: an existing name wins over a bad ref.
    if (await readRef(db, repo.projectId, branchRef(input.branch))) throw apiError("Branch already exists", 400);
    throw apiError(`Invalid reference name: ${input.ref}`, 400);
  }
  // Gitaly's UserCreateBranch runs the pre-receive hook with protocol `web`: Gitlab::Checks::BranchCheck
  // (protected branches), answered as `PreReceiveError#message`, 400.
  const [decision] = await checkPush(
    db,
    { id: repo.projectId, poolId: repo.poolId, emptyRepo: false, defaultBranch: repo.defaultBranch },
    input.caller,
    [{ ref: branchRef(input.branch), before: null, after: target.oid, forced: false }],
    { web: true },
  );
  if (!decision.allowed) {
    // ValidateNewService runs before the hook: an existing name wins over a refusal.
    if (await readRef(db, repo.projectId, branchRef(input.branch))) throw apiError("Branch already exists", 400);
    throw apiError(decision.message, 400);
  }
  // The same hook's push rule check (EE's BranchCheck): `branch_name_regex`, one statement.
  const broken = newBranchViolation((await pushRuleContext(db, repo.projectId, user.id, [])).rule, input.branch);
  if (broken) {
    if (await readRef(db, repo.projectId, branchRef(input.branch))) throw apiError("Branch already exists", 400);
    throw apiError(broken, 400);
  }
  if ((await createBranch(db, repo, { name: input.branch, target: target.oid, userId: user.id })) === "exists") {
    throw apiError("Branch already exists", 400);
  }
  return { repo, commit: target, head: resolved.get("HEAD") ?? null };
}

/** Attempts when the branch moves between reading and deleting it (Gitaly deletes whatever the tip is). */
const DELETE_ATTEMPTS = 3;

/**
 * `DELETE /projects/:id/repository/branches/:branch`: `404 Branch Not Found`, 412 when
 * `If-Unmodified-Since` is older than the tip's author date (`destroy_conditionally!`), and the push
 * rule `The default branch of a project cannot be deleted.` (Gitlab::Checks::BranchCheck).
 */
export async function deleteBranch(
  db: Database,
  repo: Repo,
  input: { name: string; userId: number; ifUnmodifiedSince: string | undefined },
): Promise<void> {
  const ref = branchRef(input.name);
  const defaultRef = repo.defaultBranch ? branchRef(repo.defaultBranch) : null;
  for (let attempt = 1; ; attempt++) {
    const refs = await readRefsWithCommits(db, repo, defaultRef ? [ref, defaultRef] : [ref]);
    const found = refs.get(ref);
    if (!found) throw notFound("Branch");
    if (attempt === 1) checkUnmodifiedSince(input.ifUnmodifiedSince, found.commit?.authoredAt ?? null);
    if (input.name === repo.defaultBranch) throw apiError("The default branch of a project cannot be deleted.", 400);
    const outcome = await deleteRefWithEvent(db, repo, { ref, expected: found.target, userId: input.userId });
    if (outcome === "deleted") {
      // The default branch cannot go, so while it exists the repository keeps a branch.
      if (!defaultRef || !refs.has(defaultRef)) await q.markEmptyWithoutBranches(db, repo.projectId);
      return;
    }
    if (attempt >= DELETE_ATTEMPTS) throw apiError("Failed to remove branch", 400);
  }
}
