import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import {
  ciBuilds,
  ciJobArtifacts,
  ciPipelines,
  ciPipelineVariables,
  ciRunners,
  ciStages,
  deployments,
  environments,
  issueAssignees,
  integrations,
  issues,
  labelLinks,
  labels,
  mergeRequestAssignees,
  mergeRequestReviewers,
  mergeRequests,
  namespaces,
  notes,
  projects,
  protectedBranches,
  snippets,
  users,
  webHooks,
  webHookPushCursors,
  type CiBuild,
  type CiPipeline,
  type CiRunner,
  type Deployment,
  type Environment,
  type Integration,
  type Issue,
  type Label,
  type MergeRequest,
  type Note,
  type Project,
  type Snippet,
  type User,
  type WebHook,
} from "../../../db/schema";
import type { Executor } from "../../kernel/db";

/** The event flags of `web_hooks` a hook event selects by (GitLab's `hooks_scope`). */
export type HookFlag =
  | "pushEvents"
  | "tagPushEvents"
  | "issuesEvents"
  | "confidentialIssuesEvents"
  | "mergeRequestsEvents"
  | "noteEvents"
  | "confidentialNoteEvents"
  | "jobEvents"
  | "pipelineEvents"
  | "wikiPageEvents"
  | "releasesEvents"
  | "subgroupEvents"
  | "deploymentEvents";

/** System hooks receive only these kinds (SystemHook's `hooks_scope`). */
const SYSTEM_FLAGS = new Set<HookFlag>(["pushEvents", "tagPushEvents", "mergeRequestsEvents"]);

/**
 * The hooks an event of `project` reaches: the project's own with the flag, its ancestor groups' (group
 * hooks, `project.group.hooks` through the hierarchy), and system hooks for push, tag push and merge
 * request events. One statement.
 */
export async function hooksFor(db: Executor, project: { id: number; traversalIds: number[] }, flag: HookFlag): Promise<WebHook[]> {
  const flagCol = webHooks[flag];
  return db
    .select()
    .from(webHooks)
    .where(
      and(
        eq(flagCol, true),
        sql`((${webHooks.type} = 'ProjectHook' AND ${webHooks.projectId} = ${project.id})
          OR (${webHooks.type} = 'GroupHook' AND ${webHooks.groupId} = ANY(${sql.param(project.traversalIds)}::int[]))
          ${SYSTEM_FLAGS.has(flag) ? sql`OR ${webHooks.type} = 'SystemHook'` : sql``})`,
      ),
    )
    .orderBy(asc(webHooks.id));
}

/**
 * Of `projectIds`, those with a hook listening for `flag` (their own, or a group hook of an ancestor):
 * `project.has_active_hooks?(scope)`, asked before an event is queued. One statement for a batch.
 */
export async function projectsWithHooks(db: Executor, projectIds: number[], flag: HookFlag): Promise<Set<number>> {
  if (projectIds.length === 0) return new Set();
  const flagCol = webHooks[flag];
  const result = await db.execute<{ id: number }>(sql`
    SELECT p.id FROM ${projects} p JOIN ${namespaces} n ON n.id = p.namespace_id
     WHERE p.id = ANY(${sql.param(projectIds)}::int[]) AND EXISTS (
       SELECT 1 FROM ${webHooks} WHERE ${flagCol} AND (
         (${webHooks.type} = 'ProjectHook' AND ${webHooks.projectId} = p.id)
         OR (${webHooks.type} = 'GroupHook' AND n.type = 'Group' AND ${webHooks.groupId} = ANY(n.traversal_ids))
         ${SYSTEM_FLAGS.has(flag) ? sql`OR ${webHooks.type} = 'SystemHook'` : sql``}))`);
  return new Set(result.rows.map((r) => Number(r.id)));
}

/** A group as group events name it (Group#hook_attrs' fields and its ancestry). */
export type HookGroup = { id: number; name: string; path: string; fullPath: string; traversalIds: number[] };

export async function loadGroup(db: Executor, groupId: number): Promise<HookGroup | null> {
  const rows = await db
    .select({ id: namespaces.id, name: namespaces.name, path: namespaces.path, fullPath: namespaces.fullPath, traversalIds: namespaces.traversalIds })
    .from(namespaces)
    .where(and(eq(namespaces.id, groupId), eq(namespaces.type, "Group")))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The group hooks a group's own event reaches: those of the group and its ancestors with the flag
 * (EE Group#execute_hooks: `GroupHook.where(group_id: self_and_ancestors).hooks_for(scope)`). One statement.
 */
export async function groupHooksFor(db: Executor, group: { traversalIds: number[] }, flag: HookFlag): Promise<WebHook[]> {
  return db
    .select()
    .from(webHooks)
    .where(and(eq(webHooks[flag], true), eq(webHooks.type, "GroupHook"), sql`${webHooks.groupId} = ANY(${sql.param(group.traversalIds)}::int[])`))
    .orderBy(asc(webHooks.id));
}

export async function hooksByIds(db: Executor, ids: number[]): Promise<WebHook[]> {
  if (ids.length === 0) return [];
  return db.select().from(webHooks).where(inArray(webHooks.id, ids));
}

export type HookProject = Project & { namespaceName: string; namespaceFullName: string; traversalIds: number[] };

export async function loadProject(db: Executor, projectId: number): Promise<HookProject | null> {
  const rows = await db
    .select({ project: projects, namespaceName: namespaces.name, namespaceFullName: namespaces.fullName, namespaceType: namespaces.type, traversalIds: namespaces.traversalIds })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(eq(projects.id, projectId))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  return { ...row.project, namespaceName: row.namespaceName, namespaceFullName: row.namespaceFullName, traversalIds: row.namespaceType === "Group" ? row.traversalIds : [] };
}

export async function loadUsers(db: Executor, ids: (number | null)[]): Promise<Map<number, User>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db.select().from(users).where(inArray(users.id, wanted));
  return new Map(rows.map((u) => [u.id, u]));
}

export type HookIssue = Issue & { assigneeIds: number[]; labels: Label[] };
export type HookMergeRequest = MergeRequest & { assigneeIds: number[]; reviewerIds: number[]; labels: Label[] };

async function labelsOf(db: Executor, targetType: "Issue" | "MergeRequest", targetId: number): Promise<Label[]> {
  const rows = await db
    .select({ label: labels })
    .from(labelLinks)
    .innerJoin(labels, eq(labels.id, labelLinks.labelId))
    .where(and(eq(labelLinks.targetType, targetType), eq(labelLinks.targetId, targetId)))
    .orderBy(asc(labels.title));
  return rows.map((r) => r.label);
}

export async function loadIssue(db: Executor, projectId: number, where: { id: number } | "first"): Promise<HookIssue | null> {
  const rows = await db
    .select()
    .from(issues)
    .where(and(eq(issues.projectId, projectId), where === "first" ? undefined : eq(issues.id, where.id)))
    .orderBy(asc(issues.id))
    .limit(1);
  const issue = rows[0];
  if (!issue) return null;
  const assignees = await db.select({ userId: issueAssignees.userId }).from(issueAssignees).where(eq(issueAssignees.issueId, issue.id));
  // Issues carry their label ids (`label_ids`); label links are for merge requests.
  const issueLabels = issue.labelIds.length ? await db.select().from(labels).where(inArray(labels.id, issue.labelIds)).orderBy(asc(labels.title)) : [];
  return { ...issue, assigneeIds: assignees.map((a) => a.userId), labels: issueLabels };
}

export async function loadMergeRequest(db: Executor, projectId: number, where: { id: number } | "first"): Promise<HookMergeRequest | null> {
  const rows = await db
    .select()
    .from(mergeRequests)
    .where(and(eq(mergeRequests.projectId, projectId), where === "first" ? undefined : eq(mergeRequests.id, where.id)))
    .orderBy(asc(mergeRequests.id))
    .limit(1);
  const mr = rows[0];
  if (!mr) return null;
  const assignees = await db.select({ userId: mergeRequestAssignees.userId }).from(mergeRequestAssignees).where(eq(mergeRequestAssignees.mergeRequestId, mr.id));
  const reviewers = await db.select({ userId: mergeRequestReviewers.userId }).from(mergeRequestReviewers).where(eq(mergeRequestReviewers.mergeRequestId, mr.id));
  return { ...mr, assigneeIds: assignees.map((a) => a.userId), reviewerIds: reviewers.map((r) => r.userId), labels: await labelsOf(db, "MergeRequest", mr.id) };
}

export async function loadNote(db: Executor, projectId: number, where: { id: number } | "first"): Promise<Note | null> {
  const rows = await db
    .select()
    .from(notes)
    .where(
      and(
        eq(notes.projectId, projectId),
        inArray(notes.noteableType, ["Issue", "MergeRequest", "Snippet", "Commit"]),
        where === "first" ? eq(notes.system, false) : eq(notes.id, where.id),
      ),
    )
    .orderBy(asc(notes.id))
    .limit(1);
  return rows[0] ?? null;
}

export type PushEventRow = { id: number; ref: string; before: string; after: string; userId: number | null };

/**
 * Claims the project's push events not yet handed to hooks, oldest first, by moving the project's
 * cursor (concurrent consumers take disjoint ranges: the cursor row is locked `FOR UPDATE`, and a
 * waiting claim reads the moved cursor). Only events of the last hour count, so a project's first
 * hooked push does not replay its history. Two statements: the cursor row is made first, because a
 * statement may not update one row twice (an upsert then the move lost the move, and every claim
 * returned the same events again).
 */
export async function claimPushEvents(db: Executor, projectId: number): Promise<PushEventRow[]> {
  await db.execute(sql`INSERT INTO ${webHookPushCursors} (project_id, last_push_event_id) VALUES (${projectId}, 0) ON CONFLICT (project_id) DO NOTHING`);
  const result = await db.execute<{ id: string | number; ref: string; before: string; after: string; user_id: number | null }>(sql`
    WITH cur AS (
      SELECT last_push_event_id FROM ${webHookPushCursors} WHERE project_id = ${projectId} FOR UPDATE
    ), picked AS (
      SELECT e.id, e.ref, e.before, e.after, e.user_id FROM push_events e, cur
      WHERE e.project_id = ${projectId} AND e.id > cur.last_push_event_id AND e.created_at > now() - interval '1 hour'
      ORDER BY e.id LIMIT 50
    ), moved AS (
      UPDATE ${webHookPushCursors} SET last_push_event_id = (SELECT max(id) FROM picked)
      WHERE project_id = ${projectId} AND EXISTS (SELECT 1 FROM picked)
    )
    SELECT * FROM picked ORDER BY id`);
  return result.rows.map((r) => ({ id: Number(r.id), ref: r.ref, before: r.before.trim(), after: r.after.trim(), userId: r.user_id }));
}

/** True when any hook could receive an event of the project (its own, an ancestor group's, a system hook). */
export async function anyHooks(db: Executor, project: { id: number; traversalIds: number[] }): Promise<boolean> {
  const rows = await db
    .select({ id: webHooks.id })
    .from(webHooks)
    .where(
      sql`(${webHooks.type} = 'ProjectHook' AND ${webHooks.projectId} = ${project.id})
        OR (${webHooks.type} = 'GroupHook' AND ${webHooks.groupId} = ANY(${sql.param(project.traversalIds)}::int[]))
        OR ${webHooks.type} = 'SystemHook'`,
    )
    .limit(1);
  return rows.length > 0;
}

/** An external status check a merge request event is sent to. */
export type StatusCheckTarget = { id: number; name: string; externalUrl: string };

/**
 * The external status checks of a merge request's project that apply to its target branch (no
 * protected branch, or one named as the target branch: `applicable_to_branch`), in one statement.
 */
export async function statusChecksFor(db: Executor, mergeRequestId: number): Promise<StatusCheckTarget[]> {
  const result = await db.execute<{ id: number; name: string; external_url: string }>(sql`
    SELECT c.id, c.name, c.external_url FROM external_status_checks c
      JOIN merge_requests m ON m.id = ${mergeRequestId} AND c.project_id = m.project_id
     WHERE NOT EXISTS (SELECT 1 FROM external_status_checks_protected_branches x WHERE x.external_status_check_id = c.id)
        OR EXISTS (SELECT 1 FROM external_status_checks_protected_branches x JOIN protected_branches pb ON pb.id = x.protected_branch_id
                    WHERE x.external_status_check_id = c.id AND pb.name = m.target_branch)
     ORDER BY c.id`);
  return result.rows.map((r) => ({ id: Number(r.id), name: r.name, externalUrl: r.external_url }));
}

/** One external status check by id (a delivery whose check was deleted since finds none). */
export async function statusCheckById(db: Executor, id: number): Promise<StatusCheckTarget | null> {
  const result = await db.execute<{ id: number; name: string; external_url: string }>(
    sql`SELECT id, name, external_url FROM external_status_checks WHERE id = ${id}`,
  );
  const r = result.rows[0];
  return r ? { id: Number(r.id), name: r.name, externalUrl: r.external_url } : null;
}

/**
 * The project's active chat integrations (`project.integrations.active`, the slugs of ./chat.ts), and
 * the names of its protected branches when any of them filters by branch: two statements at most.
 */
export async function chatIntegrationsFor(db: Executor, projectId: number, slugs: string[]): Promise<{ integrations: Integration[]; protectedBranches: string[] }> {
  const rows = await db
    .select()
    .from(integrations)
    .where(and(eq(integrations.projectId, projectId), eq(integrations.active, true), inArray(integrations.slug, slugs)))
    .orderBy(asc(integrations.id));
  if (!rows.length) return { integrations: rows, protectedBranches: [] };
  const branches = await db.select({ name: protectedBranches.name }).from(protectedBranches).where(eq(protectedBranches.projectId, projectId));
  return { integrations: rows, protectedBranches: branches.map((b) => b.name) };
}

/** One integration by id (a queued chat request whose integration was deleted or deactivated since finds none). */
export async function activeIntegrationById(db: Executor, id: number): Promise<Integration | null> {
  const rows = await db.select().from(integrations).where(and(eq(integrations.id, id), eq(integrations.active, true))).limit(1);
  return rows[0] ?? null;
}

/** A pipeline with what its hook payload shows (Gitlab::DataBuilder::Pipeline), loaded in a fixed number of statements. */
export type HookPipeline = {
  pipeline: CiPipeline;
  stages: string[];
  variables: { key: string; value: string }[];
  builds: (CiBuild & { artifact: { filename: string; size: number } | null })[];
  runners: Map<number, CiRunner>;
};

export async function loadPipeline(db: Executor, projectId: number, where: { id: number } | "newest"): Promise<HookPipeline | null> {
  const [pipeline] = await db
    .select()
    .from(ciPipelines)
    .where(where === "newest" ? eq(ciPipelines.projectId, projectId) : and(eq(ciPipelines.projectId, projectId), eq(ciPipelines.id, where.id)))
    .orderBy(desc(ciPipelines.id))
    .limit(1);
  if (!pipeline) return null;
  const stages = await db.select({ name: ciStages.name }).from(ciStages).where(eq(ciStages.pipelineId, pipeline.id)).orderBy(asc(ciStages.position));
  const variables = await db
    .select({ key: ciPipelineVariables.key, value: ciPipelineVariables.value })
    .from(ciPipelineVariables)
    .where(eq(ciPipelineVariables.pipelineId, pipeline.id))
    .orderBy(asc(ciPipelineVariables.id));
  // `pipeline.builds.latest`: the jobs run on runners (no bridges), retried ones left out.
  const builds = await db
    .select()
    .from(ciBuilds)
    .where(and(eq(ciBuilds.pipelineId, pipeline.id), eq(ciBuilds.type, "build"), eq(ciBuilds.retried, false)))
    .orderBy(asc(ciBuilds.stageIdx), asc(ciBuilds.id));
  const jobIds = builds.map((b) => b.id);
  const runnerIds = [...new Set(builds.map((b) => b.runnerId).filter((id): id is number => id !== null))];
  const artifacts = jobIds.length
    ? await db
        .select({ jobId: ciJobArtifacts.jobId, filename: ciJobArtifacts.filename, size: ciJobArtifacts.size })
        .from(ciJobArtifacts)
        .where(and(inArray(ciJobArtifacts.jobId, jobIds), eq(ciJobArtifacts.fileType, "archive")))
    : [];
  const runnerRows = runnerIds.length ? await db.select().from(ciRunners).where(inArray(ciRunners.id, runnerIds)) : [];
  const byJob = new Map(artifacts.map((a) => [a.jobId, { filename: a.filename, size: a.size }]));
  return {
    pipeline,
    stages: stages.map((s) => s.name),
    variables,
    builds: builds.map((b) => ({ ...b, artifact: byJob.get(b.id) ?? null })),
    runners: new Map(runnerRows.map((r) => [r.id, r])),
  };
}

/** What Gitlab::DataBuilder::Build reads besides the project: the job, its pipeline, its runner. */
export type HookJob = { job: CiBuild; pipeline: CiPipeline; runner: CiRunner | null };

/**
 * One job of the project (`{id}`), or the newest (TestHooks::ProjectService#job_events_data:
 * `Ci::JobsFinder…first`, newest id first); bridges are not jobs here, as in `project.builds`.
 */
export async function loadJob(db: Executor, projectId: number, where: { id: number } | "newest"): Promise<HookJob | null> {
  const [row] = await db
    .select({ job: ciBuilds, pipeline: ciPipelines, runner: ciRunners })
    .from(ciBuilds)
    .innerJoin(ciPipelines, eq(ciPipelines.id, ciBuilds.pipelineId))
    .leftJoin(ciRunners, eq(ciRunners.id, ciBuilds.runnerId))
    .where(and(eq(ciBuilds.projectId, projectId), eq(ciBuilds.type, "build"), where === "newest" ? sql`true` : eq(ciBuilds.id, where.id)))
    .orderBy(desc(ciBuilds.id))
    .limit(1);
  return row ?? null;
}

/** The user a commit author e-mail belongs to (`Commit#author`, primary e-mail here), or null. */
export async function userByEmail(db: Executor, email: string): Promise<User | null> {
  const [user] = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1);
  return user ?? null;
}

/** A project snippet, for the note payload. */
export async function loadSnippet(db: Executor, projectId: number, id: number): Promise<Snippet | null> {
  const [row] = await db.select().from(snippets).where(and(eq(snippets.projectId, projectId), eq(snippets.id, id)));
  return row ?? null;
}

/** What Gitlab::DataBuilder::Deployment reads besides the project: the deployment, its environment, its job's user. */
export type HookDeployment = { deployment: Deployment; environment: Environment; jobUserId: number | null };

/**
 * One deployment of the project (`{id}`), or the newest (TestHooks::ProjectService#deployment_events_data:
 * `project.deployments.last`), with its environment and its job's user (Deployment#deployed_by), in one
 * statement.
 */
export async function loadDeployment(db: Executor, projectId: number, where: { id: number } | "newest"): Promise<HookDeployment | null> {
  const [row] = await db
    .select({ deployment: deployments, environment: environments, jobUserId: ciBuilds.userId })
    .from(deployments)
    .innerJoin(environments, eq(environments.id, deployments.environmentId))
    .leftJoin(ciBuilds, eq(ciBuilds.id, deployments.deployableId))
    .where(and(eq(deployments.projectId, projectId), where === "newest" ? sql`true` : eq(deployments.id, where.id)))
    .orderBy(desc(deployments.id))
    .limit(1);
  return row ?? null;
}

/**
 * The deployments of `jobIds` that a job status change moved, in projects with a hook listening for
 * deployments (`has_active_hooks?(:deployment_hooks)`), in one statement for the batch. The trigger
 * `ci_builds_sync_deployments` copies the job's status in the statement that moved the job, so a
 * deployment still `created` was not moved (its job was inserted with that status, as a job whose
 * environment could not be made).
 */
export async function movedDeploymentsWithHooks(db: Executor, jobIds: number[]): Promise<{ id: number; projectId: number; deployableId: number }[]> {
  if (jobIds.length === 0) return [];
  const result = await db.execute<{ id: number; project_id: number; deployable_id: number }>(sql`
    SELECT d.id, d.project_id, d.deployable_id
      FROM ${deployments} d JOIN ${projects} p ON p.id = d.project_id JOIN ${namespaces} n ON n.id = p.namespace_id
     WHERE d.deployable_id = ANY(${sql.param(jobIds)}::int[]) AND d.status <> 'created' AND EXISTS (
       SELECT 1 FROM ${webHooks} WHERE ${webHooks.deploymentEvents} AND (
         (${webHooks.type} = 'ProjectHook' AND ${webHooks.projectId} = p.id)
         OR (${webHooks.type} = 'GroupHook' AND n.type = 'Group' AND ${webHooks.groupId} = ANY(n.traversal_ids))))`);
  return result.rows.map((r) => ({ id: Number(r.id), projectId: Number(r.project_id), deployableId: Number(r.deployable_id) }));
}
