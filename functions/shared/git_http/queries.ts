// SQL of git over HTTP: the Basic credential and the bulk writes of a push (the walks and object rows
// of a fetch are the git core's, shared/git/store/reachable.ts). Objects are addressed by pool, refs by
// project (docs/git.md, "Tables").
import { and, eq, inArray, sql } from "drizzle-orm";
import { ciBuilds, gitObjects, personalAccessTokens, projects, users, type PersonalAccessToken, type User } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { commitWalk, storedRow } from "../git";

/** The token (by SHA-256 digest) and its user, in one statement. */
export async function findTokenWithUser(db: Executor, digest: string): Promise<{ token: PersonalAccessToken; user: User } | null> {
  const rows = await db
    .select({ token: personalAccessTokens, user: users })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .where(eq(personalAccessTokens.tokenDigest, digest))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The job of a CI job token (by SHA-256 digest) while it runs, and the user it runs as, in one
 * statement (Ci::AuthJobFinder: a token is valid only while its job runs).
 */
export async function findRunningJobWithUser(db: Executor, digest: string): Promise<{ jobId: number; projectId: number; user: User | null } | null> {
  const rows = await db
    .select({ jobId: ciBuilds.id, projectId: ciBuilds.projectId, user: users })
    .from(ciBuilds)
    .leftJoin(users, eq(users.id, ciBuilds.userId))
    .where(and(eq(ciBuilds.tokenDigest, digest), inArray(ciBuilds.status, ["running", "canceling"])))
    .limit(1);
  return rows[0] ?? null;
}

/** Which of `oids` are commits of the pool (one statement). */
export async function knownCommits(db: Executor, poolId: number, oids: string[]): Promise<Set<string>> {
  if (oids.length === 0) return new Set();
  const result = await db.execute<{ oid: string }>(
    sql`SELECT oid FROM git_commits WHERE pool_id = ${poolId} AND oid = ANY(${sql.param(oids)}::char(40)[])`,
  );
  return new Set(result.rows.map((r) => r.oid));
}

export type ObjectWrite = { oid: string; type: number; size: number; zdata: Uint8Array };

/**
 * Inserts object rows that are not there yet, sorted by id (writers lock rows in one order). Blobs
 * over 1 MiB are put in R2 first (`storedRow`), so no row ever points at bytes R2 does not hold.
 */
export async function insertObjects(db: Executor, poolId: number, rows: ObjectWrite[]): Promise<void> {
  const sorted = [...rows].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
  for (let i = 0; i < sorted.length; i += 500) {
    const values = await Promise.all(sorted.slice(i, i + 500).map((row) => storedRow(poolId, row.oid, row.type, row.size, row.zdata)));
    await db.insert(gitObjects).values(values).onConflictDoNothing();
  }
}

/**
 * The first branch pushed to an empty repository becomes its HEAD (Gitaly's FindDefaultBranchName);
 * `AND empty_repo` leaves it to whichever writer got there first.
 */
export async function setFirstBranch(db: Executor, projectId: number, branch: string): Promise<void> {
  await db
    .update(projects)
    .set({ emptyRepo: false, defaultBranch: branch })
    .where(and(eq(projects.id, projectId), eq(projects.emptyRepo, true)));
}

/**
 * Whether `ancestor` is reachable from `descendant` (a fast-forward from one to the other): a walk of
 * the commit index from `descendant` that never goes below `ancestor`'s generation. One statement.
 */
export async function isAncestor(db: Executor, poolId: number, ancestor: string, descendant: string): Promise<boolean> {
  if (ancestor === descendant) return true;
  // The floor applies to `descendant` too: below `ancestor`'s generation it cannot reach it.
  const walk = commitWalk("walk", poolId, { seeds: sql`c.oid = ${descendant}`, keep: sql`c.generation >= (SELECT generation FROM target)` });
  const result = await db.execute<{ found: boolean }>(sql`
    WITH RECURSIVE target AS (
      SELECT generation FROM git_commits WHERE pool_id = ${poolId} AND oid = ${ancestor}
    ), ${walk}
    SELECT EXISTS (SELECT 1 FROM walk WHERE oid = ${ancestor}) AS found`);
  return result.rows[0]?.found === true;
}

/**
 * ProjectDailyStatisticsWorker: one more fetch for the project today (`GET /projects/:id/statistics`).
 * Differs from GitLab: counted once per pack sent, not per upload-pack request (protocol v2 makes two).
 */
export async function countFetch(db: Executor, projectId: number): Promise<void> {
  await db.execute(sql`INSERT INTO project_daily_statistics (project_id, date, fetch_count) VALUES (${projectId}, current_date, 1)
    ON CONFLICT (project_id, date) DO UPDATE SET fetch_count = project_daily_statistics.fetch_count + 1`);
}
