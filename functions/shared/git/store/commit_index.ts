// The commit index (docs/git.md, "Tables", "Principles" 4): computed once per commit at write time: the row with
// parents, dates and generation, and the changed paths against the first parent with line counts.
import { sql } from "drizzle-orm";
import { gitCommitChanges, gitCommits, type GitCommitRow } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { tzMinutes, type Commit } from "../pure/objects";
import { generations, topoOrder } from "../pure/graph";
import { countChanges, diffTreePairs, type KnownLineCounts, type ObjectSource } from "./trees";

export type { KnownLineCounts } from "./trees";

export type { CommitToIndex } from "../pure/graph";
import type { CommitToIndex } from "../pure/graph";

const ROW_CHUNK = 400;

/** Postgres text cannot hold NUL; git messages practically never do. */
const pgText = (text: string) => text.replace(/\0/g, "\uFFFD");

/** Parent rows already indexed: generation and tree (one statement). */
async function knownCommits(db: Executor, poolId: number, oids: string[]) {
  const out = new Map<string, { generation: number; tree: string }>();
  if (oids.length === 0) return out;
  const result = await db.execute<{ oid: string; generation: number; tree: string }>(
    sql`SELECT oid, generation, tree FROM git_commits WHERE pool_id = ${poolId} AND oid = ANY(${sql.param(oids)}::char(40)[])`,
  );
  for (const row of result.rows) out.set(row.oid, { generation: Number(row.generation), tree: row.tree });
  return out;
}

/**
 * Indexes commits whose objects are in the store (or in `source`'s overlay): `git_commits` rows with
 * generation numbers and stats, `git_commit_changes` rows. Idempotent (ON CONFLICT DO NOTHING).
 * Statements: one for known parents, one per tree depth, one for blobs, then the inserts. Returns
 * the commit rows in the order given.
 */
export async function indexCommits(
  db: Executor,
  poolId: number,
  commits: CommitToIndex[],
  source: ObjectSource,
  /** Parent rows the caller already read (generation and tree), to skip that statement. */
  parents: Map<string, { generation: number; tree: string }> = new Map(),
): Promise<GitCommitRow[]> {
  const { commitRows, changeRows } = await buildIndexRows(db, poolId, commits, source, parents);
  for (let i = 0; i < commitRows.length; i += ROW_CHUNK) {
    await db.insert(gitCommits).values(commitRows.slice(i, i + ROW_CHUNK)).onConflictDoNothing();
  }
  for (let i = 0; i < changeRows.length; i += ROW_CHUNK) {
    await db.insert(gitCommitChanges).values(changeRows.slice(i, i + ROW_CHUNK)).onConflictDoNothing();
  }
  return commitRows;
}

export type CommitChangeRow = typeof gitCommitChanges.$inferInsert;

/**
 * The index rows of `commits` (in the order given) without writing them: reads only (known parents,
 * trees per depth, blobs for line counts not `counts`), so a writer can put them in its single write
 * statement.
 */
export async function buildIndexRows(
  db: Executor,
  poolId: number,
  commits: CommitToIndex[],
  source: ObjectSource,
  parents: Map<string, { generation: number; tree: string }> = new Map(),
  /** Line counts the caller knows (`countChanges`): their blobs are not read. */
  counts?: KnownLineCounts,
): Promise<{ commitRows: GitCommitRow[]; changeRows: CommitChangeRow[] }> {
  if (commits.length === 0) return { commitRows: [], changeRows: [] };
  const ordered = topoOrder(commits);
  const inBatch = new Map(ordered.map((c) => [c.oid, c]));
  const outside = [...new Set(ordered.flatMap((c) => c.commit.parents).filter((p) => !inBatch.has(p) && !parents.has(p)))];
  const known = await knownCommits(db, poolId, outside);
  for (const [oid, row] of parents) known.set(oid, row);

  const generation = generations(ordered, (oid) => known.get(oid)?.generation);

  const treeOf = (oid: string) => inBatch.get(oid)?.commit.tree ?? known.get(oid)?.tree ?? null;
  const pairs = ordered.map(({ commit }) => ({
    oldRoot: commit.parents.length ? treeOf(commit.parents[0]) : null,
    newRoot: commit.tree,
  }));
  const changes = await countChanges(source, await diffTreePairs(source, pairs), counts);

  const commitRows: GitCommitRow[] = [];
  const changeRows: CommitChangeRow[] = [];
  ordered.forEach(({ oid, commit }, i) => {
    let additions = 0;
    let deletions = 0;
    for (const change of changes[i]) {
      if (!change.binary) {
        additions += change.additions;
        deletions += change.deletions;
      }
      changeRows.push({
        poolId,
        commitOid: oid,
        path: change.path,
        oldPath: change.oldPath,
        status: change.status,
        oldMode: change.oldMode ? parseInt(change.oldMode, 8) : null,
        newMode: change.newMode ? parseInt(change.newMode, 8) : null,
        oldOid: change.oldOid,
        newOid: change.newOid,
        additions: change.additions,
        deletions: change.deletions,
        binary: change.binary,
      });
    }
    commitRows.push({
      poolId,
      oid,
      tree: commit.tree,
      parents: commit.parents,
      generation: generation.get(oid)!,
      authorName: pgText(commit.author.name),
      authorEmail: pgText(commit.author.email),
      authoredAt: new Date(commit.author.time * 1000),
      authorTz: tzMinutes(commit.author.tz),
      committerName: pgText(commit.committer.name),
      committerEmail: pgText(commit.committer.email),
      committedAt: new Date(commit.committer.time * 1000),
      committerTz: tzMinutes(commit.committer.tz),
      message: pgText(commit.message),
      additions,
      deletions,
      filesChanged: changes[i].length,
      changesIndexed: true,
    });
  });
  // In the order given, for the caller.
  const byOid = new Map(commitRows.map((row) => [row.oid, row]));
  return { commitRows: commits.map((c) => byOid.get(c.oid)!), changeRows };
}

/** Full commit rows by id (one statement), for presenting a page of commits. */
export async function readCommitRows(db: Executor, poolId: number, oids: string[]): Promise<Map<string, GitCommitRow>> {
  const out = new Map<string, GitCommitRow>();
  if (oids.length === 0) return out;
  const rows = await db
    .select()
    .from(gitCommits)
    .where(sql`${gitCommits.poolId} = ${poolId} AND ${gitCommits.oid} = ANY(${sql.param(oids)}::char(40)[])`);
  for (const row of rows) out.set(row.oid, row);
  return out;
}

/** The changed paths of one commit against its first parent, in path order. */
export async function readCommitChanges(db: Executor, poolId: number, oid: string) {
  const rows = await db
    .select()
    .from(gitCommitChanges)
    .where(sql`${gitCommitChanges.poolId} = ${poolId} AND ${gitCommitChanges.commitOid} = ${oid}`);
  return rows;
}
