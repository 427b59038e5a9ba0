// Cherry-pick and revert (GIT.md §9): a three-way merge applied to a branch tip as one new commit.
// Only the paths the picked commit changed are looked at: for every other path the rule
// "base = theirs → take ours" keeps the branch's entry, so nothing else is read.
import { sql } from "drizzle-orm";
import type { GitCommitRow } from "../../../../db/schema";
import type { Database } from "../../../kernel/db";
import { indexCommits } from "../store/commit_index";
import { mergeBlobContents, resolvePath } from "../pure/merge";
import { blobObject, commitObject, decodeCommit, isTreeMode, MODE, type Commit, type RawObject } from "../pure/objects";
import { branchRef } from "../pure/refnames";
import { compareAndSwapRef, readRef, recordPushEvent } from "../store/refs";
import type { Repo } from "../store/revisions";
import { readObject, writeObjects } from "../store/objects";
import { diffTreePairs, storeSource, type FileEntry } from "../store/trees";
import { CAS_ATTEMPTS } from "./commit_files";
import { CommitFilesError, ident, WorkTree, type Person } from "./worktree";

export type PickKind = "cherry_pick" | "revert";

export type PickInput = {
  kind: PickKind;
  /** The commit to pick or revert (already resolved to a full id). */
  commit: string;
  branch: string;
  user: Person;
  userId?: number | null;
  dryRun?: boolean;
  /** Replaces the default message (GitLab 14.5+ `message`). */
  message?: string | null;
  now?: Date;
};

export type PickResult =
  | { ok: true; commit: GitCommitRow | null /* null on a dry run */ }
  | { ok: false; status: 400; message: string; errorCode: "empty" | "conflict" | null }
  | { ok: false; status: 404; message: string };

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

/** Commits::ChangeService's failure message. */
export function pickFailureMessage(kind: PickKind): string {
  const act = kind === "cherry_pick" ? "cherry-pick" : "revert";
  return `Sorry, we cannot ${act} this commit automatically. This commit may already have been ${act}ed, or a more recent commit may have updated some of its content.`;
}

class PickFailure extends Error {
  constructor(readonly errorCode: "empty" | "conflict") {
    super(errorCode);
  }
}
class Lost extends Error {}

/** Cherry-picks or reverts `input.commit` onto `input.branch` (Gitaly UserCherryPick / UserRevert). */
export async function pickCommit(db: Database, repo: Repo, input: PickInput): Promise<PickResult> {
  const picked = await db.execute<{ tree: string; parents: string[] }>(
    sql`SELECT tree, parents FROM git_commits WHERE pool_id = ${repo.poolId} AND oid = ${input.commit}`,
  );
  if (picked.rows.length === 0) return { ok: false, status: 404, message: "404 Commit Not Found" };
  const pickedTree = picked.rows[0].tree;
  const firstParent = picked.rows[0].parents[0] ?? null;
  const parentRows = firstParent
    ? await db.execute<{ tree: string }>(sql`SELECT tree FROM git_commits WHERE pool_id = ${repo.poolId} AND oid = ${firstParent}`)
    : null;
  const parentTree = parentRows?.rows[0]?.tree ?? null;
  // Cherry-pick: base = parent (mainline 1 for a merge), theirs = the commit. Revert: the reverse.
  const [baseTree, theirsTree] = input.kind === "cherry_pick" ? [parentTree, pickedTree] : [pickedTree, parentTree];
  const object = await readObject(db, repo.poolId, input.commit);
  const original = decodeCommit(object!.body);
  const ref = branchRef(input.branch);
  const source = storeSource(db, repo.poolId);
  const [changes] = await diffTreePairs(source, [{ oldRoot: baseTree, newRoot: theirsTree }], { renames: false });

  for (let attempt = 1; ; attempt++) {
    const tip = await readRef(db, repo.projectId, ref);
    if (!tip) return { ok: false, status: 404, message: "404 Branch Not Found" };
    const tipRow = await db.execute<{ tree: string }>(sql`SELECT tree FROM git_commits WHERE pool_id = ${repo.poolId} AND oid = ${tip.target}`);
    const oursTree = tipRow.rows[0].tree;
    try {
      const objects: RawObject[] = [];
      const tree = await WorkTree.load(source, oursTree, changes.map((c) => c.path));
      const contentMerges: { path: string; o: FileEntry; b: FileEntry; t: FileEntry; mode: string }[] = [];
      for (const change of changes) {
        const entryOf = (mode: string | null, oid: string | null): FileEntry | undefined => (mode && oid ? { path: change.path, mode, oid } : undefined);
        const b = entryOf(change.oldMode, change.oldOid);
        const t = entryOf(change.newMode, change.newOid);
        const current = tree.get(change.path);
        if (current && (isTreeMode(current.mode) || current.mode === MODE.submodule) && !(current.mode === MODE.submodule && b?.mode === MODE.submodule)) {
          throw new PickFailure("conflict"); // a directory where the commit changes a file
        }
        const o = current ? { path: change.path, mode: current.mode, oid: current.oid } : undefined;
        const resolution = resolvePath(o, b, t);
        if (resolution.kind === "conflict") throw new PickFailure("conflict");
        if (resolution.kind === "content") contentMerges.push({ path: change.path, o: o!, b: b!, t: t!, mode: resolution.mode });
        else applyEntry(tree, change.path, o, resolution.entry);
      }
      if (contentMerges.length) {
        const blobs = await source.blobs(contentMerges.flatMap((m) => [m.o.oid, m.b.oid, m.t.oid]));
        for (const m of contentMerges) {
          const merged = mergeBlobContents(blobs.get(m.o.oid)!, blobs.get(m.b.oid)!, blobs.get(m.t.oid)!);
          if (!merged) throw new PickFailure("conflict");
          const blob = await blobObject(merged);
          objects.push(blob);
          applyEntry(tree, m.path, m.o, { path: m.path, mode: m.mode, oid: blob.oid });
        }
      }
      const treeOid = await tree.write(objects);
      if (treeOid === oursTree) throw new PickFailure("empty");
      if (input.dryRun) return { ok: true, commit: null };

      const now = input.now ?? new Date();
      const commit: Commit = {
        tree: treeOid,
        parents: [tip.target],
        author: input.kind === "cherry_pick" ? original.author : ident(input.user, now),
        committer: ident(input.user, now),
        extraHeaders: [],
        message: input.message ?? pickMessage(input.kind, input.commit, original.message),
      };
      const commitObj = await commitObject(commit);
      objects.push(commitObj);
      const row = await db.transaction(async (tx) => {
        await writeObjects(tx, repo.poolId, objects);
        const overlay = new Map(objects.map((o) => [o.oid, o]));
        const [indexed] = await indexCommits(tx, repo.poolId, [{ oid: commitObj.oid, commit }], storeSource(tx, repo.poolId, overlay));
        if (!(await compareAndSwapRef(tx, repo.projectId, ref, tip.target, commitObj.oid))) throw new Lost();
        await recordPushEvent(tx, { projectId: repo.projectId, ref, before: tip.target, after: commitObj.oid, userId: input.userId ?? null });
        return indexed;
      });
      return { ok: true, commit: row };
    } catch (error) {
      // A path the work tree cannot take (a file where the branch has a directory on the way) conflicts.
      if (error instanceof CommitFilesError) return { ok: false, status: 400, message: pickFailureMessage(input.kind), errorCode: "conflict" };
      if (error instanceof PickFailure) return { ok: false, status: 400, message: pickFailureMessage(input.kind), errorCode: error.errorCode };
      if (!(error instanceof Lost)) throw error;
      // Differs from GitLab: Gitaly fails at once when the branch moved; we redo the merge on the new tip.
      if (attempt >= CAS_ATTEMPTS) return { ok: false, status: 400, message: `Could not update ${ref}. Please refresh and try again.`, errorCode: null };
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 15 * attempt));
    }
  }
}

/** Puts `entry` at `path` (or removes it) in the work tree, given what is there now. */
function applyEntry(tree: WorkTree, path: string, current: FileEntry | undefined, entry: FileEntry | undefined) {
  if (!entry) {
    if (current) tree.remove(path);
    return;
  }
  if (current && current.mode === entry.mode && current.oid === entry.oid) return;
  if (current) tree.set(path, { mode: entry.mode, oid: entry.oid });
  else tree.add(path, entry.mode, entry.oid);
}
