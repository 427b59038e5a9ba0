// Reachability over the commit index (docs/git.md, "The commits list (git log)"): which tips reach a commit, and how many commits a
// commit reaches. Both are one recursive statement over `git_commits`; neither reads objects.
import { sql } from "drizzle-orm";
import type { Executor } from "../../../kernel/db";
import type { Repo } from "./revisions";
import { commitWalk } from "./walk";

/**
 * Which of `tips` reach `oid` (`git merge-base --is-ancestor oid tip` for each tip; a tip reaches
 * itself). One walk from all tips that never goes below the target's generation: a commit of lower
 * generation cannot have the target among its ancestors.
 */
export async function tipsReaching(db: Executor, repo: Repo, oid: string, tips: string[]): Promise<Set<string>> {
  const unique = [...new Set(tips)];
  if (unique.length === 0) return new Set();
  const walk = commitWalk("walk", repo.poolId, {
    seeds: sql`c.oid = ANY(${sql.param(unique)}::char(40)[])`,
    keep: sql`c.generation >= (SELECT generation FROM target)`,
  });
  const result = await db.execute<{ oid: string; parents: string[] }>(sql`
    WITH RECURSIVE target AS (
      SELECT generation FROM git_commits WHERE pool_id = ${repo.poolId} AND oid = ${oid}
    ), ${walk}
    SELECT oid, parents FROM walk`);
  // Which loaded commits reach the target: walk child edges back from it.
  const children = new Map<string, string[]>();
  for (const row of result.rows) for (const parent of row.parents) children.set(parent, [...(children.get(parent) ?? []), row.oid]);
  const reaches = new Set<string>([oid]);
  const stack = [oid];
  while (stack.length) {
    for (const child of children.get(stack.pop()!) ?? []) {
      if (!reaches.has(child)) {
        reaches.add(child);
        stack.push(child);
      }
    }
  }
  return new Set(unique.filter((tip) => reaches.has(tip)));
}

/**
 * `git rev-list --count <oid>` (`--first-parent` with `firstParent`): the commits `oid` reaches,
 * itself included. One recursive statement; UNION keeps each commit once where histories join.
 */
export async function countCommits(db: Executor, repo: Repo, oid: string, firstParent: boolean): Promise<number> {
  const walk = commitWalk("walk", repo.poolId, { seeds: sql`c.oid = ${oid}`, firstParent });
  const result = await db.execute<{ count: string | number }>(sql`WITH RECURSIVE ${walk} SELECT count(*) AS count FROM walk`);
  return Number(result.rows[0]?.count ?? 0);
}
