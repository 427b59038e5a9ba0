import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, lt, sql, type SQL } from "drizzle-orm";
import { ciBuilds, ciJobArtifacts, ciPipelineVariables, ciPipelines, gitCommits, users } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";
import type { PipelineRow } from "../entities/pipelines";
import type { ListParams } from "./params";

function filterWhere(projectId: number, f: ListParams): SQL {
  const where: (SQL | undefined)[] = [eq(ciPipelines.projectId, projectId)];
  if (f.scope === "running") where.push(eq(ciPipelines.status, "running"));
  if (f.scope === "pending") where.push(eq(ciPipelines.status, "pending"));
  if (f.scope === "finished") where.push(inArray(ciPipelines.status, ["success", "failed", "canceled", "skipped"]));
  if (f.scope === "branches" || f.scope === "tags") {
    const tag = f.scope === "tags";
    const prefix = tag ? "refs/tags/" : "refs/heads/";
    // Ci::PipelinesFinder#latest_pipeline_ids: the newest pipeline of each existing branch (tag).
    where.push(sql`${ciPipelines.id} IN (
      SELECT max(p.id) FROM ci_pipelines p
      JOIN git_refs r ON r.project_id = p.project_id AND r.name = ${prefix} || p.ref
      WHERE p.project_id = ${projectId} AND p.tag = ${tag} GROUP BY p.ref)`);
  }
  if (f.status) where.push(eq(ciPipelines.status, f.status));
  if (f.source) where.push(eq(ciPipelines.source, f.source));
  if (f.ref) where.push(eq(ciPipelines.ref, f.ref));
  if (f.sha) where.push(eq(ciPipelines.sha, f.sha));
  if (f.yaml_errors === true) where.push(isNotNull(ciPipelines.yamlErrors));
  if (f.yaml_errors === false) where.push(isNull(ciPipelines.yamlErrors));
  if (f.name) where.push(sql`${ciPipelines.userId} IN (SELECT id FROM users WHERE name = ${f.name})`);
  if (f.username) where.push(sql`${ciPipelines.userId} IN (SELECT id FROM users WHERE lower(username) = lower(${f.username}))`);
  if (f.updated_after) where.push(gt(ciPipelines.updatedAt, f.updated_after));
  if (f.updated_before) where.push(lt(ciPipelines.updatedAt, f.updated_before));
  return and(...where)!;
}

/** GET /projects/:id/pipelines: the page and a capped count (2 statements). */
export async function listPipelines(db: Executor, projectId: number, f: ListParams, page: Page) {
  const where = filterWhere(projectId, f);
  const direction = f.sort === "asc" ? asc : desc;
  const column = { id: ciPipelines.id, status: ciPipelines.status, ref: ciPipelines.ref, updated_at: ciPipelines.updatedAt, user_id: ciPipelines.userId }[f.order_by];
  const order = column === ciPipelines.id ? [direction(ciPipelines.id)] : [direction(column), direction(ciPipelines.id)];
  const rows = await db.select().from(ciPipelines).where(where).orderBy(...order).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(ciPipelines).where(where), page);
  return { rows, total };
}

/** One pipeline of the project with its user and the commit's date (1 statement). */
export async function findPipeline(db: Executor, projectId: number, pipelineId: number): Promise<PipelineRow | null> {
  if (!Number.isSafeInteger(pipelineId) || pipelineId > 2147483647) return null;
  const rows = await db
    .select({ pipeline: ciPipelines, user: users, committedAt: gitCommits.committedAt })
    .from(ciPipelines)
    .leftJoin(users, eq(users.id, ciPipelines.userId))
    // Commits are indexed by the project's object pool (a fork's is its network's).
    .leftJoin(gitCommits, and(eq(gitCommits.poolId, sql`(SELECT coalesce(p.pool_id, p.id) FROM projects p WHERE p.id = ${ciPipelines.projectId})`), eq(gitCommits.oid, ciPipelines.sha)))
    .where(and(eq(ciPipelines.projectId, projectId), eq(ciPipelines.id, pipelineId)))
    .limit(1);
  const row = rows[0];
  return row ? { ...row.pipeline, user: row.user, committedAt: row.committedAt } : null;
}

/** `ci_pipelines.newest_first(ref:, sha:).take`: the newest pipeline of `ref` at `sha` (2 statements). */
export async function latestPipeline(db: Executor, projectId: number, ref: string, sha: string): Promise<PipelineRow | null> {
  const rows = await db
    .select({ id: ciPipelines.id })
    .from(ciPipelines)
    .where(and(eq(ciPipelines.projectId, projectId), eq(ciPipelines.ref, ref), eq(ciPipelines.sha, sha)))
    .orderBy(desc(ciPipelines.id))
    .limit(1);
  return rows[0] ? findPipeline(db, projectId, rows[0].id) : null;
}

export async function listPipelineVariables(db: Executor, pipelineId: number) {
  return db.select().from(ciPipelineVariables).where(eq(ciPipelineVariables.pipelineId, pipelineId)).orderBy(asc(ciPipelineVariables.id));
}

export async function deletePipeline(db: Executor, pipelineId: number) {
  await db.delete(ciPipelines).where(eq(ciPipelines.id, pipelineId));
}

/** The JUnit artifacts of the pipeline's latest jobs, with their job names (1 statement). */
export async function junitArtifacts(db: Executor, pipelineId: number) {
  return db
    .select({ jobName: ciBuilds.name, r2Key: ciJobArtifacts.r2Key })
    .from(ciJobArtifacts)
    .innerJoin(ciBuilds, eq(ciBuilds.id, ciJobArtifacts.jobId))
    .where(and(eq(ciBuilds.pipelineId, pipelineId), eq(ciBuilds.retried, false), eq(ciJobArtifacts.fileType, "junit")))
    .orderBy(asc(ciBuilds.id));
}
