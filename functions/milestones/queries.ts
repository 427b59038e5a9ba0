import { sql, type SQL } from "drizzle-orm";
import type { ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import { fuzzySearch } from "../kernel/fuzzy_search";
import { milestoneJson } from "../shared/issuables/issue_preload";
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

/** Postgres 23505, also when Drizzle wraps the driver's error in `cause`. */
function uniqueViolation(e: unknown): boolean {
  for (let err = e as { code?: unknown; cause?: unknown } | undefined; err; err = err.cause as typeof err) {
    if (err.code === "23505") return true;
  }
  return false;
}
