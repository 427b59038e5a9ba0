import { sql, type SQL } from "drizzle-orm";
import type { GroupWithAccess, ProjectWithAccess } from "../kernel/abilities";
import { Access } from "../kernel/access";
import type { Actor } from "../kernel/env";
import { projectIsVisible } from "../kernel/visibility";
import { issueIsVisible } from "../shared/issuables/policy";
import type { Executor } from "../kernel/db";
import { isUniqueViolation } from "../kernel/errors";
import { fuzzySearch, type SearchPage } from "../kernel/fuzzy_search";
import { alias } from "drizzle-orm/pg-core";
import { projects } from "../../db/schema";
import { loadIssueRows, milestoneJson } from "../shared/issuables/issue_preload";
import { loadMergeRequestRows } from "../shared/issuables/merge_request_preload";
import { nextIidSql } from "../shared/issuables/iids";
export { loadIssueRows, loadMergeRequestRows };
import { cappedCount, type Page } from "../kernel/pagination";
import type { MilestoneRow } from "../entities/milestones";
import type { ListParams } from "./params";

/**
 * Every statement of the milestones domain. Milestones are read through `milestoneJson` (the shape
 * issues embed), so list rows and embedded milestones are one type.
 */

const ref = (column: string) => sql.raw(`m.${column}`);

/**
 * Who owns a milestone: a project (lib/api/milestones.rb) or a group (lib/api/group_milestones.rb). Every
 * statement below takes it, so the two APIs share one implementation; `column` is the owning column.
 */
export type MilestoneOwner = { kind: "project"; project: ProjectWithAccess } | { kind: "group"; group: GroupWithAccess };

function ownerColumn(owner: MilestoneOwner): SQL {
  return owner.kind === "project" ? sql`m.project_id = ${owner.project.id}` : sql`m.group_id = ${owner.group.id}`;
}

/**
 * The owner's milestones and, with `include_parent_milestones`, those of the groups above: the project's
 * group and its ancestors, or the group's ancestors.
 */
function ownedBy(owner: MilestoneOwner, includeParents: boolean): SQL {
  if (owner.kind === "group") {
    if (!includeParents) return ownerColumn(owner);
    return sql`m.group_id = ANY(${sql.param(owner.group.traversalIds)}::int[])`;
  }
  const project = owner.project;
  const groupIds = project.namespace.type === "Group" ? project.namespace.traversalIds : [];
  if (!includeParents || groupIds.length === 0) return ownerColumn(owner);
  return sql`(m.project_id = ${project.id} OR m.group_id = ANY(${sql.param(groupIds)}::int[]))`;
}

/**
 * A project's list is MilestonesFinder's order (app/finders/milestones_finder.rb): due date (nulls
 * last), then title. A group's is `list_milestones_for(group)` (lib/api/milestone_responses.rb):
 * `order_id_desc`, and `iids` are ignored with `include_parent_milestones`, as GitLab does.
 */
export async function listMilestones(db: Executor, owner: MilestoneOwner, f: ListParams, page: Page) {
  const conditions: SQL[] = [ownedBy(owner, f.include_parent_milestones)];
  if (f.state === "active" || f.state === "closed") conditions.push(sql`m.state = ${f.state}`);
  if (f.iids && !(owner.kind === "group" && f.include_parent_milestones)) conditions.push(sql`m.iid = ANY(${sql.param(f.iids)}::bigint[])`);
  if (f.title !== undefined) conditions.push(sql`m.title = ${f.title}`);
  const search = fuzzySearch([ref("title"), ref("description")], f.search);
  if (search) conditions.push(search);
  const where = sql.join(conditions, sql` AND `);
  const order = owner.kind === "project" ? sql`m.due_date ASC NULLS LAST, m.title ASC, m.id ASC` : sql`m.id DESC`;
  const rows = await db.execute<{ m: MilestoneRow }>(sql`SELECT ${milestoneJson("m")} AS m FROM milestones m WHERE ${where}
    ORDER BY ${order} LIMIT ${page.limit} OFFSET ${page.offset}`);
  const total = await cappedCount(db, { limit: (n: number) => sql`SELECT 1 FROM milestones m WHERE ${where} LIMIT ${n}` }, page);
  return { rows: rows.rows.map((r) => r.m), total };
}

/** `parent.milestones.find(id)`: by global id inside the project or group. */
export async function findMilestone(db: Executor, owner: MilestoneOwner, id: number): Promise<MilestoneRow | null> {
  const rows = await db.execute<{ m: MilestoneRow }>(sql`SELECT ${milestoneJson("m")} AS m FROM milestones m
    WHERE m.id = ${id}::bigint AND ${ownerColumn(owner)}`);
  return rows.rows[0]?.m ?? null;
}

/**
 * Milestone#uniqueness_of_title: a title already used, other than by `exceptId`, by a milestone of the
 * project or of its group (`for_projects_and_groups([project_id], [project.group&.id])`); for a group
 * milestone, of the group or of a project directly in it (`for_projects_and_groups(group.projects, [group.id])`).
 */
export async function titleTaken(db: Executor, owner: MilestoneOwner, title: string, exceptId: number | null): Promise<boolean> {
  let scope: SQL;
  if (owner.kind === "project") {
    const groupId = owner.project.namespace.type === "Group" ? owner.project.namespace.id : null;
    scope = sql`(m.project_id = ${owner.project.id} OR m.group_id = ${groupId})`;
  } else {
    scope = sql`(m.group_id = ${owner.group.id} OR m.project_id IN (SELECT p.id FROM projects p WHERE p.namespace_id = ${owner.group.id}))`;
  }
  const rows = await db.execute(sql`SELECT 1 FROM milestones m WHERE ${scope} AND m.title = ${title} AND m.id IS DISTINCT FROM ${exceptId} LIMIT 1`);
  return rows.rows.length > 0;
}

export type MilestoneValues = { title: string; description: string | null; dueDate: string | null; startDate: string | null };

/** The owning column of a new milestone and the iid counter it draws from. */
function ownerOfNew(owner: { projectId: number } | { groupId: number }) {
  return "projectId" in owner
    ? { column: sql.raw("project_id"), id: owner.projectId, iids: { projectId: owner.projectId } }
    : { column: sql.raw("group_id"), id: owner.groupId, iids: { namespaceId: owner.groupId } };
}

/** The INSERT of a milestone with the owner's next gapless iid (`internal_ids`, usage `milestones`): one statement. */
function insertMilestoneSql(owner: { projectId: number } | { groupId: number }, v: MilestoneValues, returning: SQL): SQL {
  const o = ownerOfNew(owner);
  return sql`WITH next AS (${nextIidSql("milestones", o.iids)}),
    m AS (
      INSERT INTO milestones (iid, ${o.column}, title, description, due_date, start_date)
      SELECT last_value, ${o.id}, ${v.title}, ${v.description}, ${v.dueDate}::date, ${v.startDate}::date FROM next
      RETURNING *)
    ${returning}`;
}

/** Inserts a project or group milestone; null when the unique title index refuses it (a concurrent create). */
export async function insertMilestone(db: Executor, owner: MilestoneOwner, v: MilestoneValues): Promise<MilestoneRow | null> {
  const id = owner.kind === "project" ? { projectId: owner.project.id } : { groupId: owner.group.id };
  try {
    const rows = await db.execute<{ m: MilestoneRow }>(insertMilestoneSql(id, v, sql`SELECT ${milestoneJson("m")} AS m FROM m`));
    return rows.rows[0]?.m ?? null;
  } catch (e) {
    if (isUniqueViolation(e)) return null;
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
    if (isUniqueViolation(e)) return null;
    throw e;
  }
}

/**
 * Milestones::DestroyService in one statement: its issues and merge requests lose the milestone (and
 * are touched), its milestone events go (GitLab's foreign key cascades them), then the milestone. False
 * when missing. Data-modifying CTEs run to completion whether or not the final statement reads them.
 */
export async function deleteMilestone(db: Executor, owner: MilestoneOwner, id: number): Promise<boolean> {
  const rows = await db.execute(sql`
    WITH target AS (SELECT m.id FROM milestones m WHERE m.id = ${id}::bigint AND ${ownerColumn(owner)}),
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
  const rows = await db.execute<{ id: number }>(insertMilestoneSql({ groupId }, milestone, sql`SELECT id FROM m`));
  const groupMilestoneId = Number(rows.rows[0].id);
  const list = sql`ANY(${sql.param(ids)}::int[])`;
  const groupProjects = sql`(SELECT p.id FROM projects p WHERE p.namespace_id = ${groupId})`;
  await db.execute(sql`UPDATE issues SET milestone_id = ${groupMilestoneId} WHERE project_id IN ${groupProjects} AND milestone_id = ${list}`);
  await db.execute(sql`UPDATE merge_requests SET milestone_id = ${groupMilestoneId} WHERE source_project_id IN ${groupProjects} AND milestone_id = ${list}`);
  await db.execute(sql`DELETE FROM resource_milestone_events WHERE milestone_id = ${list}`);
  await db.execute(sql`DELETE FROM milestones WHERE id = ${list}`);
}

/** Where a search looks for milestones: every project, a group's projects (subgroups included), or one project. */
export type MilestoneSearchScope = { kind: "all" } | { kind: "group"; groupId: number } | { kind: "project"; projectId: number };

const mp = alias(projects, "mp");

/**
 * The search API's milestones (Gitlab::SearchResults#milestones): project milestones matching the query
 * (`Milestone.search`: title and description) in projects whose issues or merge requests the caller may
 * read (`filter_milestones_by_project`, `ids_with_issuables_available_for`), newest update first; no
 * count (`limit + 1` rows).
 */
export async function searchMilestones(db: Executor, actor: Actor | null, scope: MilestoneSearchScope, query: string, page: Page): Promise<SearchPage<MilestoneRow>> {
  const project = mp as unknown as typeof projects;
  const within =
    scope.kind === "project"
      ? sql`AND mp.id = ${scope.projectId}`
      : scope.kind === "group"
        ? sql`AND mp.namespace_id IN (SELECT g.id FROM namespaces g WHERE g.traversal_ids @> ARRAY[${scope.groupId}]::integer[])`
        : sql``;
  const readable = sql`m.project_id IN (SELECT mp.id FROM projects mp WHERE ${projectIsVisible(actor, project)}
    AND (mp.issues_enabled OR (mp.merge_requests_enabled AND ${projectIsVisible(actor, project, Access.REPORTER)})) ${within})`;
  const conditions: SQL[] = [readable];
  const search = fuzzySearch([ref("title"), ref("description")], query);
  if (search) conditions.push(search);
  const rows = await db.execute<{ m: MilestoneRow }>(sql`SELECT ${milestoneJson("m")} AS m FROM milestones m
    WHERE ${sql.join(conditions, sql` AND `)} ORDER BY m.updated_at DESC, m.id DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`);
  return { rows: rows.rows.slice(0, page.limit).map((r) => r.m), hasNext: rows.rows.length > page.limit };
}
