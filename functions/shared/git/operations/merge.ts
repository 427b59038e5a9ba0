// Merging a source branch into a target branch (merge requests): merge bases, the trial merge behind
// `merge_status`, and the merge itself (merge commit, semi-linear, fast-forward, squash) ending in the
// target ref's compare-and-swap (docs/git.md, "Principles", "Three-way merge"). Outcomes are typed; the merge_requests domain words them.
import type { GitCommitRow } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import type { Commit, RawObject } from "../pure/objects";
import { branchRef } from "../pure/refnames";
import { readCommitRows } from "../store/commit_index";
import { mergeBase } from "../store/compare";
import type { CommitSource } from "../store/loader";
import { RevWalk } from "../store/log";
import { commitTree } from "../store/read";
import { readRef, swapRefWithEvent } from "../store/refs";
import type { Repo } from "../store/revisions";
import { readPairTips } from "../store/state";
import type { PushRuleContext } from "../../push_rules";
import { CAS_ATTEMPTS } from "./commit_files";
import { addCommit, writeNewCommits, type NewCommits } from "./new_commits";
import { mergeTreeOids } from "./three_way";
import { ident, type Person } from "./worktree";

export type MergeMethod = "merge" | "rebase_merge" | "ff";

type Tip = { target: string; tree: string | null; generation: number | null };

/**
 * Where a merge request's branches live: the source branch in `source` (the project itself, or a
 * project of its fork network), the target branch in `target`. Refs are each project's own; objects
 * are read from and written to the target's pool, which the network shares (docs/git.md, "Tables").
 */
export type BranchPair = { source: Repo; target: Repo };

/** A repository alone is a merge request inside one project. */
export const pairOf = (repos: Repo | BranchPair): BranchPair => ("source" in repos ? repos : { source: repos, target: repos });

// ---------------------------------------------------------------------------------------------------
// Mergeability

/** What the trial merge found when both branches exist. */
export type Checked = {
  kind: "ok" | "no_commits" | "conflict";
  source: Tip;
  target: Tip;
  base: string | null;
  /** The merge base's tree (null without a merge base). */
  baseTree: string | null;
  /** The target is an ancestor of the source: a fast-forward is possible. */
  ffPossible: boolean;
  /** The merged tree (null on a conflict or without commits). */
  merged: { tree: string; objects: RawObject[] } | null;
  /** The history the merge base walk loaded (both tips down to the base), for `sourceCommitCount`. */
  history: CommitSource;
};

export type Mergeability = { kind: "source_missing" | "target_missing" } | Checked;

/**
 * What merging `source` into `target` would give (the trial merge behind `merge_status`). `tips`: the
 * two tips when the caller has read them already (`readPairTips`).
 */
export async function checkMergeability(
  db: Executor,
  repos: Repo | BranchPair,
  sourceBranch: string,
  targetBranch: string,
  tips?: { source: Tip | undefined; target: Tip | undefined },
): Promise<Mergeability> {
  const pair = pairOf(repos);
  const state = tips ?? (await readPairTips(db, pair, { sourceRef: branchRef(sourceBranch), targetRef: branchRef(targetBranch) }));
  return mergeabilityOf(db, pair.target, state.source, state.target);
}

/**
 * The trial merge: the merge base (one history walk, which also brings the base's tree), then the
 * three-way merge of the trees unless a fast-forward makes it the source's tree.
 */
async function mergeabilityOf(db: Executor, repo: Repo, source: Tip | undefined, target: Tip | undefined): Promise<Mergeability> {
  if (!source?.tree) return { kind: "source_missing" };
  if (!target?.tree) return { kind: "target_missing" };
  const walk = new RevWalk(db, repo.poolId, { batch: 1000 });
  const base = await mergeBase(db, repo, [target.target, source.target], walk);
  const history = walk.loader;
  const ffPossible = base === target.target;
  const baseTree = base === null ? null : ffPossible ? target.tree : base === source.target ? source.tree : (history.get(base)?.tree ?? (await commitTree(db, repo, base)));
  // `has_no_commits?`: everything on the source is already on the target.
  if (base === source.target) return { kind: "no_commits", source, target, base, baseTree, ffPossible, merged: null, history };
  const merged = ffPossible ? { tree: source.tree, objects: [] } : await mergeTreeOids(db, repo, { ours: target.tree, base: baseTree, theirs: source.tree });
  return { kind: merged ? "ok" : "conflict", source, target, base, baseTree, ffPossible, merged, history };
}

/**
 * The source's commits the target lacks (`git rev-list --count target..source`), walked over the
 * history the trial merge loaded: usually no statement.
 */
export async function sourceCommitCount(db: Executor, repo: Repo, check: Checked): Promise<number> {
  const walk = new RevWalk(db, repo.poolId, { loader: check.history });
  return (await walk.log({ kind: "tips", include: [check.source.target], exclude: [check.target.target] }, {})).length;
}

// ---------------------------------------------------------------------------------------------------
// Merging

export type MergeInput = {
  sourceBranch: string;
  targetBranch: string;
  /** The source head the caller saw (`sha`, else the diff head): a moved source fails. */
  expectedSource: string;
  method: MergeMethod;
  squash: boolean;
  mergeMessage: string;
  squashMessage: string;
  /** A squash of one commit with the default message keeps that commit (SquashService `squash_redundant?`). */
  squashMessageGiven: boolean;
  user: Person;
  /** The squash commit's author (the merge request's author, as Gitaly's UserSquash). */
  squashAuthor: Person;
  userId: number | null;
  removeSource: boolean;
  /**
   * The trial merge the caller already ran on the tips it read (`checkMergeability`): the first
   * attempt merges from it instead of reading and merging again.
   */
  checked?: Mergeability;
  /**
   * The target project's push rule, read by the caller with the tips (`readPairTips` with `pushRule`):
   * the squash and merge commits pass GitLab's pre-receive hook, as Gitaly's UserMergeBranch and
   * UserFFBranch run it. The commits the merge makes reachable were checked when they were pushed.
   */
  pushRule?: PushRuleContext | null;
  now?: Date;
};

export type MergeResult =
  | { ok: true; mergeCommitSha: string | null; squashCommitSha: string | null; targetSha: string; sourceRemoved: boolean; commit: GitCommitRow | null }
  | { ok: false; failure: "source_missing" | "target_missing" | "no_commits" | "conflict" | "needs_rebase" | "ref_moved" }
  | { ok: false; failure: "sha_mismatch"; head: string }
  /** Refused by the push rule (GitLab's pre-receive hook), in its words: nothing was written. */
  | { ok: false; failure: "push_rule"; message: string };

/** A merge commit (or the squash commit) made by `user` now. */
function commitBy(tree: string, parents: string[], author: Person, user: Person, message: string, now: Date): Commit {
  return { tree, parents, author: ident(author, now), committer: ident(user, now), extraHeaders: [], message };
}

/**
 * MergeRequests::MergeService / FfMergeService with SquashService: builds the squash commit and the
 * merge commit as the project's merge method says, then moves the target branch by compare-and-swap
 * (one statement with its push event); a lost swap redoes the merge on the new target head.
 */
export async function mergeBranches(db: Executor, repos: Repo | BranchPair, input: MergeInput): Promise<MergeResult> {
  const pair = pairOf(repos);
  const repo = pair.target;
  const sourceRef = branchRef(input.sourceBranch);
  const targetRef = branchRef(input.targetBranch);
  for (let attempt = 1; ; attempt++) {
    const check = attempt === 1 && input.checked ? input.checked : await checkMergeability(db, pair, input.sourceBranch, input.targetBranch);
    if (check.kind !== "ok") return { ok: false, failure: check.kind };
    const { source, target, base, ffPossible, merged } = check;
    // `should_be_rebased?`: semi-linear and fast-forward merges need the target inside the source.
    if (input.method !== "merge" && !ffPossible) return { ok: false, failure: "needs_rebase" };
    if (source.target !== input.expectedSource) return { ok: false, failure: "sha_mismatch", head: source.target };

    const now = input.now ?? new Date();
    const made: NewCommits = { objects: [...merged!.objects], commits: [] };
    let head = source.target;
    let squashSha: string | null = null;
    if (input.squash) {
      if ((await sourceCommitCount(db, repo, check)) > 1 || input.squashMessageGiven) {
        // Gitaly UserSquash: the source's tree on top of the merge base, authored by the MR's author.
        head = await addCommit(made, commitBy(source.tree!, base ? [base] : [], input.squashAuthor, input.user, input.squashMessage, now));
      }
      squashSha = head;
    }
    let mergeSha: string | null = null;
    let newTarget = head;
    if (input.method !== "ff") {
      mergeSha = newTarget = await addCommit(made, commitBy(merged!.tree, [target.target, head], input.user, input.user, input.mergeMessage, now));
    }

    let won: boolean;
    let commitRow: GitCommitRow | null = null;
    if (made.commits.length === 0) {
      won = await swapRefWithEvent(db, { projectId: repo.projectId, name: targetRef, oldTarget: target.target, newTarget, userId: input.userId });
    } else {
      const written = await writeNewCommits(db, repo, made, { ref: targetRef, before: target.target, after: newTarget, userId: input.userId, parents: [target, source], rule: input.pushRule });
      if (written.refused) return { ok: false, failure: "push_rule", message: written.refused };
      won = written.won;
      commitRow = written.commitRows.find((r) => r.oid === newTarget) ?? null;
    }
    if (won) {
      let sourceRemoved = false;
      if (input.removeSource) {
        // The source branch is removed where it lives (the fork, for a merge request from a fork).
        sourceRemoved = await swapRefWithEvent(db, { projectId: pair.source.projectId, name: sourceRef, oldTarget: source.target, newTarget: null, userId: input.userId });
      }
      return { ok: true, mergeCommitSha: mergeSha, squashCommitSha: squashSha, targetSha: newTarget, sourceRemoved, commit: commitRow };
    }
    // Differs from GitLab: Gitaly fails when the target moved under it; we merge again on the new head.
    if (attempt >= CAS_ATTEMPTS) return { ok: false, failure: "ref_moved" };
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 15 * attempt));
  }
}

/**
 * MergeRequests::MergeToRefService: the merge commit of source into target written to `ref`
 * (`refs/merge-requests/<iid>/merge`), whatever the merge method. Null when the merge conflicts or a
 * branch is missing.
 */
export async function mergeToRef(
  db: Executor,
  repos: Repo | BranchPair,
  input: { sourceBranch: string; targetBranch: string; ref: string; message: string; user: Person; userId: number | null; now?: Date },
): Promise<string | null> {
  const pair = pairOf(repos);
  // The ref is the target project's (`refs/merge-requests/<iid>/merge`).
  const repo = pair.target;
  for (let attempt = 1; attempt <= CAS_ATTEMPTS; attempt++) {
    const check = await checkMergeability(db, pair, input.sourceBranch, input.targetBranch);
    if (check.kind !== "ok") return null;
    const current = await readRef(db, repo.projectId, input.ref);
    // Still the merge of the current heads: keep it (its id would change with the commit time).
    if (current) {
      const row = (await readCommitRows(db, repo.poolId, [current.target])).get(current.target);
      if (row && row.parents.length === 2 && row.parents[0] === check.target.target && row.parents[1] === check.source.target) return current.target;
    }
    const made: NewCommits = { objects: [...check.merged!.objects], commits: [] };
    const now = input.now ?? new Date();
    const oid = await addCommit(made, commitBy(check.merged!.tree, [check.target.target, check.source.target], input.user, input.user, input.message, now));
    const { won } = await writeNewCommits(db, repo, made, { ref: input.ref, before: current?.target ?? null, after: oid, userId: input.userId, parents: [check.target, check.source] });
    if (won) return oid;
  }
  return null;
}
