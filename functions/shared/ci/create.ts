import { eq, sql } from "drizzle-orm";
import { ciBuilds, ciPipelineVariables, ciPipelines, ciStages, type CiPipeline } from "../../../db/schema";
import type { Database, Executor } from "../../kernel/db";
import { branchRef, commitTree, diffTreePairs, listTree, readCommitRows, readFileAt, readRef, refCommit, repoOf, storeSource, tagRef, ZERO_OID, type Repo } from "../git";
import { nextIid } from "../issuables/iids";
import { matchRules, seedJobs, SeedError, type SeedContext, type SeededJob } from "./seed";
import { asRecord, mergeVariables, pipelineVariables, projectVariables, serverVariables, userVariables, type ProjectFacts, type UserFacts } from "./variables";
import { ConfigError, parseConfig, parseDuration, type Config } from "./yaml";
import { createJobDeployment, ensureEnvironment, expandVariables, validExpandedName, type JobEnvironment } from "../environments";

/**
 * Creating pipelines (docs/ci.md, "Creating a pipeline"; app/services/ci/create_pipeline_service.rb). The caller processes the
 * new pipeline through its Durable Object (shared/ci/coordinator.ts) afterwards.
 */
export class PipelineCreationError extends Error {
  constructor(
    message: string,
    /** Config errors of push pipelines are stored as a failed pipeline. */
    readonly kind: "ref" | "config" | "filtered" = "config",
  ) {
    super(message);
  }
  /** The commit the configuration was read at, once the ref resolved (a failed pipeline is stored there). */
  at?: { sha: string; tag: boolean };
}

export type CreatePipelineInput = {
  project: ProjectFacts;
  ref: string;
  source: "push" | "api" | "web" | "trigger" | "schedule" | "parent_pipeline" | "pipeline";
  user: UserFacts;
  variables: { key: string; value: string; variable_type?: string }[];
  baseUrl: string;
  /** For pushes: the ref's old and new ids, and the push event. */
  beforeSha?: string;
  sha?: string;
  pushEventId?: number;
  /** Pipelines run by a schedule (source `schedule`) or a trigger token (source `trigger`). */
  pipelineScheduleId?: number;
  triggerId?: number;
  /** Child pipelines: the parent, the bridge, and the configuration path to read. */
  parent?: { pipelineId: number; jobId: number; configPath: string; sha: string; ref: string; tag: boolean };
  /** CI lint's dry run: this text instead of the file at the ref (Ci::CreatePipelineService `content:`). */
  content?: string;
};

const CONFIG_PATH = ".gitlab-ci.yml";

async function resolveRef(db: Executor, projectId: number, ref: string): Promise<{ sha: string; tag: boolean } | null> {
  const branch = await readRef(db, projectId, branchRef(ref));
  if (branch) return { sha: refCommit(branch), tag: false };
  const tag = await readRef(db, projectId, tagRef(ref));
  if (tag) return { sha: refCommit(tag), tag: true };
  return null;
}

/**
 * The push's modified paths (Ci::Pipeline#modified_paths → Gitlab::Git::Push#modified_paths:
 * `repository.diff_stats(before, after).paths`): the direct diff of the two commits' trees, old and new
 * paths of renames. Null when there is no push diff: a new branch (`before` is zeros), or a `before`
 * this repository does not hold; `changes` is then true (Rules::Rule::Clause::Changes without compare_to).
 * Earlier this walked the first-parent commits, which counted a change reverted within the push and
 * gave up on force pushes; GitLab diffs the two commits.
 */
async function changedPaths(db: Executor, repo: Repo, before: string, after: string): Promise<string[] | null> {
  if (before === ZERO_OID) return null;
  const [oldTree, newTree] = await Promise.all([commitTree(db, repo, before), commitTree(db, repo, after)]);
  if (!oldTree || !newTree) return null;
  const [changes] = await diffTreePairs(storeSource(db, repo.poolId), [{ oldRoot: oldTree, newRoot: newTree }], { renames: true });
  const paths = new Set<string>();
  for (const change of changes) {
    if (change.oldPath) paths.add(change.oldPath);
    paths.add(change.path);
  }
  return [...paths];
}

/** Builds the configuration and the seeded jobs, or throws PipelineCreationError with GitLab's text. */
export async function buildPipeline(db: Executor, input: CreatePipelineInput) {
  const repo = repoOf({ id: input.project.id, defaultBranch: input.project.defaultBranch, poolId: input.project.poolId });
  let sha: string;
  let tag: boolean;
  if (input.parent) {
    ({ sha, tag } = input.parent);
  } else {
    const resolved = input.sha ? { sha: input.sha, tag: input.ref.startsWith("refs/tags/") } : await resolveRef(db, input.project.id, input.ref);
    if (!resolved) throw new PipelineCreationError("Reference not found", "ref");
    ({ sha, tag } = resolved);
  }
  try {
    return await buildAt(db, input, repo, sha, tag);
  } catch (error) {
    if (error instanceof PipelineCreationError) error.at ??= { sha, tag };
    throw error;
  }
}

async function buildAt(db: Executor, input: CreatePipelineInput, repo: Repo, sha: string, tag: boolean) {
  const ref = input.ref.replace(/^refs\/(heads|tags)\//, "");
  const commit = (await readCommitRows(db, repo.poolId, [sha])).get(sha);
  if (!commit) throw new PipelineCreationError("Commit not found", "ref");
  const tree = await commitTree(db, repo, sha);
  const readLocal = async (path: string) => {
    const file = tree ? await readFileAt(db, repo, tree, path) : null;
    return file ? new TextDecoder().decode(file.content) : null;
  };
  const configPath = input.parent?.configPath ?? CONFIG_PATH;
  const text = input.content ?? (await readLocal(configPath));
  if (text === null) throw new PipelineCreationError(input.parent ? `Local file \`${configPath}\` does not exist!` : "Missing CI config file", input.parent ? "config" : "filtered");
  let config: Config;
  try {
    config = await parseConfig(text, readLocal);
  } catch (error) {
    if (error instanceof ConfigError) throw new PipelineCreationError(error.message, "config");
    throw error;
  }
  const beforeSha = input.beforeSha ?? ZERO_OID;
  const facts = { id: null, iid: null, source: input.source, ref, tag, sha, beforeSha, createdAt: null };
  const predefined = mergeVariables(
    serverVariables(input.baseUrl),
    projectVariables(input.baseUrl, input.project),
    pipelineVariables(input.baseUrl, input.project, facts, commit),
    userVariables(input.user),
  );
  const apiVariables = Object.fromEntries(input.variables.map((v) => [v.key, v.value]));
  let files: string[] | null = null;
  const ctx: SeedContext = {
    variables: { ...asRecord(predefined), ...config.variables },
    apiVariables,
    source: input.source,
    ref,
    tag,
    changedPaths: input.source === "push" ? await changedPaths(db, repo, beforeSha, sha) : null,
    files: async () => {
      files ??= tree ? ((await listTree(db, repo, tree, "", true)) ?? []).filter((e) => e.type === "blob").map((e) => e.path) : [];
      return files;
    },
  };
  try {
    if (config.workflowRules) {
      const rule = await matchRules(config.workflowRules, { ...ctx.variables, ...apiVariables }, ctx);
      if (!rule) throw new PipelineCreationError("Pipeline filtered out by workflow rules.", "filtered");
    }
    const jobs = await seedJobs(config, ctx);
    return { config, jobs, sha, tag, ref, beforeSha, predefined };
  } catch (error) {
    if (error instanceof SeedError) throw new PipelineCreationError(error.message, error.message.startsWith("No stages") ? "filtered" : "config");
    if (error instanceof Error && error.name === "ExpressionError") throw new PipelineCreationError(error.message, "config");
    throw error;
  }
}

function jobOptions(job: SeededJob) {
  const s = job.spec;
  return {
    script: [...s.beforeScript, ...s.script],
    after_script: s.afterScript,
    image: s.image,
    services: s.services,
    cache: s.cache,
    artifacts: s.artifacts,
    dependencies: s.dependencies,
    retry: s.retry,
    start_in: job.startIn,
    environment: s.environment,
    interruptible: s.interruptible,
    trigger: s.trigger,
  };
}

/**
 * Each job's `environment:` with its name and URL expanded (Seed::Environment: predefined, YAML, job and
 * pipeline variables; project CI/CD variables are not read here), the environment found or created;
 * "invalid" when the expanded name is not a valid name (the job is stored failed, as GitLab's
 * `environment_creation_failure`). Bridges take no environment.
 */
async function resolveEnvironments(tx: Executor, input: CreatePipelineInput, built: Awaited<ReturnType<typeof buildPipeline>>): Promise<(JobEnvironment | "invalid" | null)[]> {
  const base = { ...asRecord(built.predefined), ...built.config.variables };
  const api = Object.fromEntries(input.variables.map((v) => [v.key, v.value]));
  const out: (JobEnvironment | "invalid" | null)[] = [];
  for (const job of built.jobs) {
    const spec = job.spec.environment;
    if (!spec || job.spec.trigger) {
      out.push(null);
      continue;
    }
    const vars = { ...base, ...job.variables, ...api };
    const name = expandVariables(spec.name, vars).trim();
    if (!validExpandedName(name)) {
      out.push("invalid");
      continue;
    }
    const env = await ensureEnvironment(tx, input.project.id, name, spec.deploymentTier);
    const url = spec.url === null ? null : expandVariables(spec.url, { ...vars, CI_ENVIRONMENT_NAME: env.name, CI_ENVIRONMENT_SLUG: env.slug }) || null;
    out.push({
      id: env.id,
      name: env.name,
      slug: env.slug,
      url: url ?? env.externalUrl,
      url_from_job: url !== null,
      action: spec.action,
      on_stop: spec.onStop,
      auto_stop_in: spec.autoStopIn,
      auto_stop_in_seconds: spec.autoStopIn === null ? null : parseDuration(spec.autoStopIn),
      deployment_tier: spec.deploymentTier,
      tier: env.tier,
    });
  }
  return out;
}

/** Persists a built pipeline in one transaction (docs/ci.md, "Creating a pipeline", step 7). */
export async function persistPipeline(
  db: Database,
  input: CreatePipelineInput,
  built: Awaited<ReturnType<typeof buildPipeline>>,
): Promise<CiPipeline> {
  return db.transaction(async (tx) => {
    const pipeline = await insertPipeline(tx, input, built, { status: "created" });
    if (input.variables.length)
      await tx.insert(ciPipelineVariables).values(
        input.variables.map((v) => ({ pipelineId: pipeline.id, key: v.key, value: v.value, variableType: v.variable_type ?? "env_var" })),
      );
    const stageNames = built.config.stages.filter((s) => built.jobs.some((j) => j.spec.stage === s));
    const stages = await tx
      .insert(ciStages)
      .values(stageNames.map((name) => ({ pipelineId: pipeline.id, name, position: built.config.stages.indexOf(name) })))
      .returning();
    const stageId = new Map(stages.map((s) => [s.name, s.id]));
    const environments = await resolveEnvironments(tx, input, built);
    const inserted = await tx.insert(ciBuilds).values(
      built.jobs.map((job, i) => {
        const vars = { ...job.variables };
        if (job.spec.node) {
          vars.CI_NODE_INDEX = String(job.spec.node.index);
          vars.CI_NODE_TOTAL = String(job.spec.node.total);
        }
        const env = environments[i];
        return {
          pipelineId: pipeline.id,
          projectId: input.project.id,
          ...(env === "invalid" ? { status: "failed", failureReason: "environment_creation_failure", finishedAt: sql`now()` } : {}),
          stageId: stageId.get(job.spec.stage)!,
          stageIdx: built.config.stages.indexOf(job.spec.stage),
          stage: job.spec.stage,
          name: job.spec.name,
          type: job.spec.trigger ? "bridge" : "build",
          when: job.when,
          allowFailure: job.allowFailure,
          allowFailureExitCodes: job.spec.allowFailureExitCodes,
          schedulingType: job.needs ? "dag" : "stage",
          options: { ...jobOptions(job), environment: env === "invalid" ? null : env },
          yamlVariables: Object.entries(vars).map(([key, value]) => ({ key, value })),
          needs: job.needs ?? [],
          tagList: job.spec.tags,
          coverageRegex: job.spec.coverage,
          timeout: job.spec.timeout,
          userId: input.user?.id ?? null,
        };
      }),
    ).returning({ id: ciBuilds.id, projectId: ciBuilds.projectId, options: ciBuilds.options });
    for (const job of inserted) await createJobDeployment(tx, job);
    return pipeline;
  });
}

type PipelineRowInput = Pick<CreatePipelineInput, "pushEventId" | "parent" | "pipelineScheduleId" | "triggerId"> & {
  project: { id: number };
  source: CreatePipelineInput["source"] | "external";
  user: { id: number } | null;
};

async function insertPipeline(
  tx: Executor,
  input: PipelineRowInput,
  built: { sha: string; tag: boolean; ref: string; beforeSha: string },
  extra: { status: string; yamlErrors?: string; failureReason?: string },
): Promise<CiPipeline> {
  // The counter's row lock serialises creators of one project until this transaction ends.
  const iid = await nextIid(tx, "ci_pipelines", { projectId: input.project.id });
  const [pipeline] = await tx
    .insert(ciPipelines)
    .values({
      iid,
      projectId: input.project.id,
      ref: built.ref,
      tag: built.tag,
      sha: built.sha,
      beforeSha: built.beforeSha,
      source: input.source,
      status: extra.status,
      userId: input.user?.id ?? null,
      yamlErrors: extra.yamlErrors ?? null,
      failureReason: extra.failureReason ?? null,
      pushEventId: input.pushEventId ?? null,
      parentPipelineId: input.parent?.pipelineId ?? null,
      sourceJobId: input.parent?.jobId ?? null,
      pipelineScheduleId: input.pipelineScheduleId ?? null,
      triggerId: input.triggerId ?? null,
      finishedAt: extra.status === "failed" ? sql`now()` : null,
    })
    .returning();
  return pipeline;
}

/**
 * The pipeline of an external status that found none on its commit (lib/api/commit_statuses.rb,
 * `ci_pipelines.build(source: :external, sha:, ref:, user:)`): no configuration, no jobs; its
 * statuses make its status when the coordinator processes it.
 */
export async function createExternalPipeline(db: Database, input: { projectId: number; sha: string; ref: string; userId: number }): Promise<CiPipeline> {
  return db.transaction((tx) =>
    insertPipeline(tx, { project: { id: input.projectId }, source: "external", user: { id: input.userId } }, { sha: input.sha, tag: false, ref: input.ref, beforeSha: ZERO_OID }, { status: "created" }),
  );
}

/**
 * Builds and persists; for pushes and child pipelines a config error stores a failed pipeline with
 * `yaml_errors` (GitLab's behaviour); through the API it is thrown for the 400.
 */
export async function createPipeline(db: Database, input: CreatePipelineInput): Promise<CiPipeline | null> {
  try {
    const built = await buildPipeline(db, input);
    return await persistPipeline(db, input, built);
  } catch (error) {
    if (!(error instanceof PipelineCreationError) || input.source === "api" || input.source === "web") throw error;
    // Triggers answer every refusal but a configuration error (stored as a failed pipeline) with a 400.
    if (error.kind !== "config") {
      if (input.source === "trigger") throw error;
      return null;
    }
    const sha = input.parent?.sha ?? input.sha ?? error.at?.sha;
    if (!sha) return null;
    return db.transaction((tx) =>
      insertPipeline(
        tx,
        input,
        { sha, tag: input.parent?.tag ?? error.at?.tag ?? input.ref.startsWith("refs/tags/"), ref: input.ref.replace(/^refs\/(heads|tags)\//, ""), beforeSha: input.beforeSha ?? ZERO_OID },
        { status: "failed", yamlErrors: error.message, failureReason: "config_error" },
      ),
    );
  }
}

/** The facts of a project that pipelines need (for pushes, which arrive without a loaded project). */
export async function projectFacts(db: Executor, projectId: number): Promise<ProjectFacts | null> {
  const result = await db.execute<{ id: number; name: string; path: string; full_path: string; ns_path: string; visibility_level: number; default_branch: string | null; pool_id: number | null }>(sql`
    SELECT p.id, p.name, p.path, p.full_path, n.full_path AS ns_path, p.visibility_level, p.default_branch, p.pool_id
    FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE p.id = ${projectId}`);
  const r = result.rows[0];
  return r ? { id: r.id, name: r.name, path: r.path, fullPath: r.full_path, namespaceFullPath: r.ns_path, visibilityLevel: Number(r.visibility_level), defaultBranch: r.default_branch, poolId: r.pool_id } : null;
}

export async function userFacts(db: Executor, userId: number | null): Promise<UserFacts> {
  if (userId === null) return null;
  const result = await db.execute<{ id: number; username: string; name: string; email: string }>(sql`SELECT id, username, name, email FROM users WHERE id = ${userId}`);
  return result.rows[0] ?? null;
}

/** `[skip ci]` / `[ci skip]` in the head commit's message (lib/gitlab/ci/pipeline/chain/skip.rb). */
export const SKIP_PATTERN = /\[(ci[ _-]skip|skip[ _-]ci)\]/i;

/**
 * Claims the project's unprocessed push events (oldest first, `FOR UPDATE SKIP LOCKED`) and creates a
 * `push` pipeline for each branch or tag update that has a `.gitlab-ci.yml`, unless the head commit says
 * `[skip ci]` or the push carried `ci.skip`. Returns the created pipelines' ids (not yet processed).
 */
export async function pipelinesForPushEvents(db: Database, projectId: number | null, baseUrl: string, opts: { ciSkip?: boolean } = {}): Promise<number[]> {
  const created: number[] = [];
  for (let i = 0; i < 50; i++) {
    const claimed = await db.execute<{ id: number; project_id: number; ref: string; before: string; after: string; user_id: number | null }>(sql`
      UPDATE push_events SET processed_at = now()
      WHERE id = (SELECT id FROM push_events WHERE processed_at IS NULL ${projectId === null ? sql`` : sql`AND project_id = ${projectId}`}
                  ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id, project_id, ref, before, after, user_id`);
    const event = claimed.rows[0];
    if (!event) break;
    if (opts.ciSkip || event.after === ZERO_OID || !/^refs\/(heads|tags)\//.test(event.ref)) continue;
    const project = await projectFacts(db, event.project_id);
    if (!project) continue;
    const head = (await readCommitRows(db, project.id, [event.after])).get(event.after);
    if (!head || SKIP_PATTERN.test(head.message)) continue;
    const pipeline = await createPipeline(db, {
      project,
      ref: event.ref,
      source: "push",
      user: await userFacts(db, event.user_id),
      variables: [],
      baseUrl,
      beforeSha: event.before,
      sha: event.after,
      pushEventId: Number(event.id),
    });
    if (pipeline) created.push(pipeline.id);
  }
  return created;
}

/** A bridge's child pipeline (`trigger: include:`): created, linked, returned (not yet processed). */
export async function createChildPipeline(db: Database, bridgeId: number, baseUrl: string): Promise<CiPipeline | null> {
  const [bridge] = await db.select().from(ciBuilds).where(eq(ciBuilds.id, bridgeId));
  if (!bridge) return null;
  const [parent] = await db.select().from(ciPipelines).where(eq(ciPipelines.id, bridge.pipelineId));
  const project = await projectFacts(db, bridge.projectId);
  if (!parent || !project) return null;
  const trigger = bridge.options.trigger as { include: string } | null;
  if (!trigger) return null;
  const variables = [...(await db.select().from(ciPipelineVariables).where(eq(ciPipelineVariables.pipelineId, parent.id)))].map((v) => ({
    key: v.key,
    value: v.value,
    variable_type: v.variableType,
  }));
  return createPipeline(db, {
    project,
    ref: parent.ref,
    source: "parent_pipeline",
    user: await userFacts(db, bridge.userId),
    variables: [...variables, ...bridge.yamlVariables.map((v) => ({ key: v.key, value: v.value }))],
    baseUrl,
    beforeSha: parent.beforeSha,
    parent: { pipelineId: parent.id, jobId: bridge.id, configPath: trigger.include, sha: parent.sha, ref: parent.ref, tag: parent.tag },
  });
}


/**
 * The `*\/5` sweep (docs/ci.md, "The pipeline coordinator"; app/services/ci/stuck_builds/): push events whose call was lost, stuck
 * jobs, stale schedules and pipelines left unprocessed. Bounded per run; returns what it touched.
 */
export async function sweepStep(db: Database, baseUrl: string) {
  const pushed = await pipelinesForPushEvents(db, null, baseUrl);
  const dropped = await db.execute<{ id: number; pipeline_id: number; reason: string }>(sql`
    SELECT id, pipeline_id, CASE
      WHEN status = 'running' THEN 'stuck_or_timeout_failure'
      WHEN status = 'pending' THEN 'stuck_or_timeout_failure'
      ELSE 'stale_schedule' END AS reason
    FROM ci_builds
    WHERE (status = 'running' AND updated_at < now() - interval '1 hour')
       OR (status = 'pending' AND coalesce(queued_at, created_at) < now() - interval '1 day')
       OR (status = 'scheduled' AND scheduled_at < now() - interval '1 hour')
    LIMIT 100`);
  const unprocessed = await db.execute<{ pipeline_id: number }>(sql`
    SELECT DISTINCT pipeline_id FROM ci_builds WHERE NOT processed AND updated_at < now() - interval '1 minute' LIMIT 100`);
  return {
    pushed,
    dropped: dropped.rows.map((r) => ({ id: Number(r.id), pipelineId: Number(r.pipeline_id), reason: r.reason })),
    unprocessed: unprocessed.rows.map((r) => Number(r.pipeline_id)),
  };
}
