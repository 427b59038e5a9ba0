import { and, eq, sql } from "drizzle-orm";
import { environments, type Environment } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { nextIidSql } from "../issuables/iids";
import { environmentSlug, environmentType, guessTier, nameErrors } from "./rules";

/**
 * Environments and deployments made by CI jobs (docs/deployments.md; lib/gitlab/ci/pipeline/seed/
 * environment.rb and deployment.rb). The pipeline creator and the job retry call these inside their
 * write; a deployment's later statuses are written by the `ci_builds` trigger of migration 0051, in the
 * statement that moves its job.
 */

/** What a job with `environment:` carries in `ci_builds.options.environment` once expanded and resolved. */
export type JobEnvironment = {
  id: number;
  name: string;
  slug: string;
  /** The expanded `environment:url`, else the environment's external URL when the pipeline was made. */
  url: string | null;
  /** Whether `url` came from the job (the environment's URL is set from it when the deployment succeeds). */
  url_from_job: boolean;
  action: string;
  on_stop: string | null;
  auto_stop_in: string | null;
  auto_stop_in_seconds: number | null;
  deployment_tier: string | null;
  tier: string;
};

/** ExpandVariables.expand: `$VAR`, `${VAR}` and `%VAR%`; an unknown variable becomes empty. */
export function expandVariables(text: string, vars: Record<string, string>): string {
  return text.replace(/\$([a-zA-Z_][a-zA-Z0-9_]*)|\$\{([a-zA-Z_][a-zA-Z0-9_]*)\}|%([a-zA-Z_][a-zA-Z0-9_]*)%/g, (_m, a, b, c) => vars[a ?? b ?? c] ?? "");
}

/** Null when the expanded name is not a valid environment name (the job then fails with `environment_creation_failure`). */
export function validExpandedName(name: string): boolean {
  return nameErrors(name).length === 0;
}

/**
 * Seed::Environment#to_resource: the project's environment of that name, created when missing (tier
 * from `deployment_tier` or guessed from the name); an explicit `deployment_tier` updates an existing one.
 */
export async function ensureEnvironment(tx: Executor, projectId: number, name: string, deploymentTier: string | null): Promise<Environment> {
  const inserted = await tx
    .insert(environments)
    .values({ projectId, name, slug: await environmentSlug(name), tier: deploymentTier ?? guessTier(name), environmentType: environmentType(name) })
    .onConflictDoNothing()
    .returning();
  if (inserted[0]) return inserted[0];
  const where = and(eq(environments.projectId, projectId), eq(environments.name, name));
  if (deploymentTier) {
    const [updated] = await tx.update(environments).set({ tier: deploymentTier, updatedAt: sql`now()` }).where(and(where, sql`${environments.tier} <> ${deploymentTier}`)).returning();
    if (updated) return updated;
  }
  const [found] = await tx.select().from(environments).where(where);
  return found;
}

/**
 * Seed::Deployment: the `created` deployment of a job whose environment action is `start` (a new
 * pipeline's jobs, and a retried job's clone, as Ci::RetryJobService makes a new one). One statement:
 * the iid, and the ref and sha of the job's pipeline. Nothing when the job has no such environment.
 */
export async function createJobDeployment(db: Executor, job: { id: number; projectId: number; options: Record<string, unknown> }): Promise<void> {
  const env = job.options.environment as JobEnvironment | null | undefined;
  if (!env || typeof env !== "object" || env.action !== "start" || typeof env.id !== "number") return;
  await db.execute(sql`
    WITH iid AS (${nextIidSql("deployments", { projectId: job.projectId })})
    INSERT INTO deployments (iid, project_id, environment_id, ref, tag, sha, deployable_id, user_id, on_stop)
    SELECT iid.last_value, b.project_id, e.id, p.ref, p.tag, p.sha, b.id, b.user_id, ${env.on_stop}::text
    FROM ci_builds b JOIN ci_pipelines p ON p.id = b.pipeline_id JOIN environments e ON e.id = ${env.id}::int AND e.project_id = b.project_id, iid
    WHERE b.id = ${job.id}::int`);
}
