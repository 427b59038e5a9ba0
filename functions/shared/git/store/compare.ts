// Comparing revisions (Gitlab::Git::Compare, Gitlab::Git::MergeBase): merge bases, the commits of a
// range, and the diffs between two commits. Shared by `repository/compare`, `repository/merge_base`
// and merge requests.
import type { GitCommitRow } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { readCommitRows } from "./commit_index";
import { diffTrees, type FileDiff } from "./diffs";
import { RevWalk } from "./log";
import type { Repo } from "./revisions";
import type { Comparison } from "../../../entities/repository";

export type { Comparison };

/**
 * `git merge-base <first> <others…>` (Gitaly FindMergeBase): the best common ancestor of the first
 * commit and a hypothetical merge of the others, the newest when there are several; null when the
 * histories are unrelated.
 */
export async function mergeBase(db: Executor, repo: Repo, oids: string[], walk?: RevWalk): Promise<string | null> {
  if (oids.length < 2) return oids[0] ?? null;
  walk ??= new RevWalk(db, repo.poolId, { batch: 1000 });
  const [first, ...others] = oids;
  const bases = await walk.mergeBases(first, others);
  return bases[0] ?? null;
}

/** `git log --reverse <from>..<to>` (Gitaly CommitsBetween): oldest first. */
export async function commitsBetween(db: Executor, repo: Repo, from: string, to: string, walk?: RevWalk): Promise<GitCommitRow[]> {
  walk ??= new RevWalk(db, repo.poolId, { batch: 1000 });
  const oids = await walk.log({ kind: "tips", include: [to], exclude: [from] }, { reverse: true });
  if (oids.length === 0) return [];
  const rows = await readCommitRows(db, repo.poolId, oids);
  return oids.map((oid) => rows.get(oid)!).filter(Boolean);
}

/**
 * Gitlab::Git::Compare: the commits `from..to` and the diffs from `from` (`straight`) or from the merge
 * base of both (the default, `from...to`) to `to`. Unrelated histories diff against the empty tree.
 */
export async function compareCommits(db: Executor, repo: Repo, from: GitCommitRow, to: GitCommitRow, straight: boolean): Promise<Comparison> {
  if (from.oid === to.oid) return { from, to, commits: [], diffs: [], same: true };
  const walk = new RevWalk(db, repo.poolId, { batch: 1000 });
  // Merge bases first: the walk's log() comes last (RevWalk is built for one log after its bases).
  let baseTree: string | null = from.tree;
  if (!straight) {
    const base = await mergeBase(db, repo, [to.oid, from.oid], walk);
    if (base === null) baseTree = null;
    else if (base !== from.oid) baseTree = (await walk.commit(base))?.tree ?? null;
  }
  const commits = await commitsBetween(db, repo, from.oid, to.oid, walk);
  const diffs = await diffTrees(db, repo, baseTree, to.tree);
  return { from, to, commits, diffs, same: false };
}

/** The diffs a commit made against its first parent (a root commit: against the empty tree). */
export async function commitDiffs(db: Executor, repo: Repo, commit: GitCommitRow): Promise<FileDiff[]> {
  const parent = commit.parents[0];
  const parentTree = parent ? ((await readCommitRows(db, repo.poolId, [parent])).get(parent)?.tree ?? null) : null;
  return diffTrees(db, repo, parentTree, commit.tree);
}
