// Rebase (Gitaly UserRebaseConfirmable, docs/git.md, "Three-way merge"): the source branch's own commits replayed one after
// the other onto the target's tip, each a pick (operations/three_way.ts `applyChanges`), then the source
// ref moved by compare-and-swap. Merge commits are dropped and commits that become empty are skipped,
// as `git rebase` does.
import type { Executor } from "../../../kernel/db";
import { commitObject, type Commit, type RawObject } from "../pure/objects";
import { branchRef } from "../pure/refnames";
import { commitsBetween, mergeBase } from "../store/compare";
import type { Repo } from "../store/revisions";
import { diffTreePairs, storeSource } from "../store/trees";
import { readPairTips } from "../store/state";
import { pairOf, type BranchPair } from "./merge";
import { writeNewCommits } from "./new_commits";
import { readPicked } from "./pick";
import { applyChanges } from "./three_way";
import { ident, type Person } from "./worktree";

export type RebaseResult =
  | { ok: true; head: string; rebased: boolean }
  | { ok: false; failure: "source_not_found" | "target_not_found" | "conflict" | "ref_moved" }
  /** Refused by the source project's push rule (GitLab's pre-receive hook on the rebased commits). */
  | { ok: false; failure: "push_rule"; message: string };

/**
 * Rebases `sourceBranch` onto `targetBranch`. Reads: both tips with the source project's push rule (one
 * statement), the commits to replay, then per commit its object and the trees along its changed paths;
 * the push rule check on the rebased commits (new_commits.ts), one write statement at the end.
 * Nothing is written on a conflict or a refusal. A branch already on the target's tip is left alone.
 */
export async function rebaseBranch(
  db: Executor,
  repos: Repo | BranchPair,
  input: { sourceBranch: string; targetBranch: string; user: Person; userId: number | null; now?: Date },
): Promise<RebaseResult> {
  const pair = pairOf(repos);
  // Objects come from and go to the shared pool; the moved ref is the source project's.
  const repo = pair.target;
  const sourceRef = branchRef(input.sourceBranch);
  const pushRule = input.userId ? { side: "source" as const, userId: input.userId, authorEmails: [input.user.email] } : undefined;
  const { source, target, pushRule: rule } = await readPairTips(db, pair, { sourceRef, targetRef: branchRef(input.targetBranch) }, { pushRule });
  if (!source) return { ok: false, failure: "source_not_found" };
  if (!target || !target.tree) return { ok: false, failure: "target_not_found" };
  // `git rebase` on a branch that already contains the target's tip: "Current branch is up to date".
  if ((await mergeBase(db, repo, [source.target, target.target])) === target.target) return { ok: true, head: source.target, rebased: false };
  const commits = (await commitsBetween(db, repo, target.target, source.target)).filter((row) => row.parents.length <= 1);
  const overlay = new Map<string, RawObject>();
  const objects = storeSource(db, repo.poolId, overlay);
  const now = input.now ?? new Date();
  const rebased: { oid: string; commit: Commit }[] = [];
  const toWrite: RawObject[] = [];
  let head = target.target;
  let headTree = target.tree;
  for (const row of commits) {
    const picked = await readPicked(db, repo, row.oid);
    if (!picked) return { ok: false, failure: "conflict" };
    const [changes] = await diffTreePairs(objects, [{ oldRoot: picked.parentTree, newRoot: picked.tree }], { renames: false });
    const applied = await applyChanges(objects, headTree, changes);
    if (!applied) return { ok: false, failure: "conflict" };
    if (applied.tree === headTree) continue;
    const commit: Commit = { ...picked.commit, tree: applied.tree, parents: [head], committer: ident(input.user, now) };
    const object = await commitObject(commit);
    for (const o of [...applied.objects, object]) {
      overlay.set(o.oid, o);
      toWrite.push(o);
    }
    rebased.push({ oid: object.oid, commit });
    head = object.oid;
    headTree = applied.tree;
  }
  // A source behind the target with nothing of its own is fast-forwarded to the target's tip. The ref
  // is the source project's; the objects go to the pool the network shares.
  const written = await writeNewCommits(db, { ...pair.source, poolId: repo.poolId }, { objects: toWrite, commits: rebased }, {
    ref: sourceRef,
    before: source.target,
    after: head,
    userId: input.userId,
    parents: [target],
    rule,
  });
  if (written.refused) return { ok: false, failure: "push_rule", message: written.refused };
  return written.won ? { ok: true, head, rebased: true } : { ok: false, failure: "ref_moved" };
}
