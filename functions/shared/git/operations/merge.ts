// Merging a source branch into a target branch (merge requests): merge bases, the trial merge behind
// `merge_status`, and the merge itself (merge commit, semi-linear, fast-forward, squash) ending in the
// target ref's compare-and-swap (GIT.md §1, §9). Outcomes are typed; the merge_requests domain words them.
import type { GitCommitRow } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { mergeBlobContents, resolvePath } from "../pure/merge";
import { blobObject, commitObject, isTreeMode, MODE, type Commit, type FileEntry, type RawObject } from "../pure/objects";
import { branchRef } from "../pure/refnames";
import { buildIndexRows, readCommitRows } from "../store/commit_index";
import { commitsBetween, mergeBase } from "../store/compare";
import { commitTree } from "../store/read";
import { readRef, swapRefWithEvent } from "../store/refs";
import type { Repo } from "../store/revisions";
import { diffTreePairs, storeSource } from "../store/trees";
import { writeCommitAndMoveRef } from "../store/write";
import { readPairTips } from "../store/state";
import { CAS_ATTEMPTS, type ProtectionRow } from "./commit_files";
import { CommitFailed } from "./failures";
import { ident, WorkTree, type Person } from "./worktree";

export type MergeMethod = "merge" | "rebase_merge" | "ff";

type Tip = { target: string; tree: string | null; generation: number | null };

/**
 * Where a merge request's branches live: the source branch in `source` (the project itself, or a
 * project of its fork network), the target branch in `target`. Refs are each project's own; objects
 * are read from and written to the target's pool, which the network shares (GIT.md §2).
 */
export type BranchPair = { source: Repo; target: Repo };

/** A repository alone is a merge request inside one project. */
export const pairOf = (repos: Repo | BranchPair): BranchPair => ("source" in repos ? repos : { source: repos, target: repos });

class Conflict extends Error {}

/**
 * Three-way merge of trees (GIT.md §9): the changes base → theirs applied onto ours, reading only the
 * trees along the changed paths. The merged root tree id and the new objects, or null on a conflict.
 */
export async function mergeTreeOids(
  db: Executor,
  repo: Repo,
  trees: { ours: string; base: string | null; theirs: string },
): Promise<{ tree: string; objects: RawObject[] } | null> {
  if (trees.base === trees.theirs) return { tree: trees.ours, objects: [] };
  if (trees.base === trees.ours) return { tree: trees.theirs, objects: [] };
  const source = storeSource(db, repo.poolId);
  const [changes] = await diffTreePairs(source, [{ oldRoot: trees.base, newRoot: trees.theirs }], { renames: false });
  try {
    const objects: RawObject[] = [];
    const tree = await WorkTree.load(source, trees.ours, changes.map((c) => c.path));
    const contentMerges: { path: string; o: FileEntry; b: FileEntry; t: FileEntry; mode: string }[] = [];
    for (const change of changes) {
      const entryOf = (mode: string | null, oid: string | null): FileEntry | undefined => (mode && oid ? { path: change.path, mode, oid } : undefined);
      const b = entryOf(change.oldMode, change.oldOid);
      const t = entryOf(change.newMode, change.newOid);
      const current = tree.get(change.path);
      // A directory (or a submodule) where the other side changes a file.
      if (current && (isTreeMode(current.mode) || current.mode === MODE.submodule) && !(current.mode === MODE.submodule && b?.mode === MODE.submodule)) throw new Conflict();
      const o = current ? { path: change.path, mode: current.mode, oid: current.oid } : undefined;
      const resolution = resolvePath(o, b, t);
      if (resolution.kind === "conflict") throw new Conflict();
      if (resolution.kind === "content") contentMerges.push({ path: change.path, o: o!, b: b!, t: t!, mode: resolution.mode });
      else applyEntry(tree, change.path, o, resolution.entry);
    }
    if (contentMerges.length) {
      const blobs = await source.blobs(contentMerges.flatMap((m) => [m.o.oid, m.b.oid, m.t.oid]));
      for (const m of contentMerges) {
        const merged = mergeBlobContents(blobs.get(m.o.oid)!, blobs.get(m.b.oid)!, blobs.get(m.t.oid)!);
        if (!merged) throw new Conflict();
        const blob = await blobObject(merged);
        objects.push(blob);
        applyEntry(tree, m.path, m.o, { path: m.path, mode: m.mode, oid: blob.oid });
      }
    }
    return { tree: await tree.write(objects), objects };
  } catch (error) {
    // A path the work tree cannot take (a file where the other side has a directory on the way).
    if (error instanceof Conflict || error instanceof CommitFailed) return null;
    throw error;
  }
}

function applyEntry(tree: WorkTree, path: string, current: FileEntry | undefined, entry: FileEntry | undefined) {
  if (!entry) {
    if (current) tree.remove(path);
    return;
  }
  if (current && current.mode === entry.mode && current.oid === entry.oid) return;
  if (current) tree.set(path, { mode: entry.mode, oid: entry.oid });
  else tree.add(path, entry.mode, entry.oid);
}

// ---------------------------------------------------------------------------------------------------
// Mergeability

export type Mergeability =
  | { kind: "source_missing" | "target_missing" }
  | {
      kind: "ok" | "no_commits" | "conflict";
      source: Tip;
      target: Tip;
      base: string | null;
      /** The target is an ancestor of the source: a fast-forward is possible. */
      ffPossible: boolean;
      /** The merged tree (null on a conflict or without commits). */
      merged: { tree: string; objects: RawObject[] } | null;
    };

const baseTree = (db: Executor, repo: Repo, base: string | null) => (base ? commitTree(db, repo, base) : Promise.resolve(null));

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

async function mergeabilityOf(db: Executor, repo: Repo, source: Tip | undefined, target: Tip | undefined): Promise<Mergeability> {
  if (!source?.tree) return { kind: "source_missing" };
  if (!target?.tree) return { kind: "target_missing" };
  const base = await mergeBase(db, repo, [target.target, source.target]);
  const ffPossible = base === target.target;
  // `has_no_commits?`: everything on the source is already on the target.
  if (base === source.target) return { kind: "no_commits", source, target, base, ffPossible, merged: null };
  const merged = ffPossible ? { tree: source.tree, objects: [] } : await mergeTreeOids(db, repo, { ours: target.tree, base: await baseTree(db, repo, base), theirs: source.tree });
  return { kind: merged ? "ok" : "conflict", source, target, base, ffPossible, merged };
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
  /** May the user merge into the target branch (protected branches)? Called with the project's protections. */
  mayMerge?: (protections: ProtectionRow[]) => boolean;
  now?: Date;
};

export type MergeResult =
  | { ok: true; mergeCommitSha: string | null; squashCommitSha: string | null; targetSha: string; sourceRemoved: boolean; commit: GitCommitRow | null }
  | { ok: false; failure: "source_missing" | "target_missing" | "no_commits" | "conflict" | "needs_rebase" | "forbidden" | "ref_moved" }
  | { ok: false; failure: "sha_mismatch"; head: string };

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
    const state = await readPairTips(db, pair, { sourceRef, targetRef }, attempt === 1 && !!input.mayMerge);
    if (attempt === 1 && input.mayMerge && !input.mayMerge(state.protections)) return { ok: false, failure: "forbidden" };
    const check = await mergeabilityOf(db, repo, state.source, state.target);
    if (check.kind !== "ok") return { ok: false, failure: check.kind };
    const { source, target, base, ffPossible, merged } = check;
    // `should_be_rebased?`: semi-linear and fast-forward merges need the target inside the source.
    if (input.method !== "merge" && !ffPossible) return { ok: false, failure: "needs_rebase" };
    if (source.target !== input.expectedSource) return { ok: false, failure: "sha_mismatch", head: source.target };

    const now = input.now ?? new Date();
    const objects: RawObject[] = [...merged!.objects];
    const commits: { oid: string; commit: Commit }[] = [];
    let head = source.target;
    let squashSha: string | null = null;
    if (input.squash) {
      const many = (await commitsBetween(db, repo, target.target, source.target)).length > 1;
      if (many || input.squashMessageGiven) {
        // Gitaly UserSquash: the source's tree on top of the merge base, authored by the MR's author.
        const squash: Commit = {
          tree: source.tree!,
          parents: base ? [base] : [],
          author: ident(input.squashAuthor, now),
          committer: ident(input.user, now),
          extraHeaders: [],
          message: input.squashMessage,
        };
        const obj = await commitObject(squash);
        objects.push(obj);
        commits.push({ oid: obj.oid, commit: squash });
        head = obj.oid;
      }
      squashSha = head;
    }
    let mergeSha: string | null = null;
    let newTarget = head;
    if (input.method !== "ff") {
      const mergeCommit: Commit = {
        tree: merged!.tree,
        parents: [target.target, head],
        author: ident(input.user, now),
        committer: ident(input.user, now),
        extraHeaders: [],
        message: input.mergeMessage,
      };
      const obj = await commitObject(mergeCommit);
      objects.push(obj);
      commits.push({ oid: obj.oid, commit: mergeCommit });
      mergeSha = newTarget = obj.oid;
    }

    let won: boolean;
    let commitRow: GitCommitRow | null = null;
    if (commits.length === 0) {
      won = await swapRefWithEvent(db, { projectId: repo.projectId, name: targetRef, oldTarget: target.target, newTarget, userId: input.userId });
    } else {
      const overlay = new Map(objects.map((o) => [o.oid, o]));
      const known = new Map<string, { generation: number; tree: string }>();
      if (target.generation !== null) known.set(target.target, { generation: target.generation, tree: target.tree! });
      if (source.generation !== null) known.set(source.target, { generation: source.generation, tree: source.tree! });
      const { commitRows, changeRows } = await buildIndexRows(db, repo.poolId, commits, storeSource(db, repo.poolId, overlay), known);
      commitRow = commitRows.find((r) => r.oid === newTarget) ?? null;
      won = await writeCommitAndMoveRef(db, {
        poolId: repo.poolId,
        projectId: repo.projectId,
        objects,
        commitRows,
        changeRows,
        ref: targetRef,
        before: target.target,
        after: newTarget,
        userId: input.userId,
      });
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
    const now = input.now ?? new Date();
    const commit: Commit = {
      tree: check.merged!.tree,
      parents: [check.target.target, check.source.target],
      author: ident(input.user, now),
      committer: ident(input.user, now),
      extraHeaders: [],
      message: input.message,
    };
    const current = await readRef(db, repo.projectId, input.ref);
    // Still the merge of the current heads: keep it (its id would change with the commit time).
    if (current) {
      const row = (await readCommitRows(db, repo.poolId, [current.target])).get(current.target);
      if (row && row.parents.length === 2 && row.parents[0] === check.target.target && row.parents[1] === check.source.target) return current.target;
    }
    const obj = await commitObject(commit);
    const objects = [...check.merged!.objects, obj];
    const known = new Map<string, { generation: number; tree: string }>();
    if (check.target.generation !== null) known.set(check.target.target, { generation: check.target.generation, tree: check.target.tree! });
    if (check.source.generation !== null) known.set(check.source.target, { generation: check.source.generation, tree: check.source.tree! });
    const { commitRows, changeRows } = await buildIndexRows(db, repo.poolId, [{ oid: obj.oid, commit }], storeSource(db, repo.poolId, new Map(objects.map((o) => [o.oid, o]))), known);
    const won = await writeCommitAndMoveRef(db, {
      poolId: repo.poolId,
      projectId: repo.projectId,
      objects,
      commitRows,
      changeRows,
      ref: input.ref,
      before: current?.target ?? null,
      after: obj.oid,
      userId: input.userId,
    });
    if (won) return obj.oid;
  }
  return null;
}
