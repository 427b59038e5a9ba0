// Shallow fetches (upload-pack's `deepen <n>` and a shallow client's `shallow <oid>` lines), as git's
// upload-pack.c and shallow.c decide them, over the commit index in one statement:
// - the client's shallow commits are grafted parentless while finding what it has (pack-objects'
//   `--shallow`): the commits reachable from its haves, not going below its shallow boundary;
// - `deepen N` (get_shallow_commits): the commits at a smallest distance below N from the wants are
//   sent (the wants are at depth 1); those at depth exactly N are the new boundary (`shallow <oid>`,
//   unless the client already has them as shallow); a client shallow commit now above the boundary is
//   `unshallow <oid>` and its parents become wants (send_unshallow);
// - `deepen 2147483647` (`--unshallow`) on a complete repository: no boundary, every client shallow
//   commit is unshallowed (deepen with INFINITE_DEPTH).
import { sql } from "drizzle-orm";
import type { Executor } from "../../../kernel/db";
import { commitWalk } from "./walk";

/** git's INFINITE_DEPTH (`--unshallow` sends it as the depth). */
export const INFINITE_DEPTH = 0x7fffffff;

export type ShallowWalk = {
  /** Commits to send. */
  commits: { oid: string; tree: string; parents: string[] }[];
  /** Trees of commits the client has next to those sent (their objects need not be sent). */
  edgeTrees: string[];
  shallow: string[];
  unshallow: string[];
};

type Row = { oid: string; tree: string; parents: string[]; depth: number | null; excluded: boolean };

export type ShallowInput = { wants: string[]; haves: string[]; clientShallow: string[]; depth: number | null; relative?: boolean };

/**
 * `deepen-relative` (`git fetch --deepen N`) counts from the client's boundary instead of the wants: the
 * commits down to N below its shallow commits (get_shallow_commits from them with depth N + 1), together
 * with everything new the wants reach, as git's upload-pack sends them.
 */
export async function shallowWalk(db: Executor, poolId: number, input: ShallowInput): Promise<ShallowWalk> {
  if (!input.relative || input.depth === null || input.depth >= INFINITE_DEPTH) return walkOnce(db, poolId, input);
  const below = await walkOnce(db, poolId, { ...input, wants: input.clientShallow, depth: input.depth + 1 });
  const fresh = await walkOnce(db, poolId, { ...input, depth: null });
  const seen = new Set(below.commits.map((c) => c.oid));
  return {
    commits: [...below.commits, ...fresh.commits.filter((c) => !seen.has(c.oid))],
    edgeTrees: [...new Set([...below.edgeTrees, ...fresh.edgeTrees])],
    shallow: below.shallow,
    unshallow: below.unshallow,
  };
}

async function walkOnce(db: Executor, poolId: number, input: ShallowInput): Promise<ShallowWalk> {
  const clientShallow = [...new Set(input.clientShallow)];
  const graft = sql`CASE WHEN c.oid = ANY(${sql.param(clientShallow)}::char(40)[]) THEN '{}'::text[] ELSE c.parents END`;
  const excluded = commitWalk("excluded", poolId, { seeds: sql`c.oid = ANY(${sql.param(input.haves)}::char(40)[])`, parents: graft });
  const finite = input.depth !== null && input.depth < INFINITE_DEPTH;
  let rows: Row[];
  if (finite) {
    // Every (commit, depth) pair down to the depth, over the whole graph (get_shallow_commits ignores
    // the haves), then each commit at its smallest depth.
    const result = await db.execute<Row>(sql`
      WITH RECURSIVE ${excluded},
      walk(oid, depth) AS (
        SELECT c.oid, 1 FROM git_commits c WHERE c.pool_id = ${poolId} AND c.oid = ANY(${sql.param(input.wants)}::char(40)[])
        UNION
        SELECT c.oid, w.depth + 1 FROM walk w
          JOIN git_commits wc ON wc.pool_id = ${poolId} AND wc.oid = w.oid
          CROSS JOIN LATERAL unnest(wc.parents) AS p(oid)
          JOIN git_commits c ON c.pool_id = ${poolId} AND c.oid = p.oid::char(40)
         WHERE w.depth < ${input.depth}::int
      ),
      best AS (SELECT oid, min(depth) AS depth FROM walk GROUP BY oid)
      SELECT c.oid, c.tree, c.parents, b.depth, EXISTS (SELECT 1 FROM excluded e WHERE e.oid = c.oid) AS excluded
        FROM best b JOIN git_commits c ON c.pool_id = ${poolId} AND c.oid = b.oid`);
    rows = result.rows;
  } else {
    // No boundary: what the wants (and, when unshallowing, the parents of the client's shallow commits)
    // reach, stopping at what the client has.
    const unshallowing = input.depth !== null;
    const result = await db.execute<Row>(sql`
      WITH RECURSIVE ${excluded},
      seeds AS (
        SELECT unnest(${sql.param(input.wants)}::char(40)[]) AS oid
        UNION
        SELECT p.oid::char(40) FROM git_commits c CROSS JOIN LATERAL unnest(c.parents) AS p(oid)
         WHERE ${unshallowing}::boolean AND c.pool_id = ${poolId} AND c.oid = ANY(${sql.param(clientShallow)}::char(40)[])
      ),
      ${commitWalk("walk", poolId, {
        seeds: sql`c.oid IN (SELECT oid FROM seeds)`,
        keep: sql`c.oid NOT IN (SELECT oid FROM excluded)`,
        columns: [["tree", sql`c.tree`]],
      })},
      edges AS (
        SELECT DISTINCT p.oid::char(40) AS oid FROM walk w CROSS JOIN LATERAL unnest(w.parents) AS p(oid)
         WHERE p.oid::char(40) IN (SELECT oid FROM excluded)
        UNION
        SELECT oid FROM excluded WHERE ${unshallowing}::boolean AND oid = ANY(${sql.param(clientShallow)}::char(40)[])
      )
      SELECT w.oid, w.tree, w.parents, NULL::int AS depth, false AS excluded FROM walk w
      UNION ALL
      SELECT c.oid, c.tree, c.parents, NULL::int AS depth, true AS excluded FROM edges e JOIN git_commits c ON c.pool_id = ${poolId} AND c.oid = e.oid`);
    rows = result.rows;
  }

  const clientShallowSet = new Set(clientShallow);
  const byOid = new Map(rows.map((row) => [row.oid, row]));
  const commits = rows.filter((row) => !row.excluded).map(({ oid, tree, parents }) => ({ oid, tree, parents }));
  const edge = new Set<string>();
  if (finite) {
    // The client's commits next to those sent, and its unshallowed commits (it has their trees).
    for (const commit of commits) for (const parent of commit.parents) if (byOid.get(parent)?.excluded) edge.add(parent);
  }
  const shallow: string[] = [];
  const unshallow: string[] = [];
  if (finite) {
    for (const row of rows) if (Number(row.depth) === input.depth && !clientShallowSet.has(row.oid)) shallow.push(row.oid);
    for (const oid of clientShallow) {
      const row = byOid.get(oid);
      if (row && Number(row.depth) < input.depth!) {
        unshallow.push(oid);
        edge.add(oid);
      }
    }
  } else if (input.depth !== null) unshallow.push(...clientShallow);
  const edgeTrees = finite ? [...edge].map((oid) => byOid.get(oid)!.tree) : rows.filter((row) => row.excluded).map((row) => row.tree);
  return { commits, edgeTrees, shallow, unshallow };
}
