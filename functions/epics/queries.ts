import { and, asc, desc, eq, gte, ilike, lte, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { epics, namespaces, users, type Epic } from "../../db/schema";
import type { GroupWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { nextIid } from "../shared/issuables/iids";
import { cappedCount, type Page } from "../kernel/pagination";
import { groupAccessLevel, groupIsVisible } from "../kernel/visibility";
import type { EpicRow } from "./entities";

const parent = alias(epics, "parent_epic");

const votes = (name: string) =>
  sql<number>`(SELECT count(*) FROM award_emoji a WHERE a.awardable_type = 'Epic' AND a.awardable_id = ${epics.id} AND a.name = ${name})::int`;

const selectEpics = (db: Executor) =>
  db
    .select({
      epic: epics,
      groupFullPath: namespaces.fullPath,
      author: { id: users.id, username: users.username, name: users.name, state: users.state, avatarUrl: users.avatarUrl, email: users.email },
      parentIid: parent.iid,
      parentGroupId: parent.groupId,
      upvotes: votes("thumbsup"),
      downvotes: votes("thumbsdown"),
    })
    .from(epics)
    .innerJoin(namespaces, eq(namespaces.id, epics.groupId))
    .leftJoin(users, eq(users.id, epics.authorId))
    .leftJoin(parent, eq(parent.id, epics.parentId));

type Selected = Awaited<ReturnType<ReturnType<typeof selectEpics>["execute"]>>[number];

function toRow(r: Selected): EpicRow {
  const author = r.author && r.author.id !== null ? (r.author as EpicRow["author"]) : null;
  return Object.assign({}, r.epic, {
    author,
    groupFullPath: r.groupFullPath,
    parentIid: r.parentIid,
    parentGroupId: r.parentGroupId,
    upvotes: Number(r.upvotes),
    downvotes: Number(r.downvotes),
  });
}

/** EpicPolicy as SQL over `epics` joined to its group (`namespaces`): readable group; confidential for reporters. */
function epicIsVisible(actor: Actor | null): SQL {
  if (actor?.isAdmin) return sql`true`;
  if (!actor) return and(groupIsVisible(null), eq(epics.confidential, false))!;
  return sql`(${groupIsVisible(actor)} AND (NOT ${epics.confidential} OR ${groupAccessLevel(actor.user.id)} >= 20))`;
}

export type EpicFilters = {
  orderBy: "created_at" | "updated_at";
  sort: "asc" | "desc";
  state: "opened" | "closed" | "all";
  search?: string;
  authorId?: number;
  confidential?: boolean;
  createdAfter?: Date;
  createdBefore?: Date;
  updatedAfter?: Date;
  updatedBefore?: Date;
  includeAncestors: boolean;
  includeDescendants: boolean;
};

/** EpicsFinder for a group (ee/app/finders/epics_finder.rb), the subset of its filters built here. */
export async function listEpics(db: Executor, group: GroupWithAccess, actor: Actor | null, f: EpicFilters, page: Page): Promise<{ rows: EpicRow[]; total: number }> {
  const groups: SQL[] = [eq(epics.groupId, group.id)];
  if (f.includeDescendants) groups.push(sql`${namespaces.traversalIds} @> ARRAY[${group.id}]::int[]`);
  if (f.includeAncestors) groups.push(sql`${epics.groupId} = ANY(${sql.param(group.traversalIds)}::int[])`);
  const conditions: SQL[] = [or(...groups)!, epicIsVisible(actor)];
  if (f.state !== "all") conditions.push(eq(epics.state, f.state));
  if (f.search) {
    const pattern = `%${f.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    conditions.push(or(ilike(epics.title, pattern), ilike(epics.description, pattern))!);
  }
  if (f.authorId !== undefined) conditions.push(eq(epics.authorId, f.authorId));
  if (f.confidential !== undefined) conditions.push(eq(epics.confidential, f.confidential));
  if (f.createdAfter) conditions.push(gte(epics.createdAt, f.createdAfter));
  if (f.createdBefore) conditions.push(lte(epics.createdAt, f.createdBefore));
  if (f.updatedAfter) conditions.push(gte(epics.updatedAt, f.updatedAfter));
  if (f.updatedBefore) conditions.push(lte(epics.updatedAt, f.updatedBefore));
  const where = and(...conditions);
  const column = f.orderBy === "updated_at" ? epics.updatedAt : epics.createdAt;
  const direction = f.sort === "asc" ? asc : desc;
  const rows = await selectEpics(db).where(where).orderBy(direction(column), direction(epics.id)).limit(page.limit).offset(page.offset);
  const counted = db.select({ one: sql`1` }).from(epics).innerJoin(namespaces, eq(namespaces.id, epics.groupId)).where(where);
  const total = await cappedCount(db, counted, page);
  return { rows: rows.map(toRow), total };
}

/** `user_group.epics.find_by(iid:)`: null when missing. */
export async function findEpic(db: Executor, group: GroupWithAccess, iid: number): Promise<EpicRow | null> {
  if (iid < 1 || iid > 2147483647) return null;
  const [row] = await selectEpics(db)
    .where(and(eq(epics.groupId, group.id), eq(epics.iid, iid)))
    .limit(1);
  return row ? toRow(row) : null;
}

/** Epics::CreateService: the next group iid and the epic, in one transaction. */
export async function insertEpic(db: Executor, values: Omit<typeof epics.$inferInsert, "iid">): Promise<Epic> {
  return db.transaction(async (tx) => {
    const iid = await nextIid(tx, "epics", { namespaceId: values.groupId });
    const [row] = await tx.insert(epics).values({ ...values, iid }).returning();
    return row;
  });
}

/** An epic of the group or one of its descendants: the subtree condition of EpicsFinder(group_id:). */
const inGroupTree = (group: GroupWithAccess) => sql`${namespaces.traversalIds} @> ARRAY[${group.id}]::int[]`;

/** `find_epics(finder_params: { group_id: user_group.id }).find_by_id(id)`: a readable epic of the group tree. */
export async function findEpicInGroupTree(db: Executor, group: GroupWithAccess, actor: Actor | null, id: number): Promise<EpicRow | null> {
  if (id < 1 || id > 2147483647) return null;
  const [row] = await selectEpics(db)
    .where(and(eq(epics.id, id), inGroupTree(group), epicIsVisible(actor)))
    .limit(1);
  return row ? toRow(row) : null;
}

/** EpicsFinder(parent_id:, group_id:, sort: 'relative_position'): the readable children, in their order. */
export async function childEpics(db: Executor, group: GroupWithAccess, actor: Actor | null, parentId: number): Promise<EpicRow[]> {
  const rows = await selectEpics(db)
    .where(and(eq(epics.parentId, parentId), inGroupTree(group), epicIsVisible(actor)))
    .orderBy(sql`${epics.relativePosition} ASC NULLS LAST`, desc(epics.id));
  return rows.map(toRow);
}

/** What Epic#validate_parent needs about a would-be parent and child, in one statement. */
export type HierarchyFacts = {
  /** How many ancestors the parent has (0 for a top-level epic). */
  parentAncestors: number;
  /** Levels of the child's own subtree, the child included (1 for a leaf). */
  childDepth: number;
  childIsAncestorOfParent: boolean;
  /** The child's group is the parent's group or one of its descendants. */
  childGroupInParentTree: boolean;
};

export async function hierarchyFacts(db: Executor, parent: Epic, child: Epic): Promise<HierarchyFacts> {
  // The recursions stop at 100 levels so that a corrupt cycle cannot loop forever.
  const result = await db.execute(sql`
    WITH RECURSIVE ancestors AS (
      SELECT id, parent_id, 1 AS depth FROM epics WHERE id = ${parent.id}
      UNION ALL
      SELECT e.id, e.parent_id, a.depth + 1 FROM epics e JOIN ancestors a ON e.id = a.parent_id WHERE a.depth < 100
    ), subtree AS (
      SELECT id, 1 AS depth FROM epics WHERE id = ${child.id}
      UNION ALL
      SELECT e.id, s.depth + 1 FROM epics e JOIN subtree s ON e.parent_id = s.id WHERE s.depth < 100
    )
    SELECT (SELECT count(*) FROM ancestors)::int - 1 AS parent_ancestors,
           (SELECT max(depth) FROM subtree)::int AS child_depth,
           EXISTS (SELECT 1 FROM ancestors WHERE id = ${child.id}) AS child_is_ancestor,
           EXISTS (SELECT 1 FROM namespaces n WHERE n.id = ${child.groupId} AND ${parent.groupId} = ANY(n.traversal_ids)) AS in_tree`);
  const row = result.rows[0] as { parent_ancestors: number; child_depth: number; child_is_ancestor: boolean; in_tree: boolean };
  return {
    parentAncestors: Number(row.parent_ancestors),
    childDepth: Number(row.child_depth),
    childIsAncestorOfParent: row.child_is_ancestor,
    childGroupInParentTree: row.in_tree,
  };
}

/** How many levels sit above and including the epic (1 for a top-level epic). */
export async function epicLevel(db: Executor, epicId: number): Promise<number> {
  const result = await db.execute(sql`
    WITH RECURSIVE ancestors AS (
      SELECT id, parent_id, 1 AS depth FROM epics WHERE id = ${epicId}
      UNION ALL
      SELECT e.id, e.parent_id, a.depth + 1 FROM epics e JOIN ancestors a ON e.id = a.parent_id WHERE a.depth < 100
    )
    SELECT count(*)::int AS levels FROM ancestors`);
  return Number((result.rows[0] as { levels: number }).levels);
}

/**
 * `child.parent = parent; child.move_to_start; child.save`: the child becomes the parent's first child
 * (a position below its new siblings'), or leaves its parent when `parentId` is null.
 */
export async function setParent(db: Executor, childId: number, parentId: number | null): Promise<void> {
  if (parentId === null) {
    await db.update(epics).set({ parentId: null, updatedAt: sql`now()` }).where(eq(epics.id, childId));
    return;
  }
  await db.execute(sql`
    UPDATE epics SET parent_id = ${parentId}, updated_at = now(),
      relative_position = COALESCE((SELECT min(s.relative_position) FROM epics s WHERE s.parent_id = ${parentId} AND s.id <> ${childId}), 0) - 1000
    WHERE id = ${childId}`);
}

/** The siblings of a child epic (same parent), in their order, the child excluded. */
export async function siblingIds(db: Executor, parentId: number, childId: number): Promise<number[]> {
  const rows = await db
    .select({ id: epics.id })
    .from(epics)
    .where(and(eq(epics.parentId, parentId), sql`${epics.id} <> ${childId}`))
    .orderBy(sql`${epics.relativePosition} ASC NULLS LAST`, desc(epics.id));
  return rows.map((r) => r.id);
}

/** Writes the given order of one parent's children as positions 1000, 2000, … in one statement. */
export async function writeChildOrder(db: Executor, orderedIds: number[]): Promise<void> {
  if (orderedIds.length === 0) return;
  const positions = orderedIds.map((_, i) => (i + 1) * 1000);
  await db.execute(sql`
    UPDATE epics SET relative_position = o.position
    FROM unnest(${sql.param(orderedIds)}::int[], ${sql.param(positions)}::int[]) AS o(id, position)
    WHERE epics.id = o.id`);
}

/** For the compact entity: whether each epic has child epics and issues. */
export async function childrenAndIssues(db: Executor, epicId: number): Promise<{ hasChildren: boolean; hasIssues: boolean }> {
  const result = await db.execute(sql`
    SELECT EXISTS (SELECT 1 FROM epics WHERE parent_id = ${epicId}) AS has_children,
           EXISTS (SELECT 1 FROM epic_issues WHERE epic_id = ${epicId}) AS has_issues`);
  const row = result.rows[0] as { has_children: boolean; has_issues: boolean };
  return { hasChildren: row.has_children, hasIssues: row.has_issues };
}

/** Whether the epic has non-confidential child epics or issues (Epic#validate_confidential_issues_and_subepics). */
export async function openDescendants(db: Executor, epicId: number): Promise<{ children: boolean; issues: boolean }> {
  const result = await db.execute(sql`
    SELECT EXISTS (SELECT 1 FROM epics WHERE parent_id = ${epicId} AND NOT confidential) AS children,
           EXISTS (SELECT 1 FROM epic_issues ei JOIN issues i ON i.id = ei.issue_id WHERE ei.epic_id = ${epicId} AND NOT i.confidential) AS issues`);
  const row = result.rows[0] as { children: boolean; issues: boolean };
  return { children: row.children, issues: row.issues };
}

export type EpicChanges = Partial<
  Pick<Epic, "title" | "description" | "confidential" | "startDate" | "dueDate" | "startDateIsFixed" | "dueDateIsFixed" | "state" | "closedAt" | "closedById" | "parentId" | "updatedAt">
>;

/** Epics::UpdateService's save: the changed columns (a new parent puts the epic first among its children). */
export async function updateEpic(db: Executor, epicId: number, changes: EpicChanges): Promise<void> {
  const { parentId, ...columns } = changes;
  await db.transaction(async (tx) => {
    if (parentId !== undefined) await setParent(tx, epicId, parentId);
    await tx.update(epics).set({ updatedAt: new Date(), ...columns }).where(eq(epics.id, epicId));
  });
}

/** Issuable::DestroyService: the epic; its child epics and links go with it (foreign keys). */
export async function deleteEpic(db: Executor, epicId: number): Promise<void> {
  await db.delete(epics).where(eq(epics.id, epicId));
}

export type EpicParent = Pick<Epic, "confidential">;

/** The parent's confidentiality, for the rule that a confidential parent keeps confidential children. */
export async function parentOf(db: Executor, parentId: number): Promise<EpicParent | null> {
  const [row] = await db.select({ confidential: epics.confidential }).from(epics).where(eq(epics.id, parentId));
  return row ?? null;
}
