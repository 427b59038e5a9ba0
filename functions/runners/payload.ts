import type { CiBuild, GitCommitRow } from "../../db/schema";
import { mergeVariables, pipelineVariables, projectVariables, serverVariables, userVariables, type Variable } from "../shared/ci/variables";
import type { ArtifactsSpec } from "../shared/ci/yaml";
import { scopeMatches } from "../shared/ci/variable_rules";
import type { ClaimingRunner, JobVariableRow } from "./queries";

/**
 * The job payload of `POST /jobs/request` (lib/api/entities/ci/job_request/response.rb; docs/ci.md, "Runner protocol", "Job token and variables").
 */
export type PayloadInput = {
  job: CiBuild;
  token: string;
  runner: ClaimingRunner;
  baseUrl: string;
  pipeline: { id: number; iid: number; ref: string; tag: boolean; sha: string; before_sha: string; source: string; created_at: string; user_id: number | null };
  project: { id: number; name: string; path: string; full_path: string; visibility_level: number; default_branch: string | null; container_registry_enabled?: boolean };
  namespacePath: string;
  user: { id: number; username: string; name: string; email: string } | null;
  commit: GitCommitRow | null;
  /** CI/CD variables as `jobVariables` reads them (all scopes); `protectedRef` says whether protected ones apply. */
  variables: JobVariableRow[];
  protectedRef: boolean;
  dependencies: { id: number; name: string; filename: string | null; size: number | null }[];
  /** True when the server offers git over smart HTTP (then the runner clones). */
  gitHttp: boolean;
};

const PROJECT_TIMEOUT = 3600;

export function jobPayload(i: PayloadInput) {
  const { job, pipeline, project } = i;
  const options = job.options as {
    script?: string[];
    after_script?: string[];
    image?: unknown;
    services?: unknown;
    cache?: unknown;
    artifacts?: ArtifactsSpec | null;
  };
  const timeout = Math.min(job.timeout ?? PROJECT_TIMEOUT, i.runner.maximumTimeout ?? Number.MAX_SAFE_INTEGER);
  const url = new URL(i.baseUrl);
  const repoUrl = `${url.protocol}//gitlab-ci-token:${i.token}@${url.host}/${project.full_path}.git`;
  const projectFacts = {
    id: project.id,
    name: project.name,
    path: project.path,
    fullPath: project.full_path,
    namespaceFullPath: i.namespacePath,
    visibilityLevel: project.visibility_level,
    defaultBranch: project.default_branch,
  };
  const pub = (key: string, value: string | number): Variable => ({ key, value: String(value), public: true, masked: false });
  const predefined: Variable[] = [
    ...serverVariables(i.baseUrl),
    ...projectVariables(i.baseUrl, projectFacts),
    ...pipelineVariables(
      i.baseUrl,
      projectFacts,
      { id: pipeline.id, iid: pipeline.iid, source: pipeline.source, ref: pipeline.ref, tag: pipeline.tag, sha: pipeline.sha, beforeSha: pipeline.before_sha, createdAt: new Date(pipeline.created_at) },
      i.commit,
    ),
    ...userVariables(i.user),
    pub("CI_JOB_ID", job.id),
    pub("CI_JOB_NAME", job.name),
    pub("CI_JOB_STAGE", job.stage),
    pub("CI_JOB_URL", `${i.baseUrl}/${project.full_path}/-/jobs/${job.id}`),
    pub("CI_JOB_STARTED_AT", new Date(job.startedAt ?? Date.now()).toISOString().replace(/\.\d{3}Z$/, "Z")),
    { key: "CI_JOB_TOKEN", value: i.token, public: false, masked: true },
    { key: "CI_REPOSITORY_URL", value: repoUrl, public: false, masked: false },
    // The container registry (Project#container_registry_variables, Ci::Build#variables): the Worker
    // serves it at its own host; jobs log in as `gitlab-ci-token` with their job token.
    pub("CI_REGISTRY", url.host),
    ...(project.container_registry_enabled === false ? [] : [pub("CI_REGISTRY_IMAGE", `${url.host}/${project.full_path.toLowerCase()}`)]),
    pub("CI_REGISTRY_USER", "gitlab-ci-token"),
    { key: "CI_REGISTRY_PASSWORD", value: i.token, public: false, masked: true },
    pub("CI_NODE_TOTAL", 1),
    pub("CI_RUNNER_ID", i.runner.id),
    pub("CI_RUNNER_DESCRIPTION", i.runner.description),
    pub("CI_RUNNER_TAGS", JSON.stringify(i.runner.tagList)),
    ...environmentVariables((options as { environment?: unknown }).environment),
  ];
  if (!i.gitHttp) {
    // Differs from GitLab: without smart HTTP the runner gets the sources as an archive (docs/ci.md, "The shipped runner").
    predefined.push(pub("GIT_STRATEGY", "none"));
    predefined.push(pub("CI_SOURCE_ARCHIVE_URL", `${i.baseUrl}/api/v4/projects/${project.id}/repository/archive.tar.gz?sha=${pipeline.sha}`));
  }
  const toVar = (v: { key: string; value: string; variable_type: string; masked: boolean }): Variable => ({
    key: v.key,
    value: v.value,
    public: false,
    masked: v.masked,
    ...(v.variable_type === "file" ? { file: true } : {}),
  });
  const environment = environmentName((options as { environment?: unknown }).environment);
  const applicable = i.variables
    .filter((v) => (!v.protected || i.protectedRef) && scopeMatches(v.environment_scope, environment))
    // Later wins: instance, then groups from the root down, then the project; a specific
    // environment scope beats `*` (GitLab sorts scoped variables after the wildcard ones).
    .sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.depth - b.depth || Number(a.environment_scope !== "*") - Number(b.environment_scope !== "*"));
  // Precedence (docs/ci.md, "Job token and variables"): predefined < YAML < instance/group/project variables < pipeline variables.
  const variables = mergeVariables(
    predefined,
    job.yamlVariables.map((v) => pub(v.key, v.value)),
    applicable.map(toVar),
  );

  const steps = [{ name: "script", script: options.script ?? [], timeout, when: "on_success", allow_failure: false }];
  if (options.after_script?.length) steps.push({ name: "after_script", script: options.after_script, timeout, when: "always", allow_failure: true });

  const artifacts: unknown[] = [];
  const a = options.artifacts;
  if (a && (a.paths.length || a.untracked)) {
    artifacts.push({ name: a.name ?? "", untracked: a.untracked, paths: a.paths, exclude: a.exclude, when: a.when, artifact_type: "archive", artifact_format: "zip", expire_in: a.expireIn ?? null });
  }
  if (a && a.reports.junit.length) {
    artifacts.push({ name: "junit.xml", untracked: false, paths: a.reports.junit, when: "always", artifact_type: "junit", artifact_format: "gzip", expire_in: a.expireIn ?? null });
  }

  return {
    id: job.id,
    token: i.token,
    allow_git_fetch: true,
    job_info: {
      id: job.id,
      name: job.name,
      stage: job.stage,
      pipeline_id: pipeline.id,
      project_id: project.id,
      project_name: project.name,
      project_full_path: project.full_path,
      project_jobs_running_on_instance_runners_count: "0",
      user_id: i.user?.id ?? null,
      time_in_queue_seconds: job.queuedAt && job.startedAt ? Math.max(0, (new Date(job.startedAt).getTime() - new Date(job.queuedAt).getTime()) / 1000) : 0,
    },
    git_info: {
      repo_url: repoUrl,
      ref: pipeline.ref,
      sha: pipeline.sha,
      before_sha: pipeline.before_sha,
      ref_type: pipeline.tag ? "tag" : "branch",
      refspecs: [`+${pipeline.sha}:refs/pipelines/${pipeline.id}`, pipeline.tag ? `+refs/tags/${pipeline.ref}:refs/tags/${pipeline.ref}` : `+refs/heads/${pipeline.ref}:refs/remotes/origin/${pipeline.ref}`],
      depth: 20,
    },
    runner_info: { timeout, runner_session_url: null },
    variables,
    steps,
    image: imageOf(options.image),
    services: Array.isArray(options.services) ? options.services.map(imageOf) : [],
    artifacts,
    cache: Array.isArray(options.cache) ? options.cache : options.cache ? [options.cache] : [],
    credentials: [],
    dependencies: i.dependencies
      .filter((d) => d.filename)
      .map((d) => ({ id: d.id, name: d.name, token: i.token, artifacts_file: { filename: d.filename, size: d.size } })),
    features: { trace_sections: true, failure_reasons: FAILURE_REASONS },
  };
}

const KIND_ORDER: Record<string, number> = { instance: 0, group: 1, project: 2, pipeline: 3 };

/**
 * Ci::Build#persisted_environment_variables and the environment part of #scoped_variables, from the
 * environment the pipeline's creation resolved (shared/environments: name and URL already expanded).
 */
function environmentVariables(environment: unknown): Variable[] {
  const pub = (key: string, value: string): Variable => ({ key, value, public: true, masked: false });
  if (!environment || typeof environment !== "object" || typeof (environment as { slug?: unknown }).slug !== "string") return [];
  const env = environment as { name: string; slug: string; url: string | null; action: string; tier: string; deployment_tier: string | null };
  return [
    pub("CI_ENVIRONMENT_NAME", env.name),
    pub("CI_ENVIRONMENT_ACTION", env.action),
    pub("CI_ENVIRONMENT_TIER", env.deployment_tier ?? env.tier),
    pub("CI_ENVIRONMENT_SLUG", env.slug),
    ...(env.url ? [pub("CI_ENVIRONMENT_URL", env.url)] : []),
  ];
}

/** The job's `environment` (a name or `{name}`), null without one. */
function environmentName(environment: unknown): string | null {
  if (typeof environment === "string") return environment;
  if (environment && typeof environment === "object" && typeof (environment as { name?: unknown }).name === "string") return (environment as { name: string }).name;
  return null;
}

function imageOf(image: unknown) {
  if (!image) return null;
  if (typeof image === "string") return { name: image, entrypoint: null, ports: [], pull_policy: null };
  const i = image as { name?: string; entrypoint?: string[] };
  return { name: i.name ?? null, entrypoint: i.entrypoint ?? null, ports: [], pull_policy: null };
}

/** Ci::Build failure reasons a runner may report (app/models/concerns/enums/ci/commit_status.rb). */
export const FAILURE_REASONS = [
  "unknown_failure",
  "script_failure",
  "api_failure",
  "stuck_or_timeout_failure",
  "runner_system_failure",
  "missing_dependency_failure",
  "runner_unsupported",
  "stale_schedule",
  "job_execution_timeout",
  "archived_failure",
  "unmet_prerequisites",
  "scheduler_failure",
  "data_integrity_failure",
  "forward_deployment_failure",
  "user_blocked",
  "project_deleted",
  "ci_quota_exceeded",
  "pipeline_loop_detected",
  "no_matching_runner",
  "trace_size_exceeded",
  "builds_disabled",
  "environment_creation_failure",
  "deployment_rejected",
  "protected_environment_failure",
  "failed_outdated_deployment_job",
  "image_pull_failure",
];

/** Which earlier jobs' archives a job downloads (`dependencies`, else `needs` with artifacts, else earlier stages). */
export function dependencyIds(job: CiBuild, candidates: { id: number; name: string; stageIdx: number }[]): number[] {
  const deps = (job.options as { dependencies?: string[] | null }).dependencies;
  if (deps) return candidates.filter((c) => deps.includes(c.name)).map((c) => c.id);
  if (job.schedulingType === "dag") {
    const names = job.needs.filter((n) => n.artifacts).map((n) => n.name);
    return candidates.filter((c) => names.includes(c.name)).map((c) => c.id);
  }
  return candidates.filter((c) => c.stageIdx < job.stageIdx).map((c) => c.id);
}
