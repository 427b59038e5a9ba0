import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import {
  ciBuildTraceChunks,
  ciBuilds,
  ciJobArtifacts,
  ciRegistrationTokens,
  ciRunnerNamespaces,
  ciRunnerProjects,
  ciRunners,
  ciPipelines,
  namespaces,
  projects,
  users,
  type CiBuild,
  type CiRunner,
  type GitCommitRow,
} from "../../db/schema";
import { tableRowFrom, type Database, type Executor } from "../kernel/db";
import { readCommitRows } from "../shared/git";
import { cappedCount, type Page } from "../kernel/pagination";
import { authorizedProjectIds, projectAccessLevel } from "../kernel/visibility";
import type { ListParams } from "./params";

/** The runner protocol's SQL (docs/ci.md, "Runner protocol"): registration, the claim, trace append, artifacts. */

export type RunnerInfo = { name?: string; version?: string; revision?: string; platform?: string; architecture?: string };

export async function findRegistrationToken(db: Executor, digest: string) {
  const rows = await db.select().from(ciRegistrationTokens).where(eq(ciRegistrationTokens.tokenDigest, digest)).limit(1);
  return rows[0] ?? null;
}

/**
 * Replaces the instance's (or a project's) registration token; false when the project is gone.
 *
 * Lock order (SQLSTATE 40P01): the owner first, then its token rows. Deleting the token
 * rows first and then inserting (whose foreign key takes KEY SHARE on the project row) deadlocked
 * against a project deletion, which locks the project row and then cascades into the token rows.
 * Taking the owner's lock first also serialises concurrent resets, so each DELETE sees the token
 * the previous reset inserted: under READ COMMITTED without it, 32 concurrent resets all deleted
 * the same old row and left several valid tokens. The instance has no owner row: an advisory lock.
 */
export async function resetRegistrationToken(db: Database, digest: string, projectId: number | null, namespaceId: number | null = null): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (projectId !== null) {
      // NO KEY UPDATE: conflicts with itself and with a deletion, not with the KEY SHARE of inserts elsewhere.
      const owner = await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).for("no key update");
      if (!owner.length) return false;
    } else if (namespaceId !== null) {
      const owner = await tx.select({ id: namespaces.id }).from(namespaces).where(eq(namespaces.id, namespaceId)).for("no key update");
      if (!owner.length) return false;
    } else await tx.execute(sql`SELECT pg_advisory_xact_lock(${REGISTRATION_TOKEN_LOCK}, 0)`);
    await tx
      .delete(ciRegistrationTokens)
      .where(
        projectId !== null
          ? eq(ciRegistrationTokens.projectId, projectId)
          : namespaceId !== null
            ? eq(ciRegistrationTokens.namespaceId, namespaceId)
            : sql`${ciRegistrationTokens.projectId} IS NULL AND ${ciRegistrationTokens.namespaceId} IS NULL`,
      );
    await tx.insert(ciRegistrationTokens).values({ tokenDigest: digest, projectId, namespaceId });
    return true;
  });
}

/** pg_advisory_xact_lock class of the instance registration token. */
const REGISTRATION_TOKEN_LOCK = 1129;

export type NewRunner = {
  digest: string;
  runnerType: string;
  description?: string;
  tagList: string[];
  runUntagged: boolean;
  locked: boolean;
  accessLevel: string;
  maximumTimeout: number | null;
  active: boolean;
  info?: RunnerInfo;
  projectId?: number | null;
  namespaceId?: number | null;
};

export async function createRunner(db: Database, r: NewRunner): Promise<CiRunner> {
  return db.transaction(async (tx) => {
    const [runner] = await tx
      .insert(ciRunners)
      .values({
        tokenDigest: r.digest,
        runnerType: r.runnerType,
        description: r.description ?? "",
        tagList: r.tagList,
        runUntagged: r.runUntagged,
        locked: r.locked,
        accessLevel: r.accessLevel,
        maximumTimeout: r.maximumTimeout,
        active: r.active,
        name: r.info?.name ?? null,
        version: r.info?.version ?? null,
        revision: r.info?.revision ?? null,
        platform: r.info?.platform ?? null,
        architecture: r.info?.architecture ?? null,
      })
      .returning();
    if (r.projectId) await tx.insert(ciRunnerProjects).values({ runnerId: runner.id, projectId: r.projectId });
    if (r.namespaceId) await tx.insert(ciRunnerNamespaces).values({ runnerId: runner.id, namespaceId: r.namespaceId });
    return runner;
  });
}

/** The runner of a token, touched (`contacted_at`), with the queue version (1 statement). */
export async function touchRunner(db: Executor, digest: string, info: RunnerInfo | undefined, ip: string | null) {
  const result = await db.execute<CiRunnerRowRaw & { queue_version: string }>(sql`
    UPDATE ci_runners SET contacted_at = now(),
      name = coalesce(${info?.name ?? null}, name), version = coalesce(${info?.version ?? null}, version),
      revision = coalesce(${info?.revision ?? null}, revision), platform = coalesce(${info?.platform ?? null}, platform),
      architecture = coalesce(${info?.architecture ?? null}, architecture), ip_address = coalesce(${ip}, ip_address)
    WHERE token_digest = ${digest}
    RETURNING id, active, run_untagged, tag_list, runner_type, maximum_timeout, description,
      (SELECT version FROM ci_queue_state WHERE id = 1)::text AS queue_version`);
  const row = result.rows[0];
  return row ? { ...rawRunner(row), queueVersion: row.queue_version } : null;
}

type CiRunnerRowRaw = { id: number; active: boolean; run_untagged: boolean; tag_list: string[]; runner_type: string; maximum_timeout: number | null; description: string };
const rawRunner = (r: CiRunnerRowRaw) => ({
  id: Number(r.id),
  active: r.active,
  runUntagged: r.run_untagged,
  tagList: r.tag_list,
  runnerType: r.runner_type,
  maximumTimeout: r.maximum_timeout,
  description: r.description,
});
export type ClaimingRunner = ReturnType<typeof rawRunner>;

export async function queueVersion(db: Executor): Promise<string> {
  const result = await db.execute<{ v: string }>(sql`SELECT version::text AS v FROM ci_queue_state WHERE id = 1`);
  return result.rows[0]?.v ?? "0";
}

/**
 * The claim: one statement, safe with concurrent runners (FOR UPDATE SKIP LOCKED). It also tells a queue
 * with nothing for this runner (`null`: 204) from a queue whose candidates were all taken from under it
 * (`"conflict"`: 409, as GitLab's `result.valid?` false → `conflict!`, after which the runner asks again at
 * once instead of long polling). The second scan reads the statement's snapshot without locking: when the
 * locking scan returned nothing but this one sees a candidate, every candidate was either row-locked by a
 * concurrent claim or by pipeline processing (skipped), or changed by a transaction that committed after
 * the snapshot (dropped by the re-check of FOR UPDATE). It runs only when nothing was claimed.
 */
export async function claimJob(db: Executor, runner: ClaimingRunner, tokenDigest: string): Promise<CiBuild | "conflict" | null> {
  const scope =
    runner.runnerType === "instance_type"
      ? sql`b.project_id IN (SELECT id FROM projects WHERE shared_runners_enabled)`
      : runner.runnerType === "project_type"
        ? sql`b.project_id IN (SELECT project_id FROM ci_runner_projects WHERE runner_id = ${runner.id})`
        : sql`b.project_id IN (SELECT p.id FROM projects p JOIN namespaces n ON n.id = p.namespace_id
            WHERE n.traversal_ids && ARRAY(SELECT namespace_id FROM ci_runner_namespaces WHERE runner_id = ${runner.id}))`;
  // The whole predicate sits in the locking subquery itself (not `id IN (candidates)`): FOR UPDATE re-checks
  // it on a row a concurrent transaction changed, so a job claimed meanwhile is never claimed twice.
  const candidate = sql`b.status = 'pending' AND b.type = 'build' AND ${scope}
        AND b.tag_list <@ ${sql.param(runner.tagList)}::text[]
        AND (${runner.runUntagged} OR cardinality(b.tag_list) > 0)`;
  // One statement claims and returns the job (a second SELECT of the row cost bench:ci 14% of
  // its claims per second). The LEFT JOIN from one row always yields one row: the claimed job's columns,
  // or NULLs and whether pending candidates existed that concurrent transactions held (409).
  const result = await db.execute<Record<string, unknown> & { conflict: boolean }>(sql`
    WITH claimed AS (
      UPDATE ci_builds SET status = 'running', runner_id = ${runner.id}, started_at = now(), token_digest = ${tokenDigest},
        lock_version = lock_version + 1, processed = false, updated_at = now()
      WHERE id = (SELECT b.id FROM ci_builds b WHERE ${candidate} ORDER BY b.id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING *)
    SELECT claimed.*, claimed.id IS NULL AND EXISTS (SELECT 1 FROM ci_builds b WHERE ${candidate}) AS conflict
    FROM (SELECT 1) AS one LEFT JOIN claimed ON true`);
  const row = result.rows[0];
  const job = tableRowFrom(ciBuilds, row);
  if (job) return job;
  return row.conflict ? "conflict" : null;
}

/** What the job payload needs besides the job: pipeline, project, namespace, user, commit (2 statements). */
export async function jobContext(db: Executor, job: CiBuild) {
  const result = await db.execute<{
    pipeline: Record<string, unknown>;
    project: Record<string, unknown>;
    ns_path: string;
    user: Record<string, unknown> | null;
  }>(sql`
    SELECT row_to_json(p) AS pipeline, row_to_json(pr) AS project, n.full_path AS ns_path,
      (SELECT row_to_json(u) FROM (SELECT id, username, name, email FROM users WHERE id = coalesce(${job.userId}, p.user_id)) u) AS "user"
    FROM ci_pipelines p JOIN projects pr ON pr.id = p.project_id JOIN namespaces n ON n.id = pr.namespace_id
    WHERE p.id = ${job.pipelineId}`);
  const row = result.rows[0];
  const pipeline = row.pipeline as { id: number; iid: number; ref: string; tag: boolean; sha: string; before_sha: string; source: string; created_at: string; user_id: number | null };
  const project = row.project as { id: number; name: string; path: string; full_path: string; visibility_level: number; default_branch: string | null; container_registry_enabled: boolean };
  const commit = (await readCommitRows(db, project.id, [pipeline.sha])).get(pipeline.sha) ?? null;
  return { pipeline, project, namespacePath: row.ns_path, user: row.user as { id: number; username: string; name: string; email: string } | null, commit };
}

export type JobVariableRow = { kind: string; depth: number; key: string; value: string; variable_type: string; masked: boolean; protected: boolean; environment_scope: string };

/**
 * Every CI/CD variable a job of the project may receive, before the protected and environment-scope
 * filters (1 statement): the instance's, those of the project's groups (`depth` = position in the
 * namespace's traversal ids, the closest group last), the project's, and the pipeline's.
 */
export async function jobVariables(db: Executor, projectId: number, pipelineId: number) {
  const result = await db.execute<JobVariableRow>(sql`
    SELECT 'instance' AS kind, 0 AS depth, key, value, variable_type, masked, protected, '*' AS environment_scope FROM ci_instance_variables
    UNION ALL
    SELECT 'group', array_position(n.traversal_ids, gv.group_id), gv.key, gv.value, gv.variable_type, gv.masked, gv.protected, gv.environment_scope
      FROM projects pr JOIN namespaces n ON n.id = pr.namespace_id JOIN ci_group_variables gv ON gv.group_id = ANY(n.traversal_ids)
      WHERE pr.id = ${projectId}
    UNION ALL
    SELECT 'project', 0, key, value, variable_type, masked, protected, environment_scope FROM ci_variables WHERE project_id = ${projectId}
    UNION ALL
    SELECT 'pipeline', 0, key, value, variable_type, false, false, '*' FROM ci_pipeline_variables WHERE pipeline_id = ${pipelineId}`);
  return result.rows;
}

/** Jobs of the pipeline whose archives a job may download, with their archive (1 statement). */
export async function dependencyCandidates(db: Executor, pipelineId: number) {
  return db
    .select({ id: ciBuilds.id, name: ciBuilds.name, stageIdx: ciBuilds.stageIdx, filename: ciJobArtifacts.filename, size: ciJobArtifacts.size })
    .from(ciBuilds)
    .leftJoin(ciJobArtifacts, and(eq(ciJobArtifacts.jobId, ciBuilds.id), eq(ciJobArtifacts.fileType, "archive")))
    .where(and(eq(ciBuilds.pipelineId, pipelineId), eq(ciBuilds.retried, false), eq(ciBuilds.type, "build")))
    .orderBy(asc(ciBuilds.id));
}

export async function findBuild(db: Executor, jobId: number) {
  if (!Number.isSafeInteger(jobId) || jobId > 2147483647) return null;
  const [job] = await db.select().from(ciBuilds).where(eq(ciBuilds.id, jobId));
  return job ?? null;
}

export async function keepAlive(db: Executor, jobId: number) {
  await db.update(ciBuilds).set({ updatedAt: sql`now()` }).where(eq(ciBuilds.id, jobId));
}

/**
 * Appends a trace chunk in one statement: the size moves only if it equals `start` and the job runs.
 * Returns the new size, or null (then the caller tells 403 from 416).
 */
export async function appendTrace(db: Executor, jobId: number, start: number, data: Uint8Array, maxSize: number): Promise<number | null> {
  const result = await db.execute<{ size: number }>(sql`
    WITH moved AS (
      UPDATE ci_builds SET trace_size = trace_size + ${data.length}, updated_at = now()
      WHERE id = ${jobId} AND trace_size = ${start} AND status IN ('running', 'canceling') AND trace_size + ${data.length} <= ${maxSize}
      RETURNING trace_size
    )
    INSERT INTO ci_build_trace_chunks (build_id, "offset", data)
    SELECT ${jobId}, trace_size - ${data.length}, ${data} FROM moved
    RETURNING "offset" + ${data.length} AS size`);
  const row = result.rows[0];
  return row ? Number(row.size) : null;
}

export async function setCoverage(db: Executor, jobId: number, coverage: number) {
  await db.update(ciBuilds).set({ coverage }).where(eq(ciBuilds.id, jobId));
}

/**
 * Records an uploaded artifact (one per job and type) in one transaction; returns the R2 key of the
 * artifact it replaced, if any, for the caller to delete once this committed.
 */
export async function saveArtifact(
  db: Executor,
  a: { jobId: number; projectId: number; fileType: string; fileFormat: string; filename: string; size: number; r2Key: string; expireAt: Date | null },
): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [old] = await tx
      .select({ r2Key: ciJobArtifacts.r2Key })
      .from(ciJobArtifacts)
      .where(and(eq(ciJobArtifacts.jobId, a.jobId), eq(ciJobArtifacts.fileType, a.fileType)))
      .for("update");
    await tx
      .insert(ciJobArtifacts)
      .values(a)
      .onConflictDoUpdate({
        target: [ciJobArtifacts.jobId, ciJobArtifacts.fileType],
        set: { filename: a.filename, size: a.size, r2Key: a.r2Key, expireAt: a.expireAt, fileFormat: a.fileFormat },
      });
    if (a.fileType === "archive") await tx.update(ciBuilds).set({ artifactsExpireAt: a.expireAt }).where(eq(ciBuilds.id, a.jobId));
    return old?.r2Key ?? null;
  });
}

export async function archiveOf(db: Executor, jobId: number) {
  const rows = await db.select().from(ciJobArtifacts).where(and(eq(ciJobArtifacts.jobId, jobId), eq(ciJobArtifacts.fileType, "archive")));
  return rows[0] ?? null;
}

export async function deleteRunnerByDigest(db: Executor, digest: string): Promise<boolean> {
  const rows = await db.delete(ciRunners).where(eq(ciRunners.tokenDigest, digest)).returning({ id: ciRunners.id });
  return rows.length > 0;
}

export async function findRunnerByDigest(db: Executor, digest: string) {
  const rows = await db.select().from(ciRunners).where(eq(ciRunners.tokenDigest, digest));
  return rows[0] ?? null;
}

export async function findRunner(db: Executor, id: number) {
  if (!Number.isSafeInteger(id) || id > 2147483647) return null;
  const rows = await db.select().from(ciRunners).where(eq(ciRunners.id, id));
  if (!rows[0]) return null;
  const projects = await db.select({ projectId: ciRunnerProjects.projectId }).from(ciRunnerProjects).where(eq(ciRunnerProjects.runnerId, id)).orderBy(asc(ciRunnerProjects.projectId));
  const groups = await db.select({ namespaceId: ciRunnerNamespaces.namespaceId }).from(ciRunnerNamespaces).where(eq(ciRunnerNamespaces.runnerId, id));
  return { ...rows[0], projectIds: projects.map((p) => p.projectId), namespaceIds: groups.map((g) => g.namespaceId) };
}

export type RunnerChanges = Partial<Pick<CiRunner, "description" | "active" | "tagList" | "runUntagged" | "locked" | "accessLevel" | "maximumTimeout">>;

export async function updateRunner(db: Executor, id: number, changes: RunnerChanges): Promise<void> {
  await db.update(ciRunners).set({ ...changes, updatedAt: new Date() }).where(eq(ciRunners.id, id));
}

/**
 * Ci::Runner#assign_to in one transaction: an instance runner becomes a project runner; false when
 * the runner already runs the project's jobs.
 */
export async function assignRunner(db: Database, runnerId: number, projectId: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const added = await tx.insert(ciRunnerProjects).values({ runnerId, projectId }).onConflictDoNothing().returning();
    if (!added.length) return false;
    await tx.update(ciRunners).set({ runnerType: "project_type", updatedAt: new Date() }).where(and(eq(ciRunners.id, runnerId), eq(ciRunners.runnerType, "instance_type")));
    return true;
  });
}

/**
 * Removes the runner from the project unless it is the runner's only project (one statement, so two
 * concurrent removals cannot leave it with none): "removed", "only" or "absent".
 */
export async function unassignRunner(db: Executor, runnerId: number, projectId: number): Promise<"removed" | "only" | "absent"> {
  const result = await db.execute<{ state: string }>(sql`
    WITH locked AS (SELECT runner_id, project_id FROM ci_runner_projects WHERE runner_id = ${runnerId} FOR UPDATE),
         gone AS (DELETE FROM ci_runner_projects WHERE runner_id = ${runnerId} AND project_id = ${projectId}
                  AND (SELECT count(*) FROM locked) > 1 RETURNING 1)
    SELECT CASE WHEN EXISTS (SELECT 1 FROM gone) THEN 'removed'
                WHEN EXISTS (SELECT 1 FROM locked WHERE project_id = ${projectId}) THEN 'only'
                ELSE 'absent' END AS state`);
  return result.rows[0].state as "removed" | "only" | "absent";
}

/** Ci::RunnerJobsFinder: the runner's jobs, in projects the user reads as Reporter+ unless `all` (admins). */
export async function runnerJobs(db: Executor, runnerId: number, userId: number, all: boolean, f: { status?: string; sort: "asc" | "desc" }, page: Page) {
  const where = and(
    eq(ciBuilds.runnerId, runnerId),
    f.status ? eq(ciBuilds.status, f.status) : undefined,
    all ? undefined : sql`${projectAccessLevel(userId)} >= 20`,
  );
  const count = db.select({ one: sql`1` }).from(ciBuilds).innerJoin(projects, eq(projects.id, ciBuilds.projectId)).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(where);
  const rows = await db
    .select({ job: ciBuilds, pipeline: ciPipelines, user: users, project: projects })
    .from(ciBuilds)
    .innerJoin(ciPipelines, eq(ciPipelines.id, ciBuilds.pipelineId))
    .innerJoin(projects, eq(projects.id, ciBuilds.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .leftJoin(users, eq(users.id, ciBuilds.userId))
    .where(where)
    .orderBy(f.sort === "asc" ? asc(ciBuilds.id) : desc(ciBuilds.id))
    .limit(page.limit)
    .offset(page.offset);
  const total = await cappedCount(db, count, page);
  const commits = new Map<string, GitCommitRow>();
  for (const poolId of new Set(rows.map((r) => r.project.poolId ?? r.project.id))) {
    const shas = [...new Set(rows.filter((r) => (r.project.poolId ?? r.project.id) === poolId).map((r) => r.pipeline.sha))];
    for (const [sha, row] of await readCommitRows(db, poolId, shas)) commits.set(sha, row);
  }
  return { rows, total, commits };
}

export async function deleteRunner(db: Executor, id: number) {
  await db.delete(ciRunners).where(eq(ciRunners.id, id));
}

/** Every runner, or those a project may use (`projectId`: the instance's and the project's own). */
/** `ownedBy`: `User#ci_owned_runners`, runners of the projects the user maintains and of the groups (and their subgroups) the user owns. */
export type RunnerSource = { projectId?: number; groupTraversalIds?: number[]; ownedBy?: number };

/** `online_contact_time_deadline` (2 hours) and `stale_deadline` (3 months) of Ci::Runner, GitLab 15.4. */
const ONLINE = sql`now() - interval '2 hours'`;
const STALE = sql`now() - interval '3 months'`;

/** A Ci::Runner scope of `filter_runners`: a type, a legacy type, or a status (deprecated ones included). */
function runnerScope(scope: NonNullable<ListParams["scope"]>): SQL {
  switch (scope) {
    case "instance_type":
    case "group_type":
    case "project_type":
      return eq(ciRunners.runnerType, scope);
    case "shared":
      return eq(ciRunners.runnerType, "instance_type");
    case "specific":
      return sql`${ciRunners.runnerType} <> 'instance_type'`;
    case "active":
      return eq(ciRunners.active, true);
    case "paused":
      return eq(ciRunners.active, false);
    case "online":
      return sql`${ciRunners.contactedAt} > ${ONLINE}`;
    case "offline":
      return sql`${ciRunners.contactedAt} <= ${ONLINE}`;
    case "not_connected":
    case "never_contacted":
      return sql`${ciRunners.contactedAt} IS NULL`;
    case "stale":
      return sql`(${ciRunners.contactedAt} IS NULL AND ${ciRunners.createdAt} <= ${STALE} OR ${ciRunners.contactedAt} <= ${STALE})`;
  }
}

/** The runners owned by `userId` (`ci_owned_runners`, without group shares). */
function ownedRunners(userId: number): SQL {
  return sql`(${ciRunners.id} IN (SELECT rp.runner_id FROM ci_runner_projects rp WHERE rp.project_id IN ${authorizedProjectIds(userId, 40)}) AND ${ciRunners.runnerType} = 'project_type'
    OR ${ciRunners.id} IN (SELECT rn.runner_id FROM ci_runner_namespaces rn JOIN namespaces g ON g.id = rn.namespace_id
      WHERE g.traversal_ids && ARRAY(SELECT m.source_id FROM members m WHERE m.user_id = ${userId} AND m.source_type = 'Namespace'
        AND m.access_level >= 50 AND (m.expires_at IS NULL OR m.expires_at > current_date))))`;
}

export async function listRunners(db: Executor, source: RunnerSource, f: ListParams, page: Page) {
  const where = and(
    f.scope ? runnerScope(f.scope) : undefined,
    f.type ? eq(ciRunners.runnerType, f.type) : undefined,
    f.status ? runnerScope(f.status) : undefined,
    f.paused === undefined ? undefined : eq(ciRunners.active, !f.paused),
    f.tag_list?.length ? sql`${ciRunners.tagList} @> ${sql.param(f.tag_list)}::text[]` : undefined,
    source.projectId === undefined
      ? undefined
      : sql`(${ciRunners.runnerType} = 'instance_type' OR ${ciRunners.id} IN (SELECT runner_id FROM ci_runner_projects WHERE project_id = ${source.projectId}))`,
    // Ci::Runner.group_or_instance_wide: the instance's runners and those of the group and its ancestors.
    source.groupTraversalIds === undefined
      ? undefined
      : sql`(${ciRunners.runnerType} = 'instance_type' OR ${ciRunners.id} IN (SELECT runner_id FROM ci_runner_namespaces WHERE namespace_id = ANY(${sql.param(source.groupTraversalIds)}::int[])))`,
    source.ownedBy === undefined ? undefined : ownedRunners(source.ownedBy),
  );
  const rows = await db.select().from(ciRunners).where(where).orderBy(desc(ciRunners.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(ciRunners).where(where), page);
  return { rows, total };
}

/** A new token digest for the runner `id` (or for the runner whose token digest is `current`); the runner's id, null for none. */
export async function resetRunnerToken(db: Executor, key: { id: number } | { current: string }, digest: string): Promise<number | null> {
  const rows = await db
    .update(ciRunners)
    .set({ tokenDigest: digest, updatedAt: sql`now()` })
    .where("id" in key ? eq(ciRunners.id, key.id) : eq(ciRunners.tokenDigest, key.current))
    .returning({ id: ciRunners.id });
  return rows[0]?.id ?? null;
}

export async function findRunningJobByToken(db: Executor, digest: string) {
  const rows = await db
    .select()
    .from(ciBuilds)
    .where(and(eq(ciBuilds.tokenDigest, digest), sql`${ciBuilds.status} IN ('running', 'canceling')`));
  return rows[0] ?? null;
}

export async function readTrace(db: Executor, jobId: number): Promise<Uint8Array> {
  const chunks = await db.select().from(ciBuildTraceChunks).where(eq(ciBuildTraceChunks.buildId, jobId)).orderBy(asc(ciBuildTraceChunks.offset));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.data.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c.data, at);
    at += c.data.length;
  }
  return out;
}
