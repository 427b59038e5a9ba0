import { sql, type SQL } from "drizzle-orm";
import type { GroupWithAccess, ProjectWithAccess } from "../kernel/abilities";
import { Access } from "../kernel/access";
import type { Actor } from "../kernel/env";
import { projectIsVisible } from "../kernel/visibility";
import { issueIsVisible } from "../shared/issuables/policy";
import type { Executor } from "../kernel/db";
import { fuzzySearch } from "../kernel/fuzzy_search";
import { loadIssueRows, milestoneJson } from "../shared/issuables/issue_preload";
import { loadMergeRequestRows } from "../shared/issuables/merge_request_preload";
export { loadIssueRows, loadMergeRequestRows };
import { cappedCount, type Page } from "../kernel/pagination";
import type { MilestoneRow } from "./entities";

/**
 * Every statement of the milestones domain. Milestones are read through `milestoneJson` (the shape
 * issues embed), so list rows and embedded milestones are one type.
 */

const ref = (column: string) => sql.raw(`m.${column}`);

export type MilestoneFilters = {
  state?: "active" | "closed" | "all";
  iids?: number[];
  title?: string;
  search?: string;
  /** `include_parent_milestones`: also the milestones of the project's group and its ancestors. */
  includeParentMilestones: boolean;
};

function ownedBy(project: ProjectWithAccess, includeParents: boolean): SQL {
  const groupIds = project.namespace.type === "Group" ? project.namespace.traversalIds : [];
  if (!includeParents || groupIds.length === 0) return sql`m.project_id = ${project.id}`;
  return sql`(m.project_id = ${project.id} OR m.group_id = ANY(${sql.param(groupIds)}::int[]))`;
}

/** MilestonesFinder (app/finders/milestones_finder.rb): due date (nulls last), then title. */
export async function listMilestones(db: Executor, project: ProjectWithAccess, f: MilestoneFilters, page: Page) {
  const conditions: SQL[] = [ownedBy(project, f.includeParentMilestones)];
  if (f.state === "active" || f.state === "closed") conditions.push(sql`m.state = ${f.state}`);
  if (f.iids) conditions.push(sql`m.iid = ANY(${sql.param(f.iids)}::bigint[])`);
  if (f.title !== undefined) conditions.push(sql`m.title = ${f.title}`);
  const search = fuzzySearch([ref("title"), ref("description")], f.search);
  if (search) conditions.push(search);
  const where = sql.join(conditions, sql` AND `);
  const rows = await db.execute<{ m: MilestoneRow }>(sql`SELECT ${milestoneJson("m")} AS m FROM milestones m WHERE ${where}
    ORDER BY m.due_date ASC NULLS LAST, m.title ASC, m.id ASC LIMIT ${page.limit} OFFSET ${page.offset}`);
  const total = await cappedCount(db, { limit: (n: number) => sql`SELECT 1 FROM milestones m WHERE ${where} LIMIT ${n}` }, page);
  return { rows: rows.rows.map((r) => r.m), total };
}

/** `parent.milestones.find(id)`: by global id inside the project. */
export async function findMilestone(db: Executor, projectId: number, id: number): Promise<MilestoneRow | null> {
  const rows = await db.execute<{ m: MilestoneRow }>(sql`SELECT ${milestoneJson("m")} AS m FROM milestones m
    WHERE m.id = ${id}::bigint AND m.project_id = ${projectId}`);
  return rows.rows[0]?.m ?? null;
}

/**
 * Milestone#uniqueness_of_title: a title already used by a milestone of the project or of its group
 * (`for_projects_and_groups([project_id], [project.group&.id])`), other than `exceptId`.
 */
export async function titleTaken(db: Executor, project: ProjectWithAccess, title: string, exceptId: number | null): Promise<boolean> {
  const groupId = project.namespace.type === "Group" ? project.namespace.id : null;
  const rows = await db.execute(sql`SELECT 1 FROM milestones m
    WHERE (m.project_id = ${project.id} OR m.group_id = ${groupId}) AND m.title = ${title}
      AND m.id IS DISTINCT FROM ${exceptId} LIMIT 1`);
  return rows.rows.length > 0;
}

export type MilestoneValues = { title: string; description: string | null; dueDate: string | null; startDate: string | null };

/**
 * Inserts with the next gapless iid of the project (`internal_ids`, usage `milestones`) in one
 * statement; null when the unique title index refuses it (a concurrent create).
 */
export async function insertMilestone(db: Executor, projectId: number, v: MilestoneValues): Promise<MilestoneRow | null> {
  try {
    const rows = await db.execute<{ m: MilestoneRow }>(sql`
      WITH next AS (
        INSERT INTO internal_ids (usage, project_id, last_value) VALUES ('milestones', ${projectId}, 1)
        ON CONFLICT (usage, project_id) WHERE project_id IS NOT NULL
        DO UPDATE SET last_value = internal_ids.last_value + 1
        RETURNING last_value),
      m AS (
        INSERT INTO milestones (iid, project_id, title, description, due_date, start_date)
        SELECT last_value, ${projectId}, ${v.title}, ${v.description}, ${v.dueDate}::date, ${v.startDate}::date FROM next
        RETURNING *)
      SELECT ${milestoneJson("m")} AS m FROM m`);
    return rows.rows[0]?.m ?? null;
  } catch (e) {
    if (uniqueViolation(e)) return null;
    throw e;
  }
}

export type MilestoneChanges = Partial<MilestoneValues> & { state?: "active" | "closed" };

/** Updates the sent attributes (and `updated_at`); null when the unique title index refuses it. */
export async function updateMilestone(db: Executor, id: number, changes: MilestoneChanges): Promise<MilestoneRow | null> {
  const sets: SQL[] = [sql`updated_at = now()`];
  if (changes.title !== undefined) sets.push(sql`title = ${changes.title}`);
  if (changes.description !== undefined) sets.push(sql`description = ${changes.description}`);
  if (changes.dueDate !== undefined) sets.push(sql`due_date = ${changes.dueDate}::date`);
  if (changes.startDate !== undefined) sets.push(sql`start_date = ${changes.startDate}::date`);
  if (changes.state !== undefined) sets.push(sql`state = ${changes.state}`);
  try {
    const rows = await db.execute<{ m: MilestoneRow }>(sql`
      WITH m AS (UPDATE milestones SET ${sql.join(sets, sql`, `)} WHERE id = ${id} RETURNING *)
      SELECT ${milestoneJson("m")} AS m FROM m`);
    return rows.rows[0]?.m ?? null;
  } catch (e) {
    if (uniqueViolation(e)) return null;
    throw e;
  }
}

/**
 * Milestones::DestroyService in one statement: its issues lose the milestone (and are touched), its
 * milestone events go (GitLab's foreign key cascades them), then the milestone. False when missing.
 * Data-modifying CTEs run to completion whether or not the final statement reads them.
 */
export async function deleteMilestone(db: Executor, projectId: number, id: number): Promise<boolean> {
  const rows = await db.execute(sql`
    WITH target AS (SELECT id FROM milestones WHERE id = ${id}::bigint AND project_id = ${projectId}),
    detached AS (UPDATE issues SET milestone_id = NULL, updated_at = now() WHERE milestone_id IN (SELECT id FROM target) RETURNING id),
    events AS (DELETE FROM resource_milestone_events WHERE milestone_id IN (SELECT id FROM target) RETURNING id)
    DELETE FROM milestones WHERE id IN (SELECT id FROM target) RETURNING id`);
  return rows.rows.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Group milestones (lib/api/group_milestones.rb)

/** The group's milestones, and with `include_parent_milestones` those of its ancestors. */
function ownedByGroup(group: GroupWithAccess, includeParents: boolean): SQL {
  if (!includeParents) return sql`m.group_id = ${group.id}`;
  return sql`m.group_id = ANY(${sql.param(group.traversalIds)}::int[])`;
}

/**
 * `list_milestones_for(group)` (lib/api/milestone_responses.rb): `order_id_desc`; `iids` are ignored
 * with `include_parent_milestones`, as GitLab does.
 */
export async function listGroupMilestones(db: Executor, group: GroupWithAccess, f: MilestoneFilters, page: Page) {
  const conditions: SQL[] = [ownedByGroup(group, f.includeParentMilestones)];
  if (f.state === "active" || f.state === "closed") conditions.push(sql`m.state = ${f.state}`);
  if (f.iids && !f.includeParentMilestones) conditions.push(sql`m.iid = ANY(${sql.param(f.iids)}::bigint[])`);
  if (f.title !== undefined) conditions.push(sql`m.title = ${f.title}`);
  const search = fuzzySearch([ref("title"), ref("description")], f.search);
  if (search) conditions.push(search);
  const where = sql.join(conditions, sql` AND `);
  const rows = await db.execute<{ m: MilestoneRow }>(sql`SELECT ${milestoneJson("m")} AS m FROM milestones m WHERE ${where}
    ORDER BY m.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`);
  const total = await cappedCount(db, { limit: (n: number) => sql`SELECT 1 FROM milestones m WHERE ${where} LIMIT ${n}` }, page);
  return { rows: rows.rows.map((r) => r.m), total };
}

/** `group.milestones.find(id)`: by global id inside the group. */
export async function findGroupMilestone(db: Executor, groupId: number, id: number): Promise<MilestoneRow | null> {
  const rows = await db.execute<{ m: MilestoneRow }>(sql`SELECT ${milestoneJson("m")} AS m FROM milestones m
    WHERE m.id = ${id}::bigint AND m.group_id = ${groupId}`);
  return rows.rows[0]?.m ?? null;
}

/**
 * Milestone#uniqueness_of_title for a group milestone: a title used by a milestone of the group or of a
 * project directly in it (`for_projects_and_groups(group.projects, [group.id])`), other than `exceptId`.
 */
export async function groupTitleTaken(db: Executor, groupId: number, title: string, exceptId: number | null): Promise<boolean> {
  const rows = await db.execute(sql`SELECT 1 FROM milestones m
    WHERE (m.group_id = ${groupId} OR m.project_id IN (SELECT p.id FROM projects p WHERE p.namespace_id = ${groupId}))
      AND m.title = ${title} AND m.id IS DISTINCT FROM ${exceptId} LIMIT 1`);
  return rows.rows.length > 0;
}

/** Inserts a group milestone with the group's next gapless iid, in one statement; null on a title race. */
export async function insertGroupMilestone(db: Executor, groupId: number, v: MilestoneValues & { state?: string }): Promise<MilestoneRow | null> {
  try {
    const rows = await db.execute<{ m: MilestoneRow }>(sql`
      WITH next AS (
        INSERT INTO internal_ids (usage, namespace_id, last_value) VALUES ('milestones', ${groupId}, 1)
        ON CONFLICT (usage, namespace_id) WHERE namespace_id IS NOT NULL
        DO UPDATE SET last_value = internal_ids.last_value + 1
        RETURNING last_value),
      m AS (
        INSERT INTO milestones (iid, group_id, title, description, due_date, start_date, state)
        SELECT last_value, ${groupId}, ${v.title}, ${v.description}, ${v.dueDate}::date, ${v.startDate}::date, ${v.state ?? "active"} FROM next
        RETURNING *)
      SELECT ${milestoneJson("m")} AS m FROM m`);
    return rows.rows[0]?.m ?? null;
  } catch (e) {
    if (uniqueViolation(e)) return null;
    throw e;
  }
}

/**
 * Milestones::DestroyService for a group milestone in one statement: its issues and merge requests lose
 * it, its milestone events go, then the milestone. False when missing.
 */
export async function deleteGroupMilestone(db: Executor, groupId: number, id: number): Promise<boolean> {
  const rows = await db.execute(sql`
    WITH target AS (SELECT id FROM milestones WHERE id = ${id}::bigint AND group_id = ${groupId}),
    detached AS (UPDATE issues SET milestone_id = NULL, updated_at = now() WHERE milestone_id IN (SELECT id FROM target) RETURNING id),
    detached_mrs AS (UPDATE merge_requests SET milestone_id = NULL, updated_at = now() WHERE milestone_id IN (SELECT id FROM target) RETURNING id),
    events AS (DELETE FROM resource_milestone_events WHERE milestone_id IN (SELECT id FROM target) RETURNING id)
    DELETE FROM milestones WHERE id IN (SELECT id FROM target) RETURNING id`);
  return rows.rows.length > 0;
}

// ---------------------------------------------------------------------------------------------
// A milestone's issues and merge requests (`milestone_issuables_for`)

/** The projects whose issuables a milestone lists: the project, or the group's own projects (IssuesFinder `group_id`). */
export type IssuableScope = { projectId: number } | { groupId: number };

function inScope(column: SQL, scope: IssuableScope): SQL {
  return "projectId" in scope
    ? sql`${column} = ${scope.projectId}`
    : sql`${column} IN (SELECT p.id FROM projects p WHERE p.namespace_id = ${scope.groupId})`;
}

/**
 * Ids of the issues the caller may read whose milestone has this title (`milestone_title`), newest first,
 * one page and the capped total. Deliberate difference from GitLab: ordered by id descending, not by
 * label priority (`sort: 'label_priority'`).
 */
export async function milestoneIssueIds(db: Executor, actor: Actor | null, title: string, scope: IssuableScope, page: Page) {
  const where = sql`${inScope(sql`issues.project_id`, scope)} AND issues.milestone_id IN (SELECT id FROM milestones WHERE title = ${title})
    AND ${issueIsVisible(actor)}`;
  const rows = await db.execute<{ id: number }>(sql`SELECT issues.id FROM issues WHERE ${where} ORDER BY issues.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`);
  const total = await cappedCount(db, { limit: (n: number) => sql`SELECT 1 FROM issues WHERE ${where} LIMIT ${n}` }, page);
  return { ids: rows.rows.map((r) => Number(r.id)), total };
}

/**
 * Same for merge requests (by target project), readable as merge request lists decide
 * (`read_merge_request`: reporters and up of a private project).
 */
export async function milestoneMergeRequestIds(db: Executor, actor: Actor | null, title: string, scope: IssuableScope, page: Page) {
  const where = sql`${inScope(sql`mr.project_id`, scope)} AND mr.milestone_id IN (SELECT id FROM milestones WHERE title = ${title})
    AND mr.project_id IN (SELECT projects.id FROM projects WHERE projects.merge_requests_enabled
      AND ${projectIsVisible(actor, undefined, Access.REPORTER)})`;
  const rows = await db.execute<{ id: number }>(sql`SELECT mr.id FROM merge_requests mr WHERE ${where} ORDER BY mr.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`);
  const total = await cappedCount(db, { limit: (n: number) => sql`SELECT 1 FROM merge_requests mr WHERE ${where} LIMIT ${n}` }, page);
  return { ids: rows.rows.map((r) => Number(r.id)), total };
}

/**
 * Milestones::PromoteService in one transaction: a group milestone cloned from the project milestone,
 * the issues and merge requests of every milestone of that title in the group's projects moved to it,
 * and those milestones destroyed (their milestone events with them).
 */
export async function promoteMilestone(db: Executor, milestone: MilestoneRow, groupId: number): Promise<void> {
  const merged = sql`(SELECT m.id FROM milestones m JOIN projects p ON p.id = m.project_id WHERE p.namespace_id = ${groupId} AND m.title = ${milestone.title})`;
  const ids = (await db.execute<{ id: number }>(sql`SELECT id FROM ${merged} AS ids`)).rows.map((r) => Number(r.id));
  // Created before the project milestones go: `save(validate: false)` skips the title check too.
  const rows = await db.execute<{ id: number }>(sql`
    WITH next AS (
      INSERT INTO internal_ids (usage, namespace_id, last_value) VALUES ('milestones', ${groupId}, 1)
      ON CONFLICT (usage, namespace_id) WHERE namespace_id IS NOT NULL
      DO UPDATE SET last_value = internal_ids.last_value + 1
      RETURNING last_value)
    INSERT INTO milestones (iid, group_id, title, description, due_date, start_date)
    SELECT last_value, ${groupId}, ${milestone.title}, ${milestone.description}, ${milestone.dueDate}::date, ${milestone.startDate}::date FROM next
    RETURNING id`);
  const groupMilestoneId = Number(rows.rows[0].id);
  const list = sql`ANY(${sql.param(ids)}::int[])`;
  const groupProjects = sql`(SELECT p.id FROM projects p WHERE p.namespace_id = ${groupId})`;
  await db.execute(sql`UPDATE issues SET milestone_id = ${groupMilestoneId} WHERE project_id IN ${groupProjects} AND milestone_id = ${list}`);
  await db.execute(sql`UPDATE merge_requests SET milestone_id = ${groupMilestoneId} WHERE source_project_id IN ${groupProjects} AND milestone_id = ${list}`);
  await db.execute(sql`DELETE FROM resource_milestone_events WHERE milestone_id = ${list}`);
  await db.execute(sql`DELETE FROM milestones WHERE id = ${list}`);
}

/** Postgres 23505, also when Drizzle wraps the driver's error in `cause`. */
function uniqueViolation(e: unknown): boolean {
  for (let err = e as { code?: unknown; cause?: unknown } | undefined; err; err = err.cause as typeof err) {
    if (err.code === "23505") return true;
  }
  return false;
}
