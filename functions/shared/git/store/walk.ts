// The one recursive walk of the commit index (docs/git.md, "The commits list (git log)") that every history query builds on: counts,
// reachability, the log loader, the packs' commit sets and shallow fetches. No I/O: it writes SQL.
import { sql, type SQL } from "drizzle-orm";

export type CommitWalk = {
  /** Where the walk starts: a condition on `c`, a row of `git_commits`. */
  seeds: SQL;
  /** A condition on `c` every walked commit meets, the seeds too (a generation floor, an exclusion). */
  keep?: SQL;
  /** Columns after `oid, parents`, as expressions over `c`, in order. */
  columns?: [name: string, value: SQL][];
  /** The parents the walk follows, an expression over `c` (a graft); `c.parents` by default. */
  parents?: SQL;
  /** Follows the first parent only (`--first-parent`). */
  firstParent?: boolean;
};

/**
 * The recursive walk of the commit index as a CTE `name(oid, parents, …columns)` (written after `WITH
 * RECURSIVE`): the seeds, then the parents of every walked commit while `keep` holds. UNION keeps each
 * commit once where histories join. `name` is a constant of the caller's, never input.
 */
export function commitWalk(name: string, poolId: number, walk: CommitWalk): SQL {
  const self = sql.raw(name);
  const columns = walk.columns ?? [];
  const names = sql.raw(["oid", "parents", ...columns.map(([column]) => column)].join(", "));
  const select = sql.join([sql`c.oid`, walk.parents ?? sql`c.parents`, ...columns.map(([, value]) => value)], sql`, `);
  const keep = walk.keep ?? sql`true`;
  const step = walk.firstParent
    ? sql`JOIN git_commits c ON c.pool_id = ${poolId} AND c.oid = w.parents[1]::char(40)`
    : sql`CROSS JOIN LATERAL unnest(w.parents) AS p(oid)
        JOIN git_commits c ON c.pool_id = ${poolId} AND c.oid = p.oid::char(40)`;
  return sql`${self}(${names}) AS (
      SELECT ${select} FROM git_commits c WHERE c.pool_id = ${poolId} AND (${walk.seeds}) AND (${keep})
      UNION
      SELECT ${select} FROM ${self} w
        ${step}
       WHERE ${keep}
    )`;
}
