import { GITLAB_VERSION } from "../../entities/version";

/**
 * Predefined variables (docs/ci.md, "Job token and variables"; app/models/ci/build.rb, lib/gitlab/ci/variables/builder.rb) as
 * `{key, value, public, masked, file?}`, the shape the runner receives.
 */
export type Variable = { key: string; value: string; public: boolean; masked: boolean; file?: boolean };

export type PipelineFacts = {
  id: number | null;
  iid: number | null;
  source: string;
  ref: string;
  tag: boolean;
  sha: string;
  beforeSha: string;
  createdAt: Date | null;
};

export type ProjectFacts = {
  id: number;
  name: string;
  path: string;
  fullPath: string;
  namespaceFullPath: string;
  visibilityLevel: number;
  defaultBranch: string | null;
  /** The fork network's object pool (null: the project's own id). */
  poolId?: number | null;
};

export type CommitFacts = { message: string; authorName: string; authorEmail: string; committedAt: Date | string };
export type UserFacts = { id: number; username: string; name: string; email: string } | null;

/** `CI_COMMIT_REF_SLUG`: lower case, other characters to `-`, at most 63, no edge `-`. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "-")
    .slice(0, 63)
    .replace(/^-+|-+$/g, "");
}

const pub = (key: string, value: string | number | null | undefined): Variable => ({ key, value: value === null || value === undefined ? "" : String(value), public: true, masked: false });

export function serverVariables(baseUrl: string): Variable[] {
  const url = new URL(baseUrl);
  const [major, minor, patch] = GITLAB_VERSION.replace(/-ee$/, "").split(".");
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return [
    pub("CI_SERVER_URL", baseUrl),
    pub("CI_SERVER_HOST", url.hostname),
    pub("CI_SERVER_PORT", port),
    pub("CI_SERVER_PROTOCOL", url.protocol.replace(":", "")),
    pub("CI_SERVER_NAME", "GitLab"),
    pub("CI_SERVER_VERSION", GITLAB_VERSION),
    pub("CI_SERVER_VERSION_MAJOR", major),
    pub("CI_SERVER_VERSION_MINOR", minor),
    pub("CI_SERVER_VERSION_PATCH", patch),
    pub("CI_SERVER_REVISION", ""),
    pub("CI_API_V4_URL", `${baseUrl}/api/v4`),
  ];
}

const VISIBILITY: Record<number, string> = { 0: "private", 10: "internal", 20: "public" };

export function projectVariables(baseUrl: string, project: ProjectFacts): Variable[] {
  return [
    pub("CI_PROJECT_ID", project.id),
    pub("CI_PROJECT_NAME", project.path),
    pub("CI_PROJECT_TITLE", project.name),
    pub("CI_PROJECT_PATH", project.fullPath),
    pub("CI_PROJECT_PATH_SLUG", slugify(project.fullPath)),
    pub("CI_PROJECT_NAMESPACE", project.namespaceFullPath),
    pub("CI_PROJECT_ROOT_NAMESPACE", project.namespaceFullPath.split("/")[0]),
    pub("CI_PROJECT_URL", `${baseUrl}/${project.fullPath}`),
    pub("CI_PROJECT_VISIBILITY", VISIBILITY[project.visibilityLevel] ?? "private"),
    pub("CI_DEFAULT_BRANCH", project.defaultBranch ?? ""),
    pub("CI_CONFIG_PATH", ".gitlab-ci.yml"),
  ];
}

export function pipelineVariables(baseUrl: string, project: ProjectFacts, pipeline: PipelineFacts, commit: CommitFacts | null): Variable[] {
  const message = commit?.message ?? "";
  const title = message.split("\n")[0];
  const description = message.includes("\n") ? message.slice(message.indexOf("\n") + 1).replace(/^\n+/, "") : "";
  const out: Variable[] = [
    pub("CI", "true"),
    pub("GITLAB_CI", "true"),
    pub("CI_PIPELINE_SOURCE", pipeline.source),
    pub("CI_COMMIT_SHA", pipeline.sha),
    pub("CI_COMMIT_SHORT_SHA", pipeline.sha.slice(0, 8)),
    pub("CI_COMMIT_BEFORE_SHA", pipeline.beforeSha),
    pub("CI_COMMIT_REF_NAME", pipeline.ref),
    pub("CI_COMMIT_REF_SLUG", slugify(pipeline.ref)),
    pub("CI_COMMIT_MESSAGE", message),
    pub("CI_COMMIT_TITLE", title),
    pub("CI_COMMIT_DESCRIPTION", description),
    pub("CI_COMMIT_AUTHOR", commit ? `${commit.authorName} <${commit.authorEmail}>` : ""),
    pub("CI_COMMIT_TIMESTAMP", commit ? new Date(commit.committedAt).toISOString().replace(/\.\d{3}Z$/, "Z") : ""),
    pipeline.tag ? pub("CI_COMMIT_TAG", pipeline.ref) : pub("CI_COMMIT_BRANCH", pipeline.ref),
  ];
  // app/models/ci/build.rb: `CI_PIPELINE_TRIGGERED` for pipelines run by a trigger token.
  if (pipeline.source === "trigger") out.push(pub("CI_PIPELINE_TRIGGERED", "true"));
  if (pipeline.id !== null) {
    out.push(pub("CI_PIPELINE_ID", pipeline.id), pub("CI_PIPELINE_IID", pipeline.iid));
    out.push(pub("CI_PIPELINE_URL", `${baseUrl}/${project.fullPath}/-/pipelines/${pipeline.id}`));
    if (pipeline.createdAt) out.push(pub("CI_PIPELINE_CREATED_AT", pipeline.createdAt.toISOString().replace(/\.\d{3}Z$/, "Z")));
  }
  return out;
}

export function userVariables(user: UserFacts): Variable[] {
  if (!user) return [];
  return [pub("GITLAB_USER_ID", user.id), pub("GITLAB_USER_LOGIN", user.username), pub("GITLAB_USER_NAME", user.name), pub("GITLAB_USER_EMAIL", user.email)];
}

/** Later entries win (docs/ci.md, "Job token and variables" precedence); the order of first appearance is kept. */
export function mergeVariables(...lists: Variable[][]): Variable[] {
  const map = new Map<string, Variable>();
  for (const list of lists) for (const v of list) {
    map.delete(v.key);
    map.set(v.key, v);
  }
  return [...map.values()];
}

export const asRecord = (list: Variable[]): Record<string, string> => Object.fromEntries(list.map((v) => [v.key, v.value]));
export const fromRecord = (record: Record<string, string>): Variable[] => Object.entries(record).map(([key, value]) => pub(key, value));
