import { and, count, desc, eq, inArray, ne, sql } from "drizzle-orm";
import { ciPipelines, gitCommits, mergeRequestDiffs, projects, users } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Page } from "../kernel/pagination";
import { commitsBetween, type Repo } from "../shared/git";
import type { MergeRequestPipelineRow } from "../entities/merge_requests";

type Mr = { id: number; sourceProjectId: number; sourceBranch: string; sha: string | null };

/** Branch pipelines of the source project (`ci_branch_sources`: no child pipelines, no tags). */
const branchPipelines = (mr: Mr) =>
  and(eq(ciPipelines.projectId, mr.sourceProjectId), eq(ciPipelines.ref, mr.sourceBranch), eq(ciPipelines.tag, false), ne(ciPipelines.source, "parent_pipeline"));

const pipelineColumns = { pipeline: ciPipelines, user: users, committedAt: gitCommits.committedAt, projectPath: projects.fullPath };

/**
 * The merge request's head pipeline (`actual_head_pipeline`: the newest pipeline of the source branch on
 * the diff head) with what the Pipeline entity shows, in one statement; null when none ran on the head.
 */
export async function headPipelineRow(db: Executor, mr: Mr): Promise<MergeRequestPipelineRow | null> {
  if (!mr.sha) return null;
  const [row] = await db
    .select(pipelineColumns)
    .from(ciPipelines)
    .innerJoin(projects, eq(projects.id, ciPipelines.projectId))
    .leftJoin(users, eq(users.id, ciPipelines.userId))
    .leftJoin(gitCommits, and(eq(gitCommits.poolId, sql`coalesce(${projects.poolId}, ${projects.id})`), eq(gitCommits.oid, ciPipelines.sha)))
    .where(and(branchPipelines(mr), eq(ciPipelines.sha, mr.sha)))
    .orderBy(desc(ciPipelines.id))
    .limit(1);
  return row ? { ...row.pipeline, user: row.user, committedAt: row.committedAt, projectPath: row.projectPath } : null;
}

/**
 * `merge_request.all_commit_shas`: the commits of every diff version (start..head) and their heads,
 * at most 100 per version (one walk per version).
 */
export async function mergeRequestCommitShas(db: Executor, repo: Repo, mrId: number): Promise<string[]> {
  const versions = await db
    .select({ head: mergeRequestDiffs.headCommitSha, start: mergeRequestDiffs.startCommitSha })
    .from(mergeRequestDiffs)
    .where(eq(mergeRequestDiffs.mergeRequestId, mrId))
    .orderBy(desc(mergeRequestDiffs.id));
  const shas = new Set<string>();
  for (const v of versions) {
    shas.add(v.head);
    if (v.start) for (const commit of (await commitsBetween(db, repo, v.start, v.head)).slice(-100)) shas.add(commit.oid);
  }
  return [...shas];
}

/**
 * Ci::PipelinesForMergeRequestFinder: branch pipelines of the source project on a commit of the merge
 * request, newest first (1 + 1 statements). No `merge_request_event` pipelines exist here.
 */
export async function mergeRequestPipelines(db: Executor, mr: Mr, shas: string[], page: Page) {
  const all = mr.sha ? [...new Set([...shas, mr.sha])] : shas;
  if (all.length === 0) return { rows: [], total: 0 };
  const where = and(branchPipelines(mr), inArray(ciPipelines.sha, all));
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({ pipeline: ciPipelines, projectPath: projects.fullPath })
      .from(ciPipelines)
      .innerJoin(projects, eq(projects.id, ciPipelines.projectId))
      .where(where)
      .orderBy(desc(ciPipelines.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(ciPipelines).where(where),
  ]);
  return { rows: rows.map((r) => ({ ...r.pipeline, projectPath: r.projectPath })), total };
}
