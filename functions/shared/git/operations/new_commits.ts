// The commits a merge, a squash, a cherry-pick, a revert or a rebase makes, and their one write: the
// push rule check GitLab's pre-receive hook makes on them (once, here, for every such write), then the
// objects, the commit index rows and the ref moved by compare-and-swap with its push event (store/write.ts).
import type { GitCommitRow } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { commitObject, type Commit, type RawObject } from "../pure/objects";
import { writeViolation, type PushRuleContext } from "../../push_rules";
import { buildIndexRows, type KnownLineCounts } from "../store/commit_index";
import { pushedChanges, pushedFiles } from "../store/pushed_files";
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
 * The push rule check, then the write: indexes `made` (reading only what is not known: the trees below
 * the roots, the blobs whose line counts are not given) and writes it with `ref` moved from `before` to
 * `after`, in one statement. `refused`: the rule's message (GitLab's pre-receive hook refusal), nothing
 * written; `won` is false when the ref moved meanwhile (nothing but harmless objects and rows written).
 * `rule`: the push rule context the caller read with its state (null or absent: no rule applies).
 */
export async function writeNewCommits(
  db: Executor,
  repo: Repo,
  made: NewCommits,
  move: { ref: string; before: string | null; after: string; userId: number | null; parents: KnownTip[]; counts?: KnownLineCounts; rule?: PushRuleContext | null },
): Promise<{ won: boolean; commitRows: GitCommitRow[]; refused: string | null }> {
  const overlay = storeSource(db, repo.poolId, new Map(made.objects.map((o) => [o.oid, o])));
  const refused = await newCommitsViolation(db, repo, made, move, overlay);
  if (refused) return { won: false, commitRows: [], refused };
  const known = new Map<string, { generation: number; tree: string }>();
  for (const tip of move.parents) if (tip.generation !== null && tip.tree) known.set(tip.target, { generation: tip.generation, tree: tip.tree });
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
  return { won, commitRows, refused: null };
}

/**
 * What GitLab's pre-receive hook says of the new commits (Gitaly's quarantined objects: only the commits
 * this write makes, not those it makes reachable) and the ref they move. Their files: each commit
 * against its first parent, and the blobs among the new objects with their sizes (a merged file's new
 * content; a squash or a plain merge brings none).
 */
async function newCommitsViolation(
  db: Executor,
  repo: Repo,
  made: NewCommits,
  move: { ref: string; before: string | null; after: string; rule?: PushRuleContext | null },
  source: ReturnType<typeof storeSource>,
): Promise<string | null> {
  if (!move.rule?.rule) return null;
  const sizes = new Map(made.objects.filter((o) => o.type === "blob").map((o) => [o.oid, o.body.length]));
  const changes = pushedChanges(db, repo.poolId, made.commits, source);
  return writeViolation(db, move.rule, {
    ref: { ref: move.ref, before: move.before, after: move.after },
    commits: made.commits.map(({ commit }) => ({ message: commit.message, authorEmail: commit.author.email, committerEmail: commit.committer.email })),
    files: async () => pushedFiles(await changes(), sizes),
  });
}
