import { and, asc, desc, eq, gte, ilike, lte, or, sql, type SQL } from "drizzle-orm";
import { epicIssues as epicIssuesTable, epics, namespaces, type Epic } from "../../db/schema";
import { issueIsVisible } from "../shared/issuables/policy";
import { loadIssueRows, type IssueRow } from "../shared/issuables/issue_preload";
import type { GroupWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { nextIid } from "../shared/issuables/iids";
import { cappedCount, type Page } from "../kernel/pagination";
import { groupAccessLevel, groupIsVisible } from "../kernel/visibility";
import type { EpicIssueRow, EpicRow } from "../entities/epics";
import type { LabelBasicRow } from "../entities/labels";
import { selectEpics, toEpicRow as toRow } from "../shared/issuables/epic_preload";
import { systemNotesCte, type SystemNote } from "../shared/issuables/system_notes";
import { labelEventsCte, stateEventsCte } from "../shared/issuables/resource_events";
import { isRowId } from "../kernel/params";
import type { ListParams } from "./params";

/** EpicPolicy as SQL over `epics` joined to its group (`namespaces`): readable group; confidential for reporters. */
function epicIsVisible(actor: Actor | null): SQL {
  if (actor?.isAdmin) return sql`true`;
  if (!actor) return and(groupIsVisible(null), eq(epics.confidential, false))!;
  return sql`(${groupIsVisible(actor)} AND (NOT ${epics.confidential} OR ${groupAccessLevel(actor.user.id)} >= 20))`;
}

const hasLabel = (title?: string) =>
  sql`EXISTS (SELECT 1 FROM label_links ll JOIN labels l ON l.id = ll.label_id WHERE ll.target_type = 'Epic' AND ll.target_id = ${epics.id}${title === undefined ? sql`` : sql` AND l.title = ${title}`})`;

/** EpicsFinder for a group (ee/app/finders/epics_finder.rb), the subset of its filters built here. */
export async function listEpics(db: Executor, group: GroupWithAccess, actor: Actor | null, f: ListParams, page: Page): Promise<{ rows: EpicRow[]; total: number }> {
  const groups: SQL[] = [eq(epics.groupId, group.id)];
  if (f.include_descendant_groups) groups.push(sql`${namespaces.traversalIds} @> ARRAY[${group.id}]::int[]`);
  if (f.include_ancestor_groups) groups.push(sql`${epics.groupId} = ANY(${sql.param(group.traversalIds)}::int[])`);
  const conditions: SQL[] = [or(...groups)!, epicIsVisible(actor)];
  if (f.state !== "all") conditions.push(eq(epics.state, f.state));
  if (f.search) {
    const pattern = `%${f.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    conditions.push(or(ilike(epics.title, pattern), ilike(epics.description, pattern))!);
  }
  if (f.author_id !== undefined) conditions.push(eq(epics.authorId, f.author_id));
  for (const title of f.labels ?? []) {
    if (title.toLowerCase() === "none") conditions.push(sql`NOT ${hasLabel()}`);
    else if (title.toLowerCase() === "any") conditions.push(hasLabel());
    else conditions.push(hasLabel(title));
  }
  if (f.confidential !== undefined) conditions.push(eq(epics.confidential, f.confidential));
  if (f.created_after) conditions.push(gte(epics.createdAt, f.created_after));
  if (f.created_before) conditions.push(lte(epics.createdAt, f.created_before));
  if (f.updated_after) conditions.push(gte(epics.updatedAt, f.updated_after));
  if (f.updated_before) conditions.push(lte(epics.updatedAt, f.updated_before));
  const where = and(...conditions);
  const column = f.order_by === "updated_at" ? epics.updatedAt : epics.createdAt;
  const direction = f.sort === "asc" ? asc : desc;
  const rows = await selectEpics(db).where(where).orderBy(direction(column), direction(epics.id)).limit(page.limit).offset(page.offset);
  const counted = db.select({ one: sql`1` }).from(epics).innerJoin(namespaces, eq(namespaces.id, epics.groupId)).where(where);
  const total = await cappedCount(db, counted, page);
  return { rows: rows.map(toRow), total };
}

/** `user_group.epics.find_by(iid:)`: null when missing. */
export async function findEpic(db: Executor, group: GroupWithAccess, iid: number): Promise<EpicRow | null> {
  if (!isRowId(iid)) return null;
  const [row] = await selectEpics(db)
    .where(and(eq(epics.groupId, group.id), eq(epics.iid, iid)))
    .limit(1);
  return row ? toRow(row) : null;
}

/** Epics::CreateService: the next group iid, the epic and its labels, in one transaction. */
export async function insertEpic(
  db: Executor,
  values: Omit<typeof epics.$inferInsert, "iid">,
  labels: EpicLabelChanges = NO_LABEL_CHANGES,
  notesOf: (row: Epic) => SystemNote[] = () => [],
): Promise<Epic> {
  return db.transaction(async (tx) => {
    const iid = await nextIid(tx, "epics", { namespaceId: values.groupId });
    const [row] = await tx.insert(epics).values({ ...values, iid }).returning();
    await writeEpicEffects(tx, { epicId: row.id, groupId: row.groupId, actorId: values.authorId!, labels, notes: notesOf(row) });
    return row;
  });
}

/** Label changes of an epic: titles of new group labels, label ids to link and to unlink. */
export type EpicLabelChanges = { create: string[]; addIds: number[]; removeIds: number[] };
export const NO_LABEL_CHANGES: EpicLabelChanges = { create: [], addIds: [], removeIds: [] };

/** Label#color default (app/models/label.rb). */
const DEFAULT_LABEL_COLOR = "#6699cc";

/**
 * The labels of the epic's group and its ancestors with these titles (LabelsFinder for a group with
 * `include_ancestor_groups`): the closest group's label first when titles repeat.
 */
export async function availableLabels(db: Executor, group: GroupWithAccess, titles: string[]): Promise<LabelBasicRow[]> {
  if (titles.length === 0) return [];
  const result = await db.execute<{ id: number; title: string; color: string; description: string | null }>(sql`
    SELECT l.id, l.title, l.color, l.description FROM labels l
    WHERE l.group_id = ANY(${sql.param(group.traversalIds)}::int[]) AND l.title = ANY(${sql.param(titles)}::text[])
    ORDER BY array_position(${sql.param(group.traversalIds)}::int[], l.group_id) DESC, l.id`);
  return result.rows.map((r) => ({ id: Number(r.id), title: r.title, color: r.color, description: r.description }));
}

/**
 * The side effects of an epic write, in one statement: new group labels, label links and their
 * resource label events, and system notes (through the shared writer). Notes may target other
 * noteables (the other epic of a relation, an issue).
 */
export async function writeEpicEffects(
  db: Executor,
  e: { epicId: number; groupId: number; actorId: number; labels: EpicLabelChanges; notes: SystemNote[]; stateEvent?: EpicStateEvent | null },
): Promise<void> {
  const { labels } = e;
  if (labels.create.length + labels.addIds.length + labels.removeIds.length + e.notes.length === 0 && !e.stateEvent) return;
  const ints = (list: number[]) => sql`${sql.param(list)}::int[]`;
  await db.execute(sql`WITH
    new_labels AS (INSERT INTO labels (group_id, title, color)
      SELECT ${e.groupId}::int, t, ${DEFAULT_LABEL_COLOR}::text FROM unnest(${sql.param(labels.create)}::text[]) t
      ON CONFLICT DO NOTHING RETURNING id),
    all_added AS (SELECT unnest(${ints(labels.addIds)}) AS id UNION SELECT id FROM new_labels),
    unlinked AS (DELETE FROM label_links WHERE target_type = 'Epic' AND target_id = ${e.epicId}::int AND label_id = ANY(${ints(labels.removeIds)})),
    linked AS (INSERT INTO label_links (label_id, target_type, target_id) SELECT a.id, 'Epic', ${e.epicId}::int FROM all_added a ON CONFLICT DO NOTHING),
    ${labelEventsCte(
      "label_events",
      "Epic",
      sql`SELECT 'add', ${e.epicId}::int, a.id FROM all_added a UNION ALL SELECT 'remove', ${e.epicId}::int, r FROM unnest(${ints(labels.removeIds)}) r`,
      e.actorId,
    )},
    ${systemNotesCte("notes_written", e.notes, { authorId: e.actorId })},
    ${e.stateEvent ? stateEventsCte("state_event", "Epic", sql`SELECT ${e.stateEvent}::text, ${e.epicId}::int`, e.actorId) : sql`state_event AS (SELECT 1)`}
    SELECT 1`);
}

/** Epics::CloseService / ReopenService: `SystemNoteService.change_status` writes a resource state event. */
export type EpicStateEvent = "closed" | "reopened";

/** An epic of the group or one of its descendants: the subtree condition of EpicsFinder(group_id:). */
const inGroupTree = (group: GroupWithAccess) => sql`${namespaces.traversalIds} @> ARRAY[${group.id}]::int[]`;

/** `find_epics(finder_params: { group_id: user_group.id }).find_by_id(id)`: a readable epic of the group tree. */
export async function findEpicInGroupTree(db: Executor, group: GroupWithAccess, actor: Actor | null, id: number): Promise<EpicRow | null> {
  if (!isRowId(id)) return null;
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

/** `setParent` and the system notes of the change, in one transaction. */
export async function setParentWithNotes(db: Executor, child: Pick<Epic, "id" | "groupId">, parentId: number | null, actorId: number, notes: SystemNote[]): Promise<void> {
  await db.transaction(async (tx) => {
    await setParent(tx, child.id, parentId);
    await writeEpicEffects(tx, { epicId: child.id, groupId: child.groupId, actorId, labels: NO_LABEL_CHANGES, notes });
  });
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
export async function updateEpic(
  db: Executor,
  epic: Pick<Epic, "id" | "groupId">,
  changes: EpicChanges,
  effects: { actorId: number; labels: EpicLabelChanges; notes: SystemNote[]; stateEvent?: EpicStateEvent | null } = { actorId: 0, labels: NO_LABEL_CHANGES, notes: [] },
): Promise<void> {
  const { parentId, ...columns } = changes;
  await db.transaction(async (tx) => {
    if (parentId !== undefined) await setParent(tx, epic.id, parentId);
    await tx.update(epics).set({ updatedAt: new Date(), ...columns }).where(eq(epics.id, epic.id));
    await writeEpicEffects(tx, { epicId: epic.id, groupId: epic.groupId, ...effects });
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

/** `epic.issues_readable_by(user)`: the epic's issues the caller may read, in their order (two statements). */
export async function epicIssues(db: Executor, actor: Actor | null, epicId: number): Promise<EpicIssueRow[]> {
  const links = await db.execute<{ id: number; issue_id: number; relative_position: number | null }>(sql`
    SELECT ei.id, ei.issue_id, ei.relative_position FROM epic_issues ei JOIN issues ON issues.id = ei.issue_id
    WHERE ei.epic_id = ${epicId} AND ${issueIsVisible(actor)}
    ORDER BY ei.relative_position ASC NULLS LAST, ei.id`);
  const rows = await loadIssueRows(db, links.rows.map((l) => Number(l.issue_id)), actor);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return links.rows.flatMap((l) => {
    const row = byId.get(Number(l.issue_id));
    return row ? [{ ...row, epicIssue: { id: Number(l.id), relativePosition: l.relative_position === null ? null : Number(l.relative_position) } }] : [];
  });
}

/** What EpicIssues::CreateService needs about an issue id: whether it exists, may join the epic, and its epic. */
export async function issueForEpic(db: Executor, actor: Actor, epic: Epic, issueId: number): Promise<{ exists: boolean; linkable: boolean; currentEpicId: number | null }> {
  if (!isRowId(issueId)) return { exists: false, linkable: false, currentEpicId: null };
  const result = await db.execute<{ linkable: boolean; epic_id: number | null }>(sql`
    SELECT (${epic.groupId}::int = ANY(n.traversal_ids) AND ${issueIsVisible(actor)}) AS linkable, ei.epic_id
    FROM issues JOIN projects pr ON pr.id = issues.project_id JOIN namespaces n ON n.id = pr.namespace_id
    LEFT JOIN epic_issues ei ON ei.issue_id = issues.id
    WHERE issues.id = ${issueId}`);
  const row = result.rows[0];
  if (!row) return { exists: false, linkable: false, currentEpicId: null };
  return { exists: true, linkable: row.linkable, currentEpicId: row.epic_id === null ? null : Number(row.epic_id) };
}

/** `link.epic = epic; link.move_to_start; link.save!`: assigns (or moves) the issue, first in the epic. */
export async function assignIssue(db: Executor, epicId: number, issueId: number): Promise<number> {
  const result = await db.execute<{ id: number }>(sql`
    INSERT INTO epic_issues (epic_id, issue_id, relative_position)
    VALUES (${epicId}, ${issueId}, COALESCE((SELECT min(relative_position) FROM epic_issues WHERE epic_id = ${epicId}), 0) - 1000)
    ON CONFLICT (issue_id) DO UPDATE SET epic_id = EXCLUDED.epic_id, relative_position = EXCLUDED.relative_position, updated_at = now()
    RETURNING id`);
  return Number(result.rows[0].id);
}

/** `assignIssue` and the system notes of the change, in one transaction. */
export async function assignIssueWithNotes(db: Executor, epic: Pick<Epic, "id" | "groupId">, issueId: number, actorId: number, notes: SystemNote[]): Promise<number> {
  return db.transaction(async (tx) => {
    const id = await assignIssue(tx, epic.id, issueId);
    await writeEpicEffects(tx, { epicId: epic.id, groupId: epic.groupId, actorId, labels: NO_LABEL_CHANGES, notes });
    return id;
  });
}

/** `removeEpicIssue` and the system notes of the change, in one transaction. */
export async function removeEpicIssueWithNotes(db: Executor, epic: Pick<Epic, "id" | "groupId">, linkId: number, actorId: number, notes: SystemNote[]): Promise<void> {
  await db.transaction(async (tx) => {
    await removeEpicIssue(tx, linkId);
    await writeEpicEffects(tx, { epicId: epic.id, groupId: epic.groupId, actorId, labels: NO_LABEL_CHANGES, notes });
  });
}

/** Epics by id as the entity shows them (a previous epic of a moved issue). */
export { loadEpicRows } from "../shared/issuables/epic_preload";

/** `epic.epic_issues.find(id)`: a link of this epic, or null. */
export async function epicIssueLink(db: Executor, epicId: number, linkId: number): Promise<{ id: number; issueId: number; relativePosition: number | null } | null> {
  if (!isRowId(linkId)) return null;
  const [row] = await db
    .select({ id: epicIssuesTable.id, issueId: epicIssuesTable.issueId, relativePosition: epicIssuesTable.relativePosition })
    .from(epicIssuesTable)
    .where(and(eq(epicIssuesTable.id, linkId), eq(epicIssuesTable.epicId, epicId)));
  return row ?? null;
}

export async function removeEpicIssue(db: Executor, linkId: number): Promise<void> {
  await db.delete(epicIssuesTable).where(eq(epicIssuesTable.id, linkId));
}

/** The epic's links in their order (every issue, readable or not: positions concern them all). */
export async function epicIssueOrder(db: Executor, epicId: number): Promise<number[]> {
  const rows = await db
    .select({ id: epicIssuesTable.id })
    .from(epicIssuesTable)
    .where(eq(epicIssuesTable.epicId, epicId))
    .orderBy(sql`${epicIssuesTable.relativePosition} ASC NULLS LAST`, asc(epicIssuesTable.id));
  return rows.map((r) => r.id);
}

/** Writes the order of an epic's links as positions 1000, 2000, … in one statement. */
export async function writeEpicIssueOrder(db: Executor, orderedIds: number[]): Promise<void> {
  if (orderedIds.length === 0) return;
  const positions = orderedIds.map((_, i) => (i + 1) * 1000);
  await db.execute(sql`
    UPDATE epic_issues SET relative_position = o.position
    FROM unnest(${sql.param(orderedIds)}::int[], ${sql.param(positions)}::int[]) AS o(id, position)
    WHERE epic_issues.id = o.id`);
}

/** `group.epics.find(id)` (NotesFinder for epics, by the global id inside the group), or null. */
export async function findEpicById(db: Executor, group: GroupWithAccess, id: number): Promise<EpicRow | null> {
  if (!isRowId(id)) return null;
  const [row] = await selectEpics(db)
    .where(and(eq(epics.groupId, group.id), eq(epics.id, id)))
    .limit(1);
  return row ? toRow(row) : null;
}

// ---------------------------------------------------------------------------------------------
// Resource events of an epic (lib/api/resource_label_events.rb, resource_state_events.rb with EE's
// Epic eventable): the rows the epic's writes record (`writeEpicEffects`), oldest first, each with its
// user and label in the same statement.

export type EpicEventKind = "label" | "state";
type EpicEventUser = { id: number; username: string; name: string; state: string; avatarUrl: string | null; email: string };
type EpicEventBase = { id: number; user: EpicEventUser | null; createdAt: string; resourceType: "Epic"; resourceId: number };
export type EpicStateEventRow = EpicEventBase & { state: string };
export type EpicLabelEventRow = EpicEventBase & { action: string; label: LabelBasicRow | null };

const EPIC_EVENT_USER = sql.raw(`(SELECT json_build_object('id', u.id, 'username', u.username, 'name', u.name, 'state', u.state,
  'avatarUrl', u.avatar_url, 'email', u.email) FROM users u WHERE u.id = e.user_id)`);

const EPIC_EVENTS = {
  state: { table: sql.raw("resource_state_events"), extra: sql.raw("e.state") },
  label: {
    table: sql.raw("resource_label_events"),
    extra: sql.raw(`e.action, (SELECT json_build_object('id', l.id, 'title', l.title, 'color', l.color, 'description', l.description,
      'projectId', l.project_id, 'groupId', l.group_id, 'priority', l.priority) FROM labels l WHERE l.id = e.label_id) AS label`),
  },
} as const;

function selectEpicEvents(kind: EpicEventKind, where: SQL): SQL {
  return sql`SELECT e.id, 'Epic' AS "resourceType", e.epic_id AS "resourceId", e.created_at AS "createdAt", ${EPIC_EVENT_USER} AS user,
    ${EPIC_EVENTS[kind].extra} FROM ${EPIC_EVENTS[kind].table} e WHERE ${where}`;
}

export async function listEpicEvents<K extends EpicEventKind>(db: Executor, kind: K, epicId: number, page: Page) {
  type Row = K extends "state" ? EpicStateEventRow : EpicLabelEventRow;
  const where = sql`e.epic_id = ${epicId}`;
  const rows = await db.execute<Row>(sql`${selectEpicEvents(kind, where)} ORDER BY e.created_at ASC, e.id ASC LIMIT ${page.limit} OFFSET ${page.offset}`);
  const total = await cappedCount(db, { limit: (n: number) => sql`SELECT 1 FROM ${EPIC_EVENTS[kind].table} e WHERE ${where} LIMIT ${n}` }, page);
  return { rows: rows.rows as Row[], total };
}

/** `epic.resource_*_events.find(id)`; null when missing. */
export async function findEpicEvent<K extends EpicEventKind>(db: Executor, kind: K, epicId: number, id: number) {
  type Row = K extends "state" ? EpicStateEventRow : EpicLabelEventRow;
  const rows = await db.execute<Row>(selectEpicEvents(kind, sql`e.epic_id = ${epicId} AND e.id = ${id}`));
  return (rows.rows[0] as Row | undefined) ?? null;
}
