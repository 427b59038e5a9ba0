// What a diff version holds, read from the git core: its commits (`merge_request_diff_commits`) and
// its file diffs (`merge_request_diff_files`). GitLab stores both when the version is made; here they
// are computed from the version's three commits, which the repository keeps.
import type { GitCommitRow } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { commitTree, diffTrees, readCommitRows, RevWalk, type FileDiff, type Repo } from "../shared/git";
import type { Version } from "./version_queries";

/** `Gitlab::Git::DiffCollection` limits (ApplicationSetting `diff_max_files`, `diff_max_lines`). */
export const DIFF_LIMITS = { maxFiles: 1000, maxLines: 50_000 };

/**
 * The version's commits, newest first (`relative_order` 0 is the head): `start..head`, the commits of
 * the source branch that the target did not have when the version was made.
 */
export async function versionCommits(db: Executor, repo: Repo, version: Version | null): Promise<GitCommitRow[]> {
  if (!version) return [];
  const walk = new RevWalk(db, repo.poolId, { batch: 1000 });
  const from = version.startCommitSha ?? version.baseCommitSha;
  const oids = await walk.log({ kind: "tips", include: [version.headCommitSha], exclude: from ? [from] : [] }, {});
  if (oids.length === 0) return [];
  const rows = await readCommitRows(db, repo.poolId, oids);
  return oids.map((oid) => rows.get(oid)).filter((row): row is GitCommitRow => !!row);
}

/** The version's file diffs: the merge base (the empty tree for unrelated histories) against the head. */
export async function versionDiffs(db: Executor, repo: Repo, version: Version | null): Promise<FileDiff[]> {
  if (!version) return [];
  const [baseTree, headTree] = await Promise.all([
    version.baseCommitSha ? commitTree(db, repo, version.baseCommitSha) : Promise.resolve(null),
    commitTree(db, repo, version.headCommitSha),
  ]);
  return diffTrees(db, repo, baseTree, headTree);
}

/**
 * `raw_diffs(limits: true)`: the diffs up to the collection's limits, and whether some were left out
 * (`overflow`). A file that would pass the line limit ends the collection, as DiffCollection does.
 */
export function limitDiffs(diffs: FileDiff[], limits = DIFF_LIMITS): { diffs: FileDiff[]; overflow: boolean } {
  let lines = 0;
  for (let i = 0; i < diffs.length; i++) {
    if (i >= limits.maxFiles) return { diffs: diffs.slice(0, i), overflow: true };
    lines += diffs[i].diff ? diffs[i].diff.split("\n").length - (diffs[i].diff.endsWith("\n") ? 1 : 0) : 0;
    if (lines > limits.maxLines) return { diffs: diffs.slice(0, i), overflow: true };
  }
  return { diffs, overflow: false };
}
