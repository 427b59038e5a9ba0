import * as z from "zod";
import type { CiBuild, CiJobArtifact, CiPipeline, CiRunner, GitCommitRow, Project as ProjectModel, User as UserModel } from "../../db/schema";
import { Commit, commit } from "./commits";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";
import { PipelineBasic, pipelineBasic, secondsBetween } from "./pipelines";
import { User, user as userEntity } from "./users";
import { RunnerBasic, runnerBasic } from "./runners";
import { ProjectIdentity, projectIdentity } from "./projects";

export type JobContext = PresentContext & { projectPath: string; projectId: number; commits: Map<string, GitCommitRow> };

export type JobRow = CiBuild & {
  pipeline: CiPipeline;
  user: UserModel | null;
  artifacts: CiJobArtifact[];
  runner: CiRunner | null;
  downstream?: CiPipeline | null;
};

/** API::Entities::Ci::JobBasic (lib/api/entities/ci/job_basic.rb). */
export const JobBasic = z
  .object({
    id: z.int(),
    status: z.string(),
    stage: z.string(),
    name: z.string(),
    ref: z.string(),
    tag: z.boolean(),
    coverage: z.number().nullable(),
    allow_failure: z.boolean(),
    created_at: z.string().nullable(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    erased_at: z.string().nullable(),
    duration: z.number().nullable(),
    queued_duration: z.number().nullable(),
    user: User.nullable(),
    commit: Commit.nullable(),
    pipeline: PipelineBasic,
    failure_reason: z.string().optional(),
    web_url: z.string(),
    project: z.object({ ci_job_token_scope_enabled: z.boolean() }),
  })
  .meta({ id: "JobBasic" });
export function jobBasic(job: JobRow, ctx: JobContext): z.output<typeof JobBasic> {
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
export const JobArtifact = z
  .object({ file_type: z.string(), size: z.number(), filename: z.string(), file_format: z.string() })
  .meta({ id: "JobArtifact" });
export function jobArtifact(a: CiJobArtifact): z.output<typeof JobArtifact> {
  return { file_type: a.fileType, size: a.size, filename: a.filename, file_format: a.fileFormat };
}

/** API::Entities::Ci::Job (lib/api/entities/ci/job.rb). */
export const Job = JobBasic.extend({
  artifacts_file: z.object({ filename: z.string(), size: z.number() }).optional(),
  artifacts: z.array(JobArtifact),
  runner: RunnerBasic.nullable(),
  artifacts_expire_at: z.string().nullable(),
  tag_list: z.array(z.string()),
}).meta({ id: "Job" });
export function job(row: JobRow, ctx: JobContext): z.output<typeof Job> {
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
export const Bridge = JobBasic.extend({ downstream_pipeline: PipelineBasic.nullable() }).meta({ id: "Bridge" });
export function bridge(row: JobRow, ctx: JobContext): z.output<typeof Bridge> {
  return {
    ...jobBasic(row, ctx),
    downstream_pipeline: row.downstream ? pipelineBasic(row.downstream, ctx) : null,
  };
}

/**
 * API::Entities::Ci::JobBasicWithProject (lib/api/entities/ci/job_basic_with_project.rb): a runner's
 * jobs span projects, so each row carries its project (ProjectIdentity) and the context its URLs need.
 */
export const JobBasicWithProject = JobBasic.extend({ project: ProjectIdentity }).meta({ id: "JobBasicWithProject" });
export function jobBasicWithProject(row: JobRow & { project: ProjectModel }, ctx: PresentContext & { commits: Map<string, GitCommitRow> }): z.output<typeof JobBasicWithProject> {
  return { ...jobBasic(row, { ...ctx, projectPath: row.project.fullPath, projectId: row.project.id }), project: projectIdentity(row.project) };
}
