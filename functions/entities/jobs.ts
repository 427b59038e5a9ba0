import type { CiBuild, CiJobArtifact, CiPipeline, CiRunner, GitCommitRow, User } from "../../db/schema";
import { commit } from "./commits";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";
import { pipelineBasic, secondsBetween } from "./pipelines";
import { user as userEntity } from "./users";
import { runnerBasic } from "./runners";

export type JobContext = PresentContext & { projectPath: string; projectId: number; commits: Map<string, GitCommitRow> };

export type JobRow = CiBuild & {
  pipeline: CiPipeline;
  user: User | null;
  artifacts: CiJobArtifact[];
  runner: CiRunner | null;
  downstream?: CiPipeline | null;
};

/** API::Entities::Ci::JobBasic (lib/api/entities/ci/job_basic.rb). */
export function jobBasic(job: JobRow, ctx: JobContext) {
  const row = ctx.commits.get(job.pipeline.sha);
  return {
    id: job.id,
    status: job.status,
    stage: job.stage,
    name: job.name,
    ref: job.pipeline.ref,
    tag: job.pipeline.tag,
    coverage: job.coverage,
    allow_failure: job.allowFailure,
    created_at: isoTime(job.createdAt),
    started_at: isoTime(job.startedAt),
    finished_at: isoTime(job.finishedAt),
    erased_at: isoTime(job.erasedAt),
    duration: job.startedAt ? secondsBetween(job.startedAt, job.finishedAt ?? ctx.now) : null,
    queued_duration: job.queuedAt ? secondsBetween(job.queuedAt, job.startedAt ?? ctx.now) : null,
    user: job.user ? userEntity(job.user, ctx) : null,
    commit: row ? commit(row, { ...ctx, projectId: ctx.projectId, projectPath: ctx.projectPath }) : null,
    pipeline: pipelineBasic(job.pipeline, ctx),
    ...(job.status === "failed" ? { failure_reason: job.failureReason ?? "unknown_failure" } : {}),
    web_url: webUrl(ctx, `${ctx.projectPath}/-/jobs/${job.id}`),
    project: { ci_job_token_scope_enabled: false },
  };
}

/** API::Entities::Ci::JobArtifact. */
export function jobArtifact(a: CiJobArtifact) {
  return { file_type: a.fileType, size: a.size, filename: a.filename, file_format: a.fileFormat };
}

/** API::Entities::Ci::Job (lib/api/entities/ci/job.rb). */
export function job(row: JobRow, ctx: JobContext) {
  const archive = row.artifacts.find((a) => a.fileType === "archive");
  return {
    ...jobBasic(row, ctx),
    ...(archive ? { artifacts_file: { filename: archive.filename, size: archive.size } } : {}),
    artifacts: row.artifacts.map(jobArtifact),
    runner: row.runner ? runnerBasic(row.runner) : null,
    artifacts_expire_at: isoTime(row.artifactsExpireAt),
    tag_list: row.tagList,
  };
}

/** API::Entities::Ci::Bridge (lib/api/entities/ci/bridge.rb). */
export function bridge(row: JobRow, ctx: JobContext) {
  return {
    ...jobBasic(row, ctx),
    downstream_pipeline: row.downstream ? pipelineBasic(row.downstream, ctx) : null,
  };
}
