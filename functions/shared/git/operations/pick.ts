// Cherry-pick and revert (docs/git.md, "Three-way merge"): a three-way merge applied to a branch tip as one new commit.
// Only the paths the picked commit changed are looked at: for every other path the rule
// "base = theirs → take ours" keeps the branch's entry, so nothing else is read.
import type { GitCommitRow } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { branchRef } from "../pure/refnames";
import { resolveRevisions, type Repo } from "../store/revisions";
import type { PushRuleContext } from "../../push_rules";
import { readRepoState, type PickedCommit, type ProtectionRow } from "../store/state";
import { diffTreePairs, lineCountKey, storeSource, type Change, type KnownLineCounts } from "../store/trees";
import { CAS_ATTEMPTS } from "./commit_files";
import { CommitFailed } from "./failures";
import { addCommit, writeNewCommits, type NewCommits } from "./new_commits";
import { applyChanges } from "./three_way";
import { ident, type Person } from "./worktree";

export type PickKind = "cherry_pick" | "revert";

export type PickInput = {
  kind: PickKind;
  /**
   * The commit to pick or revert, as a full id: a commit's, or a tag object's (peeled to its commit,
   * at the cost of a resolution only then).
   */
  commit: string;
  branch: string;
  user: Person;
  userId?: number | null;
  dryRun?: boolean;
  /** Replaces the default message (GitLab 14.5+ `message`). */
  message?: string | null;
  now?: Date;
  /** May the user push to the branch (see CommitFilesInput.mayPush)? */
  mayPush?: (protections: ProtectionRow[], context: { repoEmpty: boolean }) => boolean;
};

export type PickFailureKind = "empty" | "conflict";

export type PickResult =
  | { ok: true; commit: GitCommitRow | null /* null on a dry run */ }
  | {
      ok: false;
      failure:
        | { kind: PickFailureKind }
        | { kind: "ref_moved"; ref: string }
        | { kind: "branch_not_found" }
        | { kind: "commit_not_found" }
        | { kind: "forbidden" }
        /** Refused by the project's push rule (GitLab's pre-receive hook), in GitLab's words. */
        | { kind: "push_rule"; message: string };
    };

/**
 * `Commit#title` (app/models/commit.rb): the first line, `No commit message` when blank, and a line of
 * 100 characters or more cut at the last space within 81 characters with `...`.
 */
export function commitTitle(message: string): string {
  if (message.trim() === "") return "No commit message";
  const full = message.split(/[\r\n]/, 1)[0];
  const chars = Array.from(full); // Ruby counts characters, not UTF-16 units
  if (chars.length < 100) return full;
  // Rails String#truncate(81, separator: ' ', omission: '...'): cut at the last space at or before 78.
  const stop = 81 - 3;
  const cut = chars.lastIndexOf(" ", stop);
  return `${chars.slice(0, cut >= 0 ? cut : stop).join("")}...`;
}

/** `Commit#cherry_pick_message` / `Commit#revert_message` for a commit not from a merge request. */
export function pickMessage(kind: PickKind, oid: string, message: string): string {
  return kind === "cherry_pick" ? `${message}\n\n(cherry picked from commit ${oid})` : `Revert "${commitTitle(message).trim()}"\n\nThis reverts commit ${oid}`;
}

class PickFailure extends Error {
  constructor(readonly errorCode: PickFailureKind) {
    super(errorCode);
  }
}

/**
 * The picked commit's tree, first parent's tree and object, in one statement (null when the commit is
 * not in the pool).
 */
export async function readPicked(db: Executor, repo: Repo, oid: string): Promise<PickedCommit | null> {
  return (await readRepoState(db, repo, { names: [], commit: oid })).commit;
}

/**
 * The picked commit's stored line counts, as the new commit's changes that take them over will count:
 * a cherry-pick changes the same blob into the same blob; a revert the other way round, which counts
 * the same lines swapped (the line diff is minimal, pure/diff.ts `changeMarks`, so its counts are
 * symmetric). The index then reads no blob for those paths.
 */
function knownCounts(kind: PickKind, picked: PickedCommit): KnownLineCounts {
  const known: KnownLineCounts = new Map();
  for (const c of picked.counts) {
    const counts = { additions: c.additions, deletions: c.deletions, binary: c.binary };
    if (kind === "cherry_pick") known.set(lineCountKey(c.oldMode, c.oldOid, c.newMode, c.newOid), counts);
    else known.set(lineCountKey(c.newMode, c.newOid, c.oldMode, c.oldOid), { additions: counts.deletions, deletions: counts.additions, binary: counts.binary });
  }
  return known;
}

/**
 * Cherry-picks or reverts `input.commit` onto `input.branch` (Gitaly UserCherryPick / UserRevert).
 * Reads: the picked commit with the branch tip, the protections, the push rule, the root trees of the
 * three sides and the picked commit's line counts (one statement), the trees along the changed paths
 * below the roots, the blobs to merge and those to count that the picked commit's counts do not give;
 * then one write statement. A dry run moves no ref, so no pre-receive hook runs on it (Gitaly's dry run).
 */
export async function pickCommit(db: Executor, repo: Repo, input: PickInput): Promise<PickResult> {
  const ref = branchRef(input.branch);
  const source = storeSource(db, repo.poolId);
  let oid = input.commit;
  let picked: PickedCommit | null = null;
  let changes: Change[] = [];
  // The rule is read with the first state (the picked commit's author is asked about later, if needed).
  const pushRule = input.userId && !input.dryRun ? { userId: input.userId, authorEmails: [input.user.email] } : null;
  let rule: PushRuleContext | null = null;
  for (let attempt = 1; ; attempt++) {
    const first = attempt === 1;
    const state = await readRepoState(db, repo, { names: [ref], protections: first && !!input.mayPush, rootTrees: true, commit: picked ? null : oid, pushRule: rule ? null : pushRule });
    rule ??= state.pushRule;
    if (!picked) {
      if (!state.commit) {
        // Not a commit: a tag object's id peels to its commit (`git rev-parse <id>^{commit}`), read again.
        const peeled = (await resolveRevisions(db, repo, [oid])).get(oid);
        if (!peeled || peeled === oid) return { ok: false, failure: { kind: "commit_not_found" } };
        oid = peeled;
        attempt--;
        continue;
      }
      picked = state.commit;
      // Cherry-pick: base = parent (mainline 1 for a merge), theirs = the commit. Revert: the reverse.
      const [baseTree, theirsTree] = input.kind === "cherry_pick" ? [picked.parentTree, picked.tree] : [picked.tree, picked.parentTree];
      [changes] = await diffTreePairs(source, [{ oldRoot: baseTree, newRoot: theirsTree }], { renames: false });
    }
    const tip = state.tips.get(ref);
    if (!tip || !tip.tree) return { ok: false, failure: { kind: "branch_not_found" } };
    if (first && input.mayPush && !input.mayPush(state.protections, { repoEmpty: !state.hasBranches })) return { ok: false, failure: { kind: "forbidden" } };
    const oursTree = tip.tree;
    try {
      const applied = await applyChanges(source, oursTree, changes);
      if (!applied) throw new PickFailure("conflict");
      const { tree: treeOid, objects } = applied;
      if (treeOid === oursTree) throw new PickFailure("empty");
      if (input.dryRun) return { ok: true, commit: null };

      const now = input.now ?? new Date();
      const original = picked.commit;
      const made: NewCommits = { objects, commits: [] };
      const after = await addCommit(made, {
        tree: treeOid,
        parents: [tip.target],
        author: input.kind === "cherry_pick" ? original.author : ident(input.user, now),
        committer: ident(input.user, now),
        extraHeaders: [],
        message: input.message ?? pickMessage(input.kind, oid, original.message),
      });
      const written = await writeNewCommits(db, repo, made, { ref, before: tip.target, after, userId: input.userId ?? null, parents: [tip], counts: knownCounts(input.kind, picked), rule });
      if (written.refused) return { ok: false, failure: { kind: "push_rule", message: written.refused } };
      if (written.won) return { ok: true, commit: written.commitRows[0] };
    } catch (error) {
      // A path the work tree cannot take (a file where the branch has a directory on the way) conflicts.
      if (error instanceof CommitFailed) return { ok: false, failure: { kind: "conflict" } };
      if (error instanceof PickFailure) return { ok: false, failure: { kind: error.errorCode } };
      throw error;
    }
    // Differs from GitLab: Gitaly fails at once when the branch moved; we redo the merge on the new tip.
    if (attempt >= CAS_ATTEMPTS) return { ok: false, failure: { kind: "ref_moved", ref } };
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 15 * attempt));
  }
}
