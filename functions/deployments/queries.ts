import { and, asc, desc, eq, gte, inArray, lt, lte, sql, type SQL } from "drizzle-orm";
import { deployments, environments, mergeRequests, users, type Deployment, type Environment } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";
import type { DeploymentRow } from "../entities/deployments";
import type { GitCommitRow } from "../../db/schema";
import { jobRowsByIds } from "../jobs/public";
import { commitsBetween, repoOf, resolveRevisions } from "../shared/git";
import { nextIidSql } from "../shared/issuables/iids";
import type { ListParams } from "./params";

export type { DeploymentRow } from "../entities/deployments";
export type { Environment, GitCommitRow } from "../../db/schema";

/** DeploymentsFinder's filters (app/finders/deployments_finder.rb). */
function listWhere(projectId: number, f: ListParams): SQL {
  return and(
    eq(deployments.projectId, projectId),
    f.updated_after ? gte(deployments.updatedAt, f.updated_after) : undefined,
    f.updated_before ? lte(deployments.updatedAt, f.updated_before) : undefined,
    f.finished_after ? gte(deployments.finishedAt, f.finished_after) : undefined,
    f.finished_before ? lt(deployments.finishedAt, f.finished_before) : undefined,
    f.environment !== undefined
      ? inArray(deployments.environmentId, sql`(SELECT id FROM environments WHERE project_id = ${projectId} AND name = ${f.environment})`)
      : undefined,
    f.status ? eq(deployments.status, f.status) : undefined,
  )!;
}

/**
 * DeploymentsFinder#sort: `created_at` and `iid` sort as `id`; `updated_at` breaks ties by id
 * descending (as GitLab); `ref` and `finished_at` by id in the same direction (GitLab leaves them open).
 */
function listOrder(f: ListParams): SQL[] {
  const dir = f.sort === "desc" ? desc : asc;
  switch (f.order_by) {
    case "updated_at":
      return [dir(deployments.updatedAt), desc(deployments.id)];
    case "ref":
      return [dir(deployments.ref), dir(deployments.id)];
    case "finished_at":
      return [dir(deployments.finishedAt), dir(deployments.id)];
    default:
      return [dir(deployments.id)];
  }
}

function selectDeployments(db: Executor) {
  return db
    .select({ deployment: deployments, environment: environments, user: users })
    .from(deployments)
    .innerJoin(environments, eq(environments.id, deployments.environmentId))
    .leftJoin(users, eq(users.id, deployments.userId));
}

type Base = { deployment: Deployment; environment: Environment; user: DeploymentRow["user"] };

/** The jobs (`deployable`) of the rows, with their relations, in one batch. */
async function withJobs(db: Executor, projectId: number, base: Base[]): Promise<{ rows: DeploymentRow[]; commits: Map<string, GitCommitRow> }> {
  const ids = base.map((b) => b.deployment.deployableId).filter((id): id is number => id !== null);
  const jobs = await jobRowsByIds(db, projectId, ids);
  const rows = base.map((b) => ({ ...b.deployment, environment: b.environment, user: b.user, deployable: b.deployment.deployableId ? (jobs.rows.get(b.deployment.deployableId) ?? null) : null }));
  return { rows, commits: jobs.commits };
}

/** A page of a project's deployments with the environment, user and job preloaded (a constant number of statements). */
export async function listDeployments(db: Executor, projectId: number, f: ListParams, page: Page) {
  const where = listWhere(projectId, f);
  const base = await selectDeployments(db).where(where).orderBy(...listOrder(f)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(deployments).where(where), page);
  return { ...(await withJobs(db, projectId, base)), total };
}

export async function findDeployment(db: Executor, projectId: number, id: number): Promise<{ row: DeploymentRow; commits: Map<string, GitCommitRow> } | null> {
  const base = await selectDeployments(db).where(and(eq(deployments.projectId, projectId), eq(deployments.id, id)));
  if (!base.length) return null;
  const { rows, commits } = await withJobs(db, projectId, base);
  return { row: rows[0], commits };
}

/** Environment#last_deployment: the latest successful deployment (by finish, then id). */
export async function lastDeploymentId(db: Executor, environmentId: number): Promise<number | null> {
  const [row] = await db
    .select({ id: deployments.id })
    .from(deployments)
    .where(and(eq(deployments.environmentId, environmentId), eq(deployments.status, "success")))
    .orderBy(sql`${deployments.finishedAt} DESC NULLS LAST`, desc(deployments.id))
    .limit(1);
  return row?.id ?? null;
}

/** Deployment#valid_sha and #valid_ref: both must name a commit of the repository (one statement for both). */
export async function resolveCommits(db: Executor, project: { id: number; defaultBranch: string | null; poolId?: number | null }, revs: string[]) {
  return resolveRevisions(db, repoOf(project), revs);
}

/**
 * Deployments::CreateService without a job: the next iid, the row, in one statement; a final status sets
 * `finished_at` (Deployment's `before_transition any => FINISHED_STATUSES`). A `success` row starts its
 * environment through the `deployments` trigger (migration 0051), in the same statement.
 */
export async function insertDeployment(
  db: Executor,
  v: { projectId: number; environmentId: number; ref: string; tag: boolean; sha: string; status: string; userId: number },
): Promise<number> {
  const finished = ["success", "failed", "canceled"].includes(v.status);
  const result = await db.execute<{ id: number }>(sql`
    WITH iid AS (${nextIidSql("deployments", { projectId: v.projectId })})
    INSERT INTO deployments (iid, project_id, environment_id, ref, tag, sha, status, user_id, finished_at)
    SELECT iid.last_value, ${v.projectId}::int, ${v.environmentId}::int, ${v.ref}, ${v.tag}, ${v.sha}, ${v.status}, ${v.userId}::int,
      ${finished ? sql`now()` : sql`NULL`}
    FROM iid
    RETURNING id`);
  return Number(result.rows[0].id);
}

/** Deployment#update_status for a deployment without a job; `from` guards against a concurrent change. */
export async function updateDeploymentStatus(db: Executor, id: number, from: string, status: string): Promise<boolean> {
  const finished = ["success", "failed", "canceled"].includes(status);
  const rows = await db
    .update(deployments)
    .set({ status, updatedAt: sql`now()`, ...(finished ? { finishedAt: sql`now()` } : {}) })
    .where(and(eq(deployments.id, id), eq(deployments.status, from)))
    .returning({ id: deployments.id });
  return rows.length > 0;
}

export async function deleteDeployment(db: Executor, id: number): Promise<void> {
  await db.delete(deployments).where(eq(deployments.id, id));
}

/**
 * The merge requests a deployment shipped (Deployments::LinkMergeRequestsService, computed when read
 * instead of linked when the deployment succeeds): for a successful deployment, the merged merge
 * requests of the project whose merge or squash commit is in `previous..sha`, the previous being the
 * environment's last successful deployment before it; for the environment's first, every merge
 * request merged into the deployed ref before the deployment finished. Returns their iids.
 */
export async function shippedMergeRequestIids(
  db: Executor,
  project: { id: number; defaultBranch: string | null; poolId?: number | null },
  d: Deployment,
): Promise<number[]> {
  if (d.status !== "success") return [];
  const [previous] = await db
    .select({ sha: deployments.sha })
    .from(deployments)
    .where(and(eq(deployments.environmentId, d.environmentId), eq(deployments.status, "success"), lt(deployments.id, d.id)))
    .orderBy(desc(deployments.id))
    .limit(1);
  const merged = and(eq(mergeRequests.projectId, project.id), eq(mergeRequests.state, "merged"));
  let where: SQL;
  if (previous) {
    const shas = (await commitsBetween(db, repoOf(project), previous.sha, d.sha)).map((c) => c.oid);
    if (shas.length === 0) return [];
    where = and(merged, sql`(${inArray(mergeRequests.mergeCommitSha, shas)} OR ${inArray(mergeRequests.squashCommitSha, shas)})`)!;
  } else {
    where = and(merged, eq(mergeRequests.targetBranch, d.ref), d.finishedAt ? lte(mergeRequests.mergedAt, d.finishedAt) : undefined)!;
  }
  const rows = await db.select({ iid: mergeRequests.iid }).from(mergeRequests).where(where);
  return rows.map((r) => r.iid);
}
