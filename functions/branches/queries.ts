// Reads and writes of the branches domain that the git core does not already offer: all branch tips
// with their commit dates (to sort and filter in memory, as Gitaly's FindLocalBranches does), whether
// tips are merged into the default branch, and `empty_repo` after the last branch goes.
import { and, eq, like, sql } from "drizzle-orm";
import { gitCommits, gitRefs, projects } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { commitWalk, type Repo } from "../shared/git";

export type BranchTip = { name: string; target: string; committedAt: Date | null };

/** Every branch of the project with its tip's committer date (null if the tip is not indexed). One statement. */
export async function listBranchTips(db: Executor, repo: Repo): Promise<BranchTip[]> {
  const rows = await db
    .select({ name: gitRefs.name, target: gitRefs.target, committedAt: gitCommits.committedAt })
    .from(gitRefs)
    .leftJoin(gitCommits, and(eq(gitCommits.poolId, repo.poolId), eq(gitCommits.oid, gitRefs.target)))
    .where(and(eq(gitRefs.projectId, repo.projectId), like(gitRefs.name, "refs/heads/%")));
  return rows.map((row) => ({ name: row.name.slice("refs/heads/".length), target: row.target, committedAt: row.committedAt }));
}

// Whether a commit reaches another never changes (a commit names its parents by their hashes), so
// each answer is kept for the isolate's life, as the decoded trees are (shared/git store/objects.ts):
// `merged` of a branch list then walks the history once per default-branch tip instead of on every
// request. GitLab keeps `merged_branch_names` in its repository cache for the same reason. Keys:
// `<head oid>:<tip oid>`; the oldest go first past the limit.
const REACHES_LIMIT = 20_000;
const reaches = new Map<string, boolean>();

/** Empties the reachability cache (tests measure cold reads). */
export function clearReachabilityCache() {
  reaches.clear();
}

/**
 * The tips among `tips` that `head` reaches (its ancestors, itself included). One recursive walk from
 * `head` that never goes below the lowest generation of the tips not answered before: a commit cannot
 * reach a commit of a higher generation (docs/git.md, "Tables"); no statement when all were.
 */
export async function reachableFrom(db: Executor, repo: Repo, head: string, tips: { oid: string; generation: number }[]): Promise<Set<string>> {
  const out = new Set<string>();
  const unknown = tips.filter((t) => {
    const known = reaches.get(`${head}:${t.oid}`);
    if (known) out.add(t.oid);
    return known === undefined;
  });
  if (unknown.length === 0) return out;
  const floor = Math.min(...unknown.map((t) => t.generation));
  const walk = commitWalk("walk", repo.poolId, { seeds: sql`c.oid = ${head}`, keep: sql`c.generation >= ${floor}` });
  const result = await db.execute<{ oid: string }>(sql`
    WITH RECURSIVE ${walk}
    SELECT oid FROM walk WHERE oid = ANY(${sql.param(unknown.map((t) => t.oid))}::char(40)[])`);
  const found = new Set(result.rows.map((row) => row.oid));
  for (const t of unknown) {
    if (found.has(t.oid)) out.add(t.oid);
    if (reaches.size >= REACHES_LIMIT) reaches.delete(reaches.keys().next().value!);
    reaches.set(`${head}:${t.oid}`, found.has(t.oid));
  }
  return out;
}

/**
 * `empty_repo` is GitLab's `repository.empty?` (no branch): set it back once no branch is left. The
 * condition is checked in the same statement, so a branch created meanwhile keeps the flag false.
 */
export async function markEmptyWithoutBranches(db: Executor, projectId: number): Promise<void> {
  await db
    .update(projects)
    .set({ emptyRepo: true })
    .where(
      and(
        eq(projects.id, projectId),
        sql`NOT EXISTS (SELECT 1 FROM git_refs r WHERE r.project_id = ${projectId} AND r.name LIKE 'refs/heads/%')`,
      ),
    );
}

/** The row type routes name (routes never import db/schema). */
export type { GitCommitRow } from "../../db/schema";
