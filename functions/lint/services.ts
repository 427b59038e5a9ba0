import { stringify } from "yaml";
import type { Executor } from "../kernel/db";
import type { IncludeRow, LintJobRow, LintRow } from "../entities/lint";
import { commitTree, readFileAt, repoOf, resolveRevisions } from "../shared/git";
import { buildPipeline, PipelineCreationError, type CreatePipelineInput } from "../shared/ci/create";
import { ConfigError, parseConfig, type Config, type JobSpec, type LocalReader } from "../shared/ci/yaml";

/**
 * CI lint (lib/gitlab/ci/lint.rb): the static check reads the text with the YAML reading pipelines use;
 * the dry run builds the pipeline as a push to `ref` would, and stores nothing.
 */
export type LintJob = LintJobRow;
export type IncludeMetadata = IncludeRow;
export type LintResult = LintRow;

/** Where `include: local` reads: a project's commit, or nothing (`POST /ci/lint` has no project). */
export type LintContext = { project: { fullPath: string; webUrl: string }; sha: string; readLocal: LocalReader } | null;

const BLANK = "Please provide content of .gitlab-ci.yml";

/** `to_yaml` of the expanded configuration (Psych's layout: `---` header, sequences not indented). */
const mergedYaml = (config: Config) => `---\n${stringify(config.expanded, { indentSeq: false, lineWidth: 0 })}`;

function includesOf(config: Config, ctx: LintContext): IncludeMetadata[] {
  return config.includes.map((location) => {
    const path = location.replace(/^\/+/, "");
    return {
      context_project: ctx?.project.fullPath ?? null,
      context_sha: ctx?.sha ?? null,
      type: "local",
      location,
      blob: ctx ? `${ctx.project.webUrl}/-/blob/${ctx.sha}/${path}` : null,
      raw: ctx ? `${ctx.project.webUrl}/-/raw/${ctx.sha}/${path}` : null,
      extra: {},
    };
  });
}

const environmentName = (env: unknown): string | null =>
  typeof env === "string" ? env : env && typeof env === "object" && typeof (env as { name?: unknown }).name === "string" ? (env as { name: string }).name : null;

/** A policy as Entry::Policy's value: only the keys written. */
function policy(p: JobSpec["only"]): Record<string, string[]> | null {
  if (!p) return null;
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Record<string, string[]>;
}

function jobOf(spec: JobSpec, when: string, allowFailure: boolean): LintJob {
  return {
    name: spec.name,
    stage: spec.stage,
    before_script: spec.beforeScript,
    script: spec.script,
    after_script: spec.afterScript,
    tag_list: spec.tags,
    environment: environmentName(spec.environment),
    when,
    allow_failure: allowFailure,
  };
}

/** Jobs in stage order (YamlProcessor::Result#stages then #builds). */
const byStage = <T extends { spec: JobSpec }>(config: Config, jobs: T[]) =>
  config.stages.flatMap((stage) => jobs.filter((j) => j.spec.stage === stage));

/** Gitlab::Ci::Lint#static_validation. */
export async function staticLint(content: string, ctx: LintContext): Promise<LintResult> {
  if (content.trim() === "") return { valid: false, errors: [BLANK], warnings: [], merged_yaml: null, includes: null, jobs: [] };
  const readLocal: LocalReader = ctx?.readLocal ?? (async () => null);
  let config: Config;
  try {
    config = await parseConfig(content, readLocal);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Deliberate differences: GitLab also shows `merged_yaml` for a configuration that loads but fails
    // validation (ours stops at the first error, with neither), and keeps `extends:` keys in it.
    const message = !ctx && /^Local file `.*` does not exist!$/.test(error.message) ? error.message.replace("does not exist!", "does not have project!") : error.message;
    return { valid: false, errors: [message], warnings: [], merged_yaml: null, includes: null, jobs: [] };
  }
  // Without `rules`, Entry::Processable keeps the default `only: {refs: [branches, tags]}`.
  const jobs = byStage(config, config.jobs.map((spec) => ({ spec }))).map(({ spec }) => ({
    ...jobOf(spec, spec.when, spec.allowFailure),
    only: spec.rules ? policy(spec.only) : (policy(spec.only) ?? { refs: ["branches", "tags"] }),
    except: policy(spec.except),
  }));
  return { valid: true, errors: [], warnings: config.warnings, merged_yaml: mergedYaml(config), includes: includesOf(config, ctx), jobs };
}

/** Gitlab::Ci::Lint#simulate_pipeline_creation: a `push` pipeline to `ref`, built and not stored. */
export async function dryRunLint(db: Executor, input: CreatePipelineInput & { content: string }, project: { fullPath: string; webUrl: string }): Promise<LintResult> {
  if (input.content.trim() === "") return { valid: false, errors: [BLANK], warnings: [], merged_yaml: null, includes: null, jobs: [] };
  try {
    const built = await buildPipeline(db, input);
    const jobs = byStage(built.config, built.jobs).map((j) => jobOf(j.spec, j.when, j.allowFailure));
    const ctx = { project, sha: built.sha, readLocal: async () => null };
    return { valid: true, errors: [], warnings: built.config.warnings, merged_yaml: mergedYaml(built.config), includes: includesOf(built.config, ctx), jobs };
  } catch (error) {
    if (!(error instanceof PipelineCreationError)) throw error;
    return { valid: false, errors: [error.message], warnings: [], merged_yaml: null, includes: null, jobs: [] };
  }
}

/** The project's `.gitlab-ci.yml` reader at a commit (null text when the file is absent). */
export async function readerAt(db: Executor, project: { id: number; defaultBranch: string | null; poolId: number | null }, rev: string) {
  const repo = repoOf(project);
  const sha = (await resolveRevisions(db, repo, [rev])).get(rev) ?? null;
  if (!sha) return null;
  const tree = await commitTree(db, repo, sha);
  const readLocal: LocalReader = async (path) => {
    const file = tree ? await readFileAt(db, repo, tree, path) : null;
    return file ? new TextDecoder().decode(file.content) : null;
  };
  return { sha, readLocal };
}
