// Commit statuses' SQL (reads only: statuses are written by the pipeline engine, shared/ci/external.ts,
// through the pipeline's coordinator): a commit's statuses, CI jobs and external statuses together, and
// the pipeline a new status attaches to.
import { desc, sql } from "drizzle-orm";
import { ciPipelines } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { matchingPipelines } from "../shared/ci/commit_status";
import type { CommitStatusRow } from "../entities/commit_statuses";
import type { ListParams } from "./params";

/**
 * `CommitStatus.where(pipeline: project.ci_pipelines.where(sha:))` (lib/api/commit_statuses.rb): the jobs
 * and bridges of the commit's pipelines (`ci_builds`) with its external statuses (`ci_commit_statuses`),
 * oldest first, with their authors; `latest` (unless `all`) leaves out retried jobs and, of external
 * statuses, all but the newest of a name in a pipeline (`update_older_statuses_retried!`; statuses
 * posted before statuses had pipelines: of a name and ref). One statement.
 * Differs from GitLab: jobs and external statuses keep their own id sequences (GitLab's share
 * `ci_builds`), so an id is unique within its kind only; the list is ordered by creation time.
 */
export async function listStatuses(db: Executor, projectId: number, sha: string, f: ListParams): Promise<CommitStatusRow[]> {
  // `present?`: an empty filter is no filter.
  const ref = f.ref || null, stage = f.stage || null, name = f.name || null, all = !!f.all;
  const result = await db.execute<Record<string, any>>(sql`
    WITH statuses AS (
      SELECT b.id, b.project_id, b.pipeline_id, p.sha, p.ref, b.name, b.stage, b.status, NULL::text AS description,
             NULL::text AS target_url, b.coverage, b.allow_failure, b.user_id, b.created_at, b.updated_at, b.started_at, b.finished_at, 0 AS kind
        FROM ci_builds b JOIN ci_pipelines p ON p.id = b.pipeline_id
       WHERE p.project_id = ${projectId} AND p.sha = ${sha} AND (${all}::boolean OR NOT b.retried)
      UNION ALL
      SELECT s.id, s.project_id, s.pipeline_id, s.sha, s.ref, s.name, s.stage, s.status, s.description,
             s.target_url, s.coverage, s.allow_failure, s.user_id, s.created_at, s.updated_at, s.started_at, s.finished_at, 1 AS kind
        FROM ci_commit_statuses s
       WHERE s.project_id = ${projectId} AND s.sha = ${sha}
         AND (${all}::boolean OR NOT EXISTS (
           SELECT 1 FROM ci_commit_statuses n
            WHERE n.project_id = s.project_id AND n.sha = s.sha AND n.name = s.name AND n.id > s.id
              AND (n.pipeline_id = s.pipeline_id OR (s.pipeline_id IS NULL AND n.pipeline_id IS NULL AND n.ref IS NOT DISTINCT FROM s.ref))))
    )
    SELECT st.*, u.id AS author_id, u.username, u.name AS author_name, u.state AS author_state, u.avatar_url, u.email
      FROM statuses st LEFT JOIN users u ON u.id = st.user_id
     WHERE (${ref}::text IS NULL OR st.ref = ${ref}::text)
       AND (${stage}::text IS NULL OR st.stage = ${stage}::text)
       AND (${name}::text IS NULL OR st.name = ${name}::text)
     ORDER BY st.created_at, st.kind, st.id`);
  return result.rows.map((r) => ({
    id: Number(r.id),
    projectId: Number(r.project_id),
    pipelineId: r.pipeline_id === null ? null : Number(r.pipeline_id),
    sha: r.sha,
    ref: r.ref,
    name: r.name,
    stage: r.stage,
    status: r.status,
    description: r.description,
    targetUrl: r.target_url,
    coverage: r.coverage === null ? null : Number(r.coverage),
    allowFailure: !!r.allow_failure,
    userId: r.user_id === null ? null : Number(r.user_id),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
    startedAt: r.started_at === null ? null : new Date(r.started_at),
    finishedAt: r.finished_at === null ? null : new Date(r.finished_at),
    author:
      r.author_id === null
        ? null
        : { id: Number(r.author_id), username: r.username, name: r.author_name, state: r.author_state, avatarUrl: r.avatar_url, email: r.email },
  }));
}

/** `all_matching_pipelines.first`: the newest pipeline of the commit (on `ref`, with `pipeline_id`, when given). */
export async function firstMatchingPipeline(db: Executor, projectId: number, sha: string, match: { ref?: string; pipelineId?: number }) {
  const [row] = await db
    .select({ id: ciPipelines.id, ref: ciPipelines.ref })
    .from(ciPipelines)
    .where(matchingPipelines(projectId, sha, match))
    .orderBy(desc(ciPipelines.id))
    .limit(1);
  return row ?? null;
}
