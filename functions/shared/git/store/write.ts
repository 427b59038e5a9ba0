// One statement for a whole commit write (docs/git.md, "Principles", "Writing commits"): objects, the commit index rows, the ref
// compare-and-swap, its push event and, for the first branch of an empty repository, HEAD and the
// default branch's protection. Data-modifying CTEs all run; only the push event and the repository
// initialisation depend on the swap. A lost swap thus leaves unreachable objects and index rows,
// which are harmless (ON CONFLICT DO NOTHING, docs/git.md, "Principles"), and writes nothing else.
import { sql, type SQL } from "drizzle-orm";
import { gitCommitChanges, gitCommits, gitObjects, type GitCommitRow } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { ZERO_OID, type RawObject } from "../pure/objects";
import type { CommitChangeRow } from "./commit_index";
import { cacheStoredTrees, objectRows } from "./objects";

export type CommitWrite = {
  poolId: number;
  projectId: number;
  objects: RawObject[];
  commitRows: GitCommitRow[];
  changeRows: CommitChangeRow[];
  ref: string;
  /** The ref's expected target (null: must not exist). */
  before: string | null;
  after: string;
  userId: number | null;
  /** False for a repository without push events (a wiki); default true. */
  pushEvent?: boolean;
  /** Set when the repository was empty: this branch becomes HEAD and is protected. */
  initializeBranch?: string | null;
  /**
   * Creating the ref (`before` null) also requires that the project has no branch at all: set by a
   * writer that assumed an empty repository instead of reading it (a project created in this request).
   */
  requireNoBranches?: boolean;
};

/** Drizzle's transaction handles (PgTransaction) have `rollback`; the database handle has not. */
const isTransaction = (db: Executor) => typeof (db as { rollback?: unknown }).rollback === "function";

/** Maintainers push and merge: GitLab's full default-branch protection. */
const MAINTAINER = 40;

/** Writes everything and moves the ref in one statement. True when this writer won the swap. */
export async function writeCommitAndMoveRef(db: Executor, write: CommitWrite): Promise<boolean> {
  const parts: SQL[] = [];
  // Large blobs reach R2 here, before the statement that writes the rows pointing at them.
  const rows = await objectRows(write.poolId, write.objects);
  // Builders render their own INSERT … ON CONFLICT DO NOTHING; the db handle only builds SQL here.
  if (rows.length) parts.push(sql`o AS (${db.insert(gitObjects).values(rows).onConflictDoNothing().getSQL()})`);
  if (write.commitRows.length) parts.push(sql`c AS (${db.insert(gitCommits).values(write.commitRows).onConflictDoNothing().getSQL()})`);
  if (write.changeRows.length) parts.push(sql`ch AS (${db.insert(gitCommitChanges).values(write.changeRows).onConflictDoNothing().getSQL()})`);
  const { projectId, ref, before, after } = write;
  parts.push(
    before === null
      ? sql`swapped AS (INSERT INTO git_refs (project_id, name, target) SELECT ${projectId}, ${ref}, ${after}
              ${write.requireNoBranches ? sql`WHERE NOT EXISTS (SELECT 1 FROM git_refs b WHERE b.project_id = ${projectId} AND b.name LIKE 'refs/heads/%')` : sql``}
              ON CONFLICT DO NOTHING RETURNING name)`
      : sql`swapped AS (UPDATE git_refs SET target = ${after}, peeled = NULL, updated_at = now()
              WHERE project_id = ${projectId} AND name = ${ref} AND target = ${before} RETURNING name)`,
  );
  if (write.pushEvent !== false) {
    parts.push(sql`ev AS (INSERT INTO push_events (project_id, ref, before, after, user_id)
      SELECT ${projectId}, ${ref}, ${before ?? ZERO_OID}, ${after}, ${write.userId} FROM swapped)`);
  }
  if (write.initializeBranch) {
    parts.push(sql`p AS (UPDATE projects SET empty_repo = false, default_branch = ${write.initializeBranch}
      WHERE id = ${projectId} AND empty_repo = true AND EXISTS (SELECT 1 FROM swapped) RETURNING id)`);
    parts.push(sql`pb AS (INSERT INTO protected_branches (project_id, name) SELECT id, ${write.initializeBranch} FROM p ON CONFLICT DO NOTHING RETURNING id)`);
    parts.push(sql`pbl AS (INSERT INTO protected_branch_access_levels (protected_branch_id, action, access_level)
      SELECT pb.id, a.action, ${MAINTAINER} FROM pb, (VALUES ('push'), ('merge'), ('unprotect')) AS a(action))`);
  }
  const result = await db.execute<{ won: number }>(sql`WITH ${sql.join(parts, sql`, `)} SELECT count(*)::int AS won FROM swapped`);
  // The objects are stored whether or not the swap won (their CTE always runs), and outside a
  // transaction the statement has committed: its new trees join the isolate's tree cache. Inside one
  // (a caller's transaction may still roll back) they do not.
  if (!isTransaction(db)) cacheStoredTrees(write.poolId, write.objects);
  return Number(result.rows[0]?.won ?? 0) === 1;
}
