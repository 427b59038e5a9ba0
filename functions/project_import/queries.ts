import { and, desc, eq, getTableColumns, inArray, or, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { badges, ciBuilds, ciPipelines, ciStages, ciVariables, importFailures, issueAssignees, issueLinks, issues, lfsObjects, lfsObjectsProjects, labelLinks, mergeRequestAssignees, mergeRequestReviewers, timelogs, labels, members, mergeRequests, milestones, namespaces, notes, operationsFeatureFlags, operationsFeatureFlagScopes, operationsScopes, operationsStrategies, operationsUserLists, projects, projectTransferJobs, protectedBranchAccessLevels, protectedBranches, snippets, uploads, users, type ProjectTransferJob } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { insertAwardsInBulk } from "../shared/issuables/award_writes";
import { insertNotesInBulk } from "../shared/issuables/note_writes";
import { restoreProjectIidsSql } from "../shared/issuables/iids";
import type { ImportFailure } from "../entities/project_import";

type Rec = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// The job (a `project_transfer_jobs` row of kind `import`: GitLab's project_import_state)

/** The newest import job of a project, or null when it was never imported. */
export async function latestImportJob(db: Executor, projectId: number): Promise<ProjectTransferJob | null> {
  const [row] = await db
    .select()
    .from(projectTransferJobs)
    .where(and(eq(projectTransferJobs.projectId, projectId), eq(projectTransferJobs.kind, "import")))
    .orderBy(desc(projectTransferJobs.id))
    .limit(1);
  return row ?? null;
}

/** `relation_hard_failures(limit: 100)`: the job's failed relations, newest first. */
export async function failedRelations(db: Executor, jobId: number): Promise<ImportFailure[]> {
  return db.select().from(importFailures).where(eq(importFailures.jobId, jobId)).orderBy(desc(importFailures.id)).limit(100);
}

export async function createImportJob(
  db: Executor,
  job: { projectId: number; userId: number; r2Key: string | null; correlationId: string; options: Record<string, unknown> },
): Promise<ProjectTransferJob> {
  const [row] = await db
    .insert(projectTransferJobs)
    .values({ kind: "import", status: "scheduled", ...job })
    .returning();
  return row;
}

export async function finishImportJob(db: Executor, id: number) {
  await db
    .update(projectTransferJobs)
    .set({ status: "finished", finishedAt: sql`now()`, leaseUntil: null, updatedAt: sql`now()` })
    .where(and(eq(projectTransferJobs.id, id), eq(projectTransferJobs.kind, "import")));
}

/** Marks an unfinished import failed with its `import_error`. */
export async function failImportJob(db: Executor, id: number, error: string) {
  await db
    .update(projectTransferJobs)
    .set({ status: "failed", error, leaseUntil: null, updatedAt: sql`now()` })
    .where(and(eq(projectTransferJobs.id, id), eq(projectTransferJobs.kind, "import"), sql`${projectTransferJobs.status} <> 'finished'`));
}

export async function recordFailure(
  db: Executor,
  failure: { projectId: number; jobId: number; relationKey: string; source: string; exceptionClass: string; exceptionMessage: string },
) {
  await db.insert(importFailures).values(failure);
}

/** The project an import fills, with its namespace (visibility cap) and pool. */
export async function importTarget(db: Executor, projectId: number) {
  const [row] = await db.select({ project: projects, namespace: namespaces }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(eq(projects.id, projectId));
  return row ?? null;
}

/**
 * A retried import starts its relations over (the project is the import's own, created empty by
 * `POST /projects/import`): what an earlier, dead attempt wrote goes, in one transaction. Refs and
 * objects stay; their writes are idempotent.
 */
export async function resetImportedRelations(db: Executor, projectId: number, jobId: number) {
  await db.execute(sql`DELETE FROM award_emoji a USING issues i WHERE a.awardable_type = 'Issue' AND a.awardable_id = i.id AND i.project_id = ${projectId}`);
  await db.execute(sql`DELETE FROM label_links l USING labels lb WHERE l.label_id = lb.id AND lb.project_id = ${projectId}`);
  for (const table of [notes, issues, mergeRequests, milestones, labels, badges]) await db.delete(table).where(eq(table.projectId, projectId));
  await db.execute(sql`DELETE FROM award_emoji a USING snippets s WHERE a.awardable_type = 'Snippet' AND a.awardable_id = s.id AND s.project_id = ${projectId}`);
  // In this order: flags before user lists (a strategy's list may not go while in use); issue links
  // went with the issues.
  for (const table of [snippets, ciPipelines, protectedBranches, operationsFeatureFlags, operationsUserLists, ciVariables])
    await db.delete(table).where(eq(table.projectId, projectId));
  // Rows only: the R2 objects of uploads sit at keys the next attempt writes again.
  await db.delete(uploads).where(and(eq(uploads.modelType, "Project"), eq(uploads.modelId, projectId)));
  await db.delete(lfsObjectsProjects).where(eq(lfsObjectsProjects.projectId, projectId));
  await db.delete(importFailures).where(eq(importFailures.jobId, jobId));
}

// ---------------------------------------------------------------------------------------------
// Overwrite (Projects::GitlabProjectsImportService#overwrite_project?, Projects::OverwriteProjectService)

/** Whether a project has `path` in the namespace (`namespaceId`, else the user's own namespace). */
export async function projectAtPath(db: Executor, where: { namespaceId: number } | { ownerId: number }, path: string): Promise<boolean> {
  const namespace = "namespaceId" in where ? sql`n.id = ${where.namespaceId}` : sql`n.type = 'User' AND n.owner_id = ${where.ownerId}`;
  const result = await db.execute(sql`SELECT 1 FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE ${namespace} AND lower(p.path) = lower(${path}) LIMIT 1`);
  return result.rows.length > 0;
}

/**
 * The project an import overwrites, locked with the imported one for the swap: the other project of
 * the imported project's namespace at `originalPath`, and whether `userId` may `admin_namespace` there
 * (the user namespace's owner, an Owner of the group or an ancestor, or an admin). Null when it is gone.
 */
export async function projectToOverwrite(db: Executor, projectId: number, originalPath: string, userId: number) {
  const result = await db.execute<{ id: number; name: string; path: string; full_path: string; may_admin: boolean }>(sql`
    SELECT old.id, old.name, old.path, old.full_path,
      (u.admin OR (n.type = 'User' AND n.owner_id = ${userId}) OR EXISTS (SELECT 1 FROM members m WHERE m.source_type = 'Namespace'
        AND m.source_id = ANY(n.traversal_ids) AND m.user_id = ${userId} AND m.access_level >= 50
        AND (m.expires_at IS NULL OR m.expires_at > current_date))) AS may_admin
    FROM projects p
    JOIN namespaces n ON n.id = p.namespace_id
    JOIN projects old ON old.namespace_id = p.namespace_id AND lower(old.path) = lower(${originalPath}) AND old.id <> p.id
    JOIN users u ON u.id = ${userId}
    WHERE p.id = ${projectId}
    ORDER BY old.id
    FOR UPDATE OF p, old`);
  const row = result.rows[0];
  return row ? { id: Number(row.id), name: row.name, path: row.path, fullPath: row.full_path, mayAdmin: !!row.may_admin } : null;
}

/**
 * Projects::OverwriteProjectService#move_before_destroy_relationships with `remove_remaining_elements:
 * false`: the old project's members, group shares and stars join the new project where it has none of
 * its own, and its forks become the new project's forks (counters follow). One statement.
 */
export async function moveBeforeOverwrite(db: Executor, fromId: number, toId: number) {
  await db.execute(sql`
    WITH moved_members AS (
      INSERT INTO members (source_type, source_id, user_id, access_level, expires_at, created_by_id, created_at, updated_at)
      SELECT 'Project', ${toId}::int, m.user_id, m.access_level, m.expires_at, m.created_by_id, m.created_at, now()
        FROM members m WHERE m.source_type = 'Project' AND m.source_id = ${fromId}::int
      ON CONFLICT DO NOTHING RETURNING id
    ), moved_links AS (
      INSERT INTO project_group_links (project_id, group_id, group_access, expires_at, created_at)
      SELECT ${toId}::int, l.group_id, l.group_access, l.expires_at, l.created_at FROM project_group_links l WHERE l.project_id = ${fromId}::int
      ON CONFLICT DO NOTHING RETURNING id
    ), moved_stars AS (
      INSERT INTO users_star_projects (user_id, project_id, created_at, updated_at)
      SELECT s.user_id, ${toId}::int, s.created_at, now() FROM users_star_projects s WHERE s.project_id = ${fromId}::int
      ON CONFLICT DO NOTHING RETURNING id
    ), moved_forks AS (
      UPDATE projects SET forked_from_project_id = ${toId}::int, updated_at = now() WHERE forked_from_project_id = ${fromId}::int RETURNING id
    ), counters AS (
      UPDATE projects SET star_count = star_count + (SELECT count(*) FROM moved_stars), forks_count = forks_count + (SELECT count(*) FROM moved_forks)
       WHERE id = ${toId}::int RETURNING id
    )
    SELECT (SELECT count(*) FROM moved_members) + (SELECT count(*) FROM moved_links) + (SELECT count(*) FROM counters) AS n`);
}

// ---------------------------------------------------------------------------------------------
// Records → rows

/**
 * The columns of `table` a record names (GitLab's `as_json` keys are the column names), minus
 * `except` (ids and the references the caller maps). Timestamps are parsed; a null for a NOT NULL
 * column leaves the column to its default. Values keep their JSON types: a record that does not fit
 * its column fails its batch, which the caller records as a failed relation.
 */
const TABLES = {
  notes, labels, milestones, issues, mergeRequests, badges, snippets, ciPipelines, ciStages, ciBuilds, protectedBranches,
  operationsUserLists, operationsFeatureFlags, operationsFeatureFlagScopes, ciVariables,
} as const;
type TableName = keyof typeof TABLES;

export function columnsFrom<N extends TableName>(name: N, record: Rec, except: readonly string[]): Partial<(typeof TABLES)[N]["$inferInsert"]> {
  const table: PgTable = TABLES[name];
  const out: Rec = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    if (key === "id" || except.includes(key)) continue;
    // The record's keys are the columns' snake_case names (the database's casing).
    const value = record[key.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`)];
    if (value === undefined) continue;
    if (value === null && column.notNull) continue;
    if (column.columnType === "PgTimestamp" && value !== null) {
      const at = new Date(String(value));
      if (Number.isNaN(at.getTime())) continue;
      out[key] = at;
    } else out[key] = value;
  }
  return out as Partial<(typeof TABLES)[N]["$inferInsert"]>;
}

/** The user who started the import (null when deleted since). */
export async function importer(db: Executor, userId: number) {
  const [row] = await db.select().from(users).where(eq(users.id, userId));
  return row ?? null;
}

/** Users whose email is one of `emails` (case-insensitive): the MembersMapper's lookup. */
export async function usersByEmail(db: Executor, emails: string[]): Promise<{ id: number; email: string }[]> {
  if (emails.length === 0) return [];
  return db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(sql`lower(${users.email}) = ANY(${sql.param(emails.map((e) => e.toLowerCase()))}::text[])`);
}

/** Project members; an existing membership (the namespace owner's Owner row) is kept. */
export async function insertMembers(db: Executor, projectId: number, rows: { userId: number; accessLevel: number; expiresAt: string | null; createdById: number }[]) {
  if (rows.length === 0) return;
  await db
    .insert(members)
    .values(rows.map((r) => ({ sourceType: "Project", sourceId: projectId, ...r })))
    .onConflictDoNothing();
}

/**
 * Rows of a table keyed by title within the project (labels, milestones): inserted (existing titles
 * kept), then every one of the project: title → id.
 */
// Both tables have id, title, project_id and group_id; Drizzle cannot type a union of tables, so the
// statements are typed with labels'.
async function insertByTitle<T extends typeof labels | typeof milestones>(db: Executor, table: T, projectId: number, rows: Partial<T["$inferInsert"]>[]) {
  const t = table as typeof labels;
  if (rows.length) {
    await db
      .insert(t)
      .values(rows.map((r) => ({ ...r, projectId, groupId: null }) as typeof labels.$inferInsert))
      .onConflictDoNothing();
  }
  const all = await db.select({ id: t.id, title: t.title }).from(t).where(eq(t.projectId, projectId));
  return new Map(all.map((l) => [l.title, l.id]));
}

/** Labels by title (existing ones kept), then every label of the project: title → id. */
export async function insertLabels(db: Executor, projectId: number, rows: Partial<typeof labels.$inferInsert>[]): Promise<Map<string, number>> {
  return insertByTitle(db, labels, projectId, rows);
}

/** Milestones by title (existing ones kept), then every milestone of the project: title → id. */
export async function insertMilestones(db: Executor, projectId: number, rows: Partial<typeof milestones.$inferInsert>[]): Promise<Map<string, number>> {
  return insertByTitle(db, milestones, projectId, rows);
}

export type NoteRow = Partial<typeof notes.$inferInsert> & { note: string; discussionId: string };
export type AwardRow = { name: string; userId: number };
export type TimelogRow = { timeSpent: number; userId: number; spentAt: Date | null; summary: string | null; createdAt?: Date };

/** One batch of issues or merge requests with their notes, label links and award emoji. */
export type IssuableBatch<Row> = {
  row: Row;
  notes: NoteRow[];
  labelIds: number[];
  awards: AwardRow[];
  assignees: number[];
  /** Merge requests only. */
  reviewers: number[];
  timelogs: TimelogRow[];
}[];

/**
 * Inserts a batch of issues (or merge requests) and what hangs on them: one statement each for the
 * issuables, notes, label links, award emoji, assignees, reviewers and time logs of the whole batch (keyed
 * by the new ids through `iid`).
 */
export async function insertIssuables(
  db: Executor,
  kind: "Issue" | "MergeRequest",
  projectId: number,
  batch: IssuableBatch<Rec & { iid: number }>,
): Promise<void> {
  if (batch.length === 0) return;
  const table = kind === "Issue" ? issues : mergeRequests;
  const inserted = await db
    .insert(table)
    .values(batch.map((b) => ({ ...b.row, projectId }) as never))
    .returning({ id: table.id, iid: table.iid });
  const idOf = new Map(inserted.map((r) => [r.iid, r.id]));
  const noteRows = batch.flatMap((b) => b.notes.map((n) => ({ ...n, noteableType: kind, noteableId: idOf.get(b.row.iid)!, projectId })));
  await insertNotesInBulk(db, noteRows);
  const linkRows = batch.flatMap((b) => [...new Set(b.labelIds)].map((labelId) => ({ labelId, targetType: kind, targetId: idOf.get(b.row.iid)! })));
  if (linkRows.length) await db.insert(labelLinks).values(linkRows).onConflictDoNothing();
  await insertAwardsInBulk(db, batch.flatMap((b) => b.awards.map((a) => ({ ...a, awardableType: kind, awardableId: idOf.get(b.row.iid)! }))));
  const pairs = (pick: (b: IssuableBatch<Rec & { iid: number }>[number]) => number[]) =>
    batch.flatMap((b) => [...new Set(pick(b))].map((userId) => ({ id: idOf.get(b.row.iid)!, userId })));
  const assignees = pairs((b) => b.assignees);
  if (assignees.length && kind === "Issue") await db.insert(issueAssignees).values(assignees.map((a) => ({ issueId: a.id, userId: a.userId }))).onConflictDoNothing();
  if (assignees.length && kind === "MergeRequest")
    await db.insert(mergeRequestAssignees).values(assignees.map((a) => ({ mergeRequestId: a.id, userId: a.userId }))).onConflictDoNothing();
  const reviewers = pairs((b) => b.reviewers);
  if (reviewers.length && kind === "MergeRequest")
    await db.insert(mergeRequestReviewers).values(reviewers.map((r) => ({ mergeRequestId: r.id, userId: r.userId }))).onConflictDoNothing();
  const logs = batch.flatMap((b) =>
    b.timelogs.map((t) => ({ ...t, issueId: kind === "Issue" ? idOf.get(b.row.iid)! : null, mergeRequestId: kind === "MergeRequest" ? idOf.get(b.row.iid)! : null })),
  );
  if (logs.length) await db.insert(timelogs).values(logs);
}

export async function insertBadges(db: Executor, projectId: number, rows: Partial<typeof badges.$inferInsert>[]) {
  if (rows.length === 0) return;
  await db.insert(badges).values(rows.map((r) => ({ ...r, type: "ProjectBadge", projectId, groupId: null }) as typeof badges.$inferInsert));
}

/** One batch of project snippets with their notes and award emoji. */
export type SnippetBatch = { row: Partial<typeof snippets.$inferInsert> & { title: string }; notes: NoteRow[]; awards: AwardRow[] }[];

/**
 * Inserts a batch of snippets and what hangs on them. The new ids come from the sequence first, so each
 * record's notes and award emoji find their snippet without a natural key: four statements a batch.
 */
export async function insertSnippets(db: Executor, projectId: number, batch: SnippetBatch): Promise<void> {
  if (batch.length === 0) return;
  const ids = await db.execute<{ id: number }>(sql`SELECT nextval(pg_get_serial_sequence('snippets', 'id'))::int AS id FROM generate_series(1, ${batch.length}::int)`);
  const idAt = (i: number) => Number(ids.rows[i].id);
  await db
    .insert(snippets)
    .overridingSystemValue()
    .values(batch.map((b, i) => ({ ...b.row, id: idAt(i), projectId }) as typeof snippets.$inferInsert));
  const noteRows = batch.flatMap((b, i) => b.notes.map((n) => ({ ...n, noteableType: "Snippet", noteableId: idAt(i), projectId })));
  await insertNotesInBulk(db, noteRows);
  await insertAwardsInBulk(db, batch.flatMap((b, i) => b.awards.map((a) => ({ ...a, awardableType: "Snippet" as const, awardableId: idAt(i) }))));
}

export type BuildRow = Partial<typeof ciBuilds.$inferInsert> & { name: string; stage: string; stageIdx: number; type: string };
/** One batch of pipelines, each with its stages and each stage's jobs. */
export type PipelineBatch = {
  row: Partial<typeof ciPipelines.$inferInsert> & { iid: number; ref: string; sha: string; source: string };
  stages: { row: { name: string; position: number; status: string }; builds: BuildRow[] }[];
}[];

/**
 * Inserts a batch of pipelines with their stages and jobs: one statement per table per batch (new ids
 * found through the pipeline's iid and the stage's name, both unique).
 */
export async function insertPipelines(db: Executor, projectId: number, batch: PipelineBatch): Promise<void> {
  if (batch.length === 0) return;
  const inserted = await db
    .insert(ciPipelines)
    .values(batch.map((b) => ({ ...b.row, projectId }) as typeof ciPipelines.$inferInsert))
    .returning({ id: ciPipelines.id, iid: ciPipelines.iid });
  const pipelineOf = new Map(inserted.map((r) => [r.iid, r.id]));
  const stageRows = batch.flatMap((b) => b.stages.map((s) => ({ ...s.row, pipelineId: pipelineOf.get(b.row.iid)! })));
  const stages = stageRows.length
    ? await db.insert(ciStages).values(stageRows).returning({ id: ciStages.id, pipelineId: ciStages.pipelineId, name: ciStages.name })
    : [];
  const stageOf = new Map(stages.map((s) => [`${s.pipelineId}:${s.name}`, s.id]));
  const buildRows = batch.flatMap((b) => {
    const pipelineId = pipelineOf.get(b.row.iid)!;
    return b.stages.flatMap((s) => s.builds.map((build) => ({ ...build, pipelineId, projectId, stageId: stageOf.get(`${pipelineId}:${s.row.name}`) ?? null }) as typeof ciBuilds.$inferInsert));
  });
  for (let i = 0; i < buildRows.length; i += 500) await db.insert(ciBuilds).values(buildRows.slice(i, i + 500));
}

/** One batch of protected branches with their access levels by action. */
export type ProtectedBranchBatch = {
  row: { name: string; allowForcePush?: boolean; codeOwnerApprovalRequired?: boolean; createdAt?: Date; updatedAt?: Date };
  levels: { action: "push" | "merge" | "unprotect"; accessLevel: number }[];
}[];

/**
 * Protected branches: a name the project already protects (the default branch's protection, made when
 * the repository was restored) takes the archive's settings and access levels instead.
 */
export async function insertProtectedBranches(db: Executor, projectId: number, batch: ProtectedBranchBatch): Promise<void> {
  if (batch.length === 0) return;
  const rows = await db
    .insert(protectedBranches)
    .values(batch.map((b) => ({ ...b.row, projectId })))
    .onConflictDoUpdate({
      target: [protectedBranches.projectId, protectedBranches.name],
      set: { allowForcePush: sql`excluded.allow_force_push`, codeOwnerApprovalRequired: sql`excluded.code_owner_approval_required`, updatedAt: sql`now()` },
    })
    .returning({ id: protectedBranches.id, name: protectedBranches.name });
  const idOf = new Map(rows.map((r) => [r.name, r.id]));
  await db.delete(protectedBranchAccessLevels).where(inArray(protectedBranchAccessLevels.protectedBranchId, rows.map((r) => r.id)));
  const levels = batch.flatMap((b) => b.levels.map((l) => ({ ...l, protectedBranchId: idOf.get(b.row.name)! })));
  if (levels.length) await db.insert(protectedBranchAccessLevels).values(levels);
}

/** Issue ids of the project by iid (for `issue_links`). */
export async function issueIdsByIid(db: Executor, projectId: number): Promise<Map<number, number>> {
  const rows = await db.select({ id: issues.id, iid: issues.iid }).from(issues).where(eq(issues.projectId, projectId));
  return new Map(rows.map((r) => [r.iid, r.id]));
}

export type IssueLinkRow = { sourceId: number; targetId: number; linkType: string; createdAt?: Date; updatedAt?: Date };

export async function insertIssueLinks(db: Executor, rows: IssueLinkRow[]) {
  if (rows.length === 0) return;
  await db.insert(issueLinks).values(rows);
}

export type UserListRow = Partial<typeof operationsUserLists.$inferInsert> & { iid: number; name: string };

/** User lists with their exported iids, then every list of the project: iid → id. */
export async function insertUserLists(db: Executor, projectId: number, rows: UserListRow[]): Promise<Map<number, number>> {
  if (rows.length) await db.insert(operationsUserLists).values(rows.map((r) => ({ ...r, projectId })));
  const all = await db.select({ id: operationsUserLists.id, iid: operationsUserLists.iid }).from(operationsUserLists).where(eq(operationsUserLists.projectId, projectId));
  return new Map(all.map((l) => [l.iid, l.id]));
}

/** One batch of feature flags with their strategies (each with its scopes) and legacy scopes. */
export type FeatureFlagBatch = {
  row: Partial<typeof operationsFeatureFlags.$inferInsert> & { iid: number; name: string };
  strategies: { name: string; parameters: Record<string, unknown>; userListId: number | null; scopes: string[] }[];
  legacyScopes: Partial<typeof operationsFeatureFlagScopes.$inferInsert>[];
}[];

/**
 * Inserts a batch of flags with their strategies, strategy scopes and legacy scopes: one statement per
 * table per batch (flag ids found through the iid; strategy ids drawn from the sequence first so that
 * their scopes can name them).
 */
export async function insertFeatureFlags(db: Executor, projectId: number, batch: FeatureFlagBatch): Promise<void> {
  if (batch.length === 0) return;
  const inserted = await db
    .insert(operationsFeatureFlags)
    .values(batch.map((b) => ({ ...b.row, projectId })))
    .returning({ id: operationsFeatureFlags.id, iid: operationsFeatureFlags.iid });
  const flagOf = new Map(inserted.map((r) => [r.iid, r.id]));
  const strategies = batch.flatMap((b) => b.strategies.map((s) => ({ ...s, featureFlagId: flagOf.get(b.row.iid)! })));
  if (strategies.length) {
    const ids = await db.execute<{ id: number }>(
      sql`SELECT nextval(pg_get_serial_sequence('operations_strategies', 'id'))::int AS id FROM generate_series(1, ${strategies.length}::int)`,
    );
    const idAt = (i: number) => Number(ids.rows[i].id);
    await db
      .insert(operationsStrategies)
      .overridingSystemValue()
      .values(strategies.map((s, i) => ({ id: idAt(i), featureFlagId: s.featureFlagId, name: s.name, parameters: s.parameters, userListId: s.userListId })));
    const scopes = strategies.flatMap((s, i) => s.scopes.map((environmentScope) => ({ strategyId: idAt(i), environmentScope })));
    if (scopes.length) await db.insert(operationsScopes).values(scopes);
  }
  const legacy = batch.flatMap((b) => b.legacyScopes.map((l) => ({ ...l, featureFlagId: flagOf.get(b.row.iid)! }) as typeof operationsFeatureFlagScopes.$inferInsert));
  if (legacy.length) await db.insert(operationsFeatureFlagScopes).values(legacy);
}

export async function insertVariables(db: Executor, projectId: number, rows: (Partial<typeof ciVariables.$inferInsert> & { key: string; value: string })[]) {
  if (rows.length === 0) return;
  await db.insert(ciVariables).values(rows.map((r) => ({ ...r, projectId })));
}

export type ProjectSettings = Partial<typeof projects.$inferInsert>;

export async function updateProjectSettings(db: Executor, projectId: number, settings: ProjectSettings) {
  if (Object.keys(settings).length === 0) return;
  await db.update(projects).set({ ...settings, updatedAt: sql`now()` }).where(eq(projects.id, projectId));
}

/**
 * The counters an import leaves to be computed (GitLab recomputes its caches after an import): notes,
 * votes and time spent of every issue and merge request, open issues of the project, and the iid counters
 * (`shared/issuables/iids.ts`), so the next one created takes the iid after the largest imported one. One statement.
 */
export async function recount(db: Executor, projectId: number) {
  // The same counters for both kinds; table, type and timelog column are constants, never input.
  const recounted = (table: string, type: string, timelogColumn: string) => sql.raw(`
      UPDATE ${table} x SET
        user_notes_count = (SELECT count(*) FROM notes n WHERE n.noteable_type = '${type}' AND n.noteable_id = x.id AND NOT n.system),
        upvotes = (SELECT count(*) FROM award_emoji a WHERE a.awardable_type = '${type}' AND a.awardable_id = x.id AND a.name = 'thumbsup'),
        downvotes = (SELECT count(*) FROM award_emoji a WHERE a.awardable_type = '${type}' AND a.awardable_id = x.id AND a.name = 'thumbsdown'),
        total_time_spent = (SELECT COALESCE(sum(t.time_spent), 0) FROM timelogs t WHERE t.${timelogColumn} = x.id)`);
  await db.execute(sql`
    WITH issue_counts AS (
      ${recounted("issues", "Issue", "issue_id")}
       WHERE x.project_id = ${projectId} RETURNING x.id
    ), mr_counts AS (
      ${recounted("merge_requests", "MergeRequest", "merge_request_id")}
       WHERE x.project_id = ${projectId} RETURNING x.id
    ), project_counts AS (
      UPDATE projects SET open_issues_count = (SELECT count(*) FROM issues WHERE project_id = ${projectId} AND state = 'opened')
       WHERE id = ${projectId} RETURNING id
    ), counters AS (
      ${restoreProjectIidsSql(projectId)}
      RETURNING id
    )
    SELECT (SELECT count(*) FROM issue_counts) + (SELECT count(*) FROM mr_counts) + (SELECT count(*) FROM project_counts) + (SELECT count(*) FROM counters) AS n`);
}

// ---------------------------------------------------------------------------------------------
// Uploads and LFS objects (UploadsManager#restore, LfsRestorer)

/** An attachment row (UploadService); the same path twice (a retried batch) keeps the first. */
export async function insertUpload(db: Executor, row: typeof uploads.$inferInsert) {
  await db.insert(uploads).values(row).onConflictDoNothing({ target: [uploads.modelType, uploads.modelId, uploads.path] });
}

/** The stored LFS objects among `oids`, by oid. */
export async function lfsObjectsByOid(db: Executor, oids: string[]): Promise<Map<string, { id: number; size: number }>> {
  if (oids.length === 0) return new Map();
  const rows = await db.select({ id: lfsObjects.id, oid: lfsObjects.oid, size: lfsObjects.size }).from(lfsObjects).where(inArray(lfsObjects.oid, oids));
  return new Map(rows.map((r) => [r.oid, { id: r.id, size: r.size }]));
}

/**
 * `LfsObject.find_or_initialize_by(oid:)` then `LfsObjectsProject.create!`, in one statement: the
 * object is inserted unless its oid is stored already (then the stored one is linked, and `created`
 * is false so the caller drops its copy), and linked to the project once. Null when a concurrent
 * writer's row is not visible to this statement yet (the caller asks again).
 */
export async function linkLfsObject(db: Executor, projectId: number, object: { oid: string; size: number; file: string | null }, repositoryType: number | null): Promise<{ created: boolean } | null> {
  const result = await db.execute<{ created: boolean }>(sql`
    WITH inserted AS (
      INSERT INTO lfs_objects (oid, size, file)
      SELECT ${object.oid}, ${object.size}, ${object.file} WHERE ${object.file}::text IS NOT NULL
      ON CONFLICT (oid) DO NOTHING
      RETURNING id
    ), target AS (
      SELECT id, true AS created FROM inserted
      UNION ALL
      SELECT id, false FROM lfs_objects WHERE oid = ${object.oid} AND NOT EXISTS (SELECT 1 FROM inserted)
    ), linked AS (
      INSERT INTO lfs_objects_projects (lfs_object_id, project_id, repository_type)
      SELECT id, ${projectId}, ${repositoryType}::smallint FROM target
      ON CONFLICT (project_id, lfs_object_id) DO NOTHING
    )
    SELECT created FROM target`);
  const row = result.rows[0];
  return row ? { created: row.created === true } : null;
}
