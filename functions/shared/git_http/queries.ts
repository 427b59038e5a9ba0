// SQL of git over HTTP: the Basic credential, the commit walk of a fetch, object rows for packs, and
// the bulk writes of a push. Objects are addressed by pool, refs by project (GIT.md §2).
import { and, eq, inArray, sql } from "drizzle-orm";
import { ciBuilds, gitObjects, personalAccessTokens, projects, users, type PersonalAccessToken, type User } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { storedRow } from "../git";

const byteaHex = (oid: string) => `\\x${oid}`;

function rowBytes(value: Uint8Array | string): Uint8Array {
  if (typeof value !== "string") return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  const hex = value.startsWith("\\x") ? value.slice(2) : value;
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]];
  return out;
}

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

export type WalkedCommit = { oid: string; tree: string; parents: string[] };

/**
 * The commits reachable from `wants` and not from `haves` (one statement: both walks are recursive
 * CTEs over the commit index), and the trees of the excluded commits at the edge of that set.
 */
export async function walkCommits(db: Executor, poolId: number, wants: string[], haves: string[]): Promise<{ commits: WalkedCommit[]; edgeTrees: string[] }> {
  if (wants.length === 0) return { commits: [], edgeTrees: [] };
  const result = await db.execute<{ oid: string; tree: string; parents: string[]; edge: boolean }>(sql`
    WITH RECURSIVE
    excluded(oid, parents) AS (
      SELECT c.oid, c.parents FROM git_commits c
       WHERE c.pool_id = ${poolId} AND c.oid = ANY(${sql.param(haves)}::char(40)[])
      UNION
      SELECT c.oid, c.parents FROM excluded e
        CROSS JOIN LATERAL unnest(e.parents) AS p(oid)
        JOIN git_commits c ON c.pool_id = ${poolId} AND c.oid = p.oid::char(40)
    ),
    walk(oid, parents, tree) AS (
      SELECT c.oid, c.parents, c.tree FROM git_commits c
       WHERE c.pool_id = ${poolId} AND c.oid = ANY(${sql.param(wants)}::char(40)[])
         AND c.oid NOT IN (SELECT oid FROM excluded)
      UNION
      SELECT c.oid, c.parents, c.tree FROM walk w
        CROSS JOIN LATERAL unnest(w.parents) AS p(oid)
        JOIN git_commits c ON c.pool_id = ${poolId} AND c.oid = p.oid::char(40)
       WHERE c.oid NOT IN (SELECT oid FROM excluded)
    ),
    edges AS (
      SELECT DISTINCT p.oid::char(40) AS oid FROM walk w CROSS JOIN LATERAL unnest(w.parents) AS p(oid)
       WHERE p.oid::char(40) IN (SELECT oid FROM excluded)
    )
    SELECT w.oid, w.tree, w.parents, false AS edge FROM walk w
    UNION ALL
    SELECT c.oid, c.tree, c.parents, true AS edge FROM edges e JOIN git_commits c ON c.pool_id = ${poolId} AND c.oid = e.oid`);
  const commits: WalkedCommit[] = [];
  const edgeTrees: string[] = [];
  for (const row of result.rows) {
    if (row.edge) edgeTrees.push(row.tree);
    else commits.push({ oid: row.oid, tree: row.tree, parents: row.parents });
  }
  return { commits, edgeTrees };
}

/** Which of `oids` are commits of the pool (one statement). */
export async function knownCommits(db: Executor, poolId: number, oids: string[]): Promise<Set<string>> {
  if (oids.length === 0) return new Set();
  const result = await db.execute<{ oid: string }>(
    sql`SELECT oid FROM git_commits WHERE pool_id = ${poolId} AND oid = ANY(${sql.param(oids)}::char(40)[])`,
  );
  return new Set(result.rows.map((r) => r.oid));
}

export type PackRow = { oid: string; type: number; size: number; zdata: Uint8Array | null; r2Key: string | null };

/** Stored rows (type, size, zlib body) of `oids`, one statement; absent ids are missing from the map. */
export async function readPackRows(db: Executor, poolId: number, oids: string[]): Promise<Map<string, PackRow>> {
  const out = new Map<string, PackRow>();
  if (oids.length === 0) return out;
  const result = await db.execute<{ oid: Uint8Array | string; type: number; size: number; zdata: Uint8Array | string | null; r2_key: string | null }>(
    sql`SELECT oid, type, size, zdata, r2_key FROM git_objects WHERE pool_id = ${poolId} AND oid = ANY(${sql.param(oids.map(byteaHex))}::bytea[])`,
  );
  for (const row of result.rows) {
    const oid = toHex(rowBytes(row.oid));
    out.set(oid, { oid, type: Number(row.type), size: Number(row.size), zdata: row.zdata === null ? null : rowBytes(row.zdata), r2Key: row.r2_key });
  }
  return out;
}

/** Types of the objects among `oids` that the pool holds (one statement). */
export async function objectTypes(db: Executor, poolId: number, oids: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (oids.length === 0) return out;
  const result = await db.execute<{ oid: Uint8Array | string; type: number }>(
    sql`SELECT oid, type FROM git_objects WHERE pool_id = ${poolId} AND oid = ANY(${sql.param(oids.map(byteaHex))}::bytea[])`,
  );
  for (const row of result.rows) out.set(toHex(rowBytes(row.oid)), Number(row.type));
  return out;
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
  const result = await db.execute<{ found: boolean }>(sql`
    WITH RECURSIVE target AS (
      SELECT generation FROM git_commits WHERE pool_id = ${poolId} AND oid = ${ancestor}
    ),
    walk(oid, parents) AS (
      SELECT c.oid, c.parents FROM git_commits c WHERE c.pool_id = ${poolId} AND c.oid = ${descendant}
      UNION
      SELECT c.oid, c.parents FROM walk w
        CROSS JOIN LATERAL unnest(w.parents) AS p(oid)
        JOIN git_commits c ON c.pool_id = ${poolId} AND c.oid = p.oid::char(40)
       WHERE c.generation >= (SELECT generation FROM target)
    )
    SELECT EXISTS (SELECT 1 FROM walk WHERE oid = ${ancestor}) AS found`);
  return result.rows[0]?.found === true;
}
