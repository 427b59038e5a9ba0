// The commits a merge, a cherry-pick or a revert makes, and their one write: the objects, the commit
// index rows and the ref moved by compare-and-swap with its push event (store/write.ts).
import type { GitCommitRow } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { commitObject, type Commit, type RawObject } from "../pure/objects";
import { buildIndexRows, type KnownLineCounts } from "../store/commit_index";
import type { Repo } from "../store/revisions";
import { storeSource } from "../store/trees";
import { writeCommitAndMoveRef } from "../store/write";

/** What an operation made so far: new objects (trees, blobs, commits) and the commits among them. */
export type NewCommits = { objects: RawObject[]; commits: { oid: string; commit: Commit }[] };

/** Encodes `commit` into `made` and returns its id. */
export async function addCommit(made: NewCommits, commit: Commit): Promise<string> {
  const obj = await commitObject(commit);
  made.objects.push(obj);
  made.commits.push({ oid: obj.oid, commit });
  return obj.oid;
}

/** A commit the new ones build on, with what the index would otherwise read of it. */
export type KnownTip = { target: string; tree: string | null; generation: number | null };

/**
 * Indexes `made` (reading only what is not known: the trees below the roots, the blobs whose line
 * counts are not given) and writes it with `ref` moved from `before` to `after`, in one statement.
 * `won` is false when the ref moved meanwhile (nothing but harmless objects and rows written).
 */
export async function writeNewCommits(
  db: Executor,
  repo: Repo,
  made: NewCommits,
  move: { ref: string; before: string | null; after: string; userId: number | null; parents: KnownTip[]; counts?: KnownLineCounts },
): Promise<{ won: boolean; commitRows: GitCommitRow[] }> {
  const known = new Map<string, { generation: number; tree: string }>();
  for (const tip of move.parents) if (tip.generation !== null && tip.tree) known.set(tip.target, { generation: tip.generation, tree: tip.tree });
  const overlay = storeSource(db, repo.poolId, new Map(made.objects.map((o) => [o.oid, o])));
  const { commitRows, changeRows } = await buildIndexRows(db, repo.poolId, made.commits, overlay, known, move.counts);
  const won = await writeCommitAndMoveRef(db, {
    poolId: repo.poolId,
    projectId: repo.projectId,
    objects: made.objects,
    commitRows,
    changeRows,
    ref: move.ref,
    before: move.before,
    after: move.after,
    userId: move.userId,
  });
  return { won, commitRows };
}
