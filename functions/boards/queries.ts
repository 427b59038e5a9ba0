// Issue boards' SQL: boards with their lists and scope loaded in one statement, the lookups that decide
// whether a label, milestone or user may head a list, and the list position updates.
import { and, asc, eq, gt, gte, lt, lte, sql } from "drizzle-orm";
import { boardLabels, boardLists, boards, type Board } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";
import { iterationJson, milestoneJson, userJson } from "../shared/issuables/issue_preload";
import { LIST_TYPES, type BoardListRow, type BoardRow } from "../entities/boards";

/** A board's parent: a project (with its ancestor groups) or a group (with its ancestors, itself last). */
export type BoardParent = { kind: "project"; id: number; groupIds: number[] } | { kind: "group"; id: number; groupIds: number[] };

const ownedBy = (parent: BoardParent) => (parent.kind === "project" ? eq(boards.projectId, parent.id) : eq(boards.groupId, parent.id));

const labelJson = (alias: string) =>
  sql.raw(`json_build_object('id', ${alias}.id, 'title', ${alias}.title, 'color', ${alias}.color, 'description', ${alias}.description,
    'projectId', ${alias}.project_id, 'groupId', ${alias}.group_id, 'priority', ${alias}.priority)`);

/** `List.destroyable`: the label, assignee, milestone and iteration lists (not backlog or closed). */
const DESTROYABLE = [LIST_TYPES.label, LIST_TYPES.assignee, LIST_TYPES.milestone, LIST_TYPES.iteration];
const destroyable = sql`${boardLists.listType} IN (${sql.join(DESTROYABLE.map((t) => sql`${t}`), sql`, `)})`;

/** One list row with what it lists by, as JSON. */
const listSelection = {
  list: boardLists,
  label: sql<BoardListRow["label"]>`(SELECT ${labelJson("l")} FROM labels l WHERE l.id = lists.label_id)`,
  assignee: sql<BoardListRow["assignee"]>`(SELECT ${userJson("u")} FROM users u WHERE u.id = lists.user_id)`,
  milestone: sql<BoardListRow["milestone"]>`(SELECT ${milestoneJson("m")} FROM milestones m WHERE m.id = lists.milestone_id)`,
  iteration: sql<BoardListRow["iteration"]>`(SELECT ${iterationJson("i")} FROM iterations i WHERE i.id = lists.iteration_id)`,
};

const toListRow = (r: { list: typeof boardLists.$inferSelect; label: BoardListRow["label"]; assignee: BoardListRow["assignee"]; milestone: BoardListRow["milestone"]; iteration: BoardListRow["iteration"] }): BoardListRow => ({
  ...r.list,
  label: r.label,
  assignee: r.assignee,
  milestone: r.milestone,
  iteration: r.iteration,
});

/** The board's destroyable lists by position, as JSON (`Board#destroyable_lists`). */
const listsJson = sql<BoardListRow[]>`COALESCE((SELECT json_agg(json_build_object(
    'id', bl.id, 'boardId', bl.board_id, 'listType', bl.list_type, 'position', bl.position, 'labelId', bl.label_id,
    'userId', bl.user_id, 'milestoneId', bl.milestone_id, 'iterationId', bl.iteration_id, 'maxIssueCount', bl.max_issue_count,
    'maxIssueWeight', bl.max_issue_weight, 'limitMetric', bl.limit_metric, 'createdAt', bl.created_at, 'updatedAt', bl.updated_at,
    'label', (SELECT ${labelJson("l")} FROM labels l WHERE l.id = bl.label_id),
    'assignee', (SELECT ${userJson("u")} FROM users u WHERE u.id = bl.user_id),
    'milestone', (SELECT ${milestoneJson("m")} FROM milestones m WHERE m.id = bl.milestone_id),
    'iteration', (SELECT ${iterationJson("i")} FROM iterations i WHERE i.id = bl.iteration_id))
    ORDER BY bl.position, bl.id)
  FROM lists bl WHERE bl.board_id = boards.id AND bl.list_type IN (${sql.raw(DESTROYABLE.join(", "))})), '[]'::json)`;

const boardSelection = {
  board: boards,
  lists: listsJson,
  scopeMilestone: sql<BoardRow["scopeMilestone"]>`(SELECT ${milestoneJson("m")} FROM milestones m WHERE m.id = boards.milestone_id)`,
  scopeAssignee: sql<BoardRow["scopeAssignee"]>`(SELECT ${userJson("u")} FROM users u WHERE u.id = boards.assignee_id)`,
  scopeLabels: sql<BoardRow["scopeLabels"]>`COALESCE((SELECT json_agg(${labelJson("l")} ORDER BY l.title, l.id)
    FROM board_labels bl JOIN labels l ON l.id = bl.label_id WHERE bl.board_id = boards.id), '[]'::json)`,
};

function toBoardRow(r: { board: Board; lists: BoardListRow[]; scopeMilestone: BoardRow["scopeMilestone"]; scopeAssignee: BoardRow["scopeAssignee"]; scopeLabels: BoardRow["scopeLabels"] }): BoardRow {
  // Timestamps inside the JSON arrive as strings; presenters only read ids, names and positions of lists.
  return { ...r.board, lists: r.lists, scopeMilestone: r.scopeMilestone, scopeAssignee: r.scopeAssignee, scopeLabels: r.scopeLabels };
}

/** `board_parent.boards` in id order, a page of them with their lists and scope. */
export async function listBoards(db: Executor, parent: BoardParent, page: Page): Promise<{ rows: BoardRow[]; total: number }> {
  const rows = await db.select(boardSelection).from(boards).where(ownedBy(parent)).orderBy(asc(boards.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(boards).where(ownedBy(parent)), page);
  return { rows: rows.map(toBoardRow), total };
}

/** `board_parent.boards.find(params[:board_id])`. */
export async function findBoard(db: Executor, parent: BoardParent, boardId: number): Promise<BoardRow | null> {
  const rows = await db.select(boardSelection).from(boards).where(and(ownedBy(parent), eq(boards.id, boardId)));
  return rows[0] ? toBoardRow(rows[0]) : null;
}

/** A page of the board's destroyable lists by position. */
export async function listLists(db: Executor, boardId: number, page: Page): Promise<{ rows: BoardListRow[]; total: number }> {
  const where = and(eq(boardLists.boardId, boardId), destroyable);
  const rows = await db.select(listSelection).from(boardLists).where(where).orderBy(asc(boardLists.position), asc(boardLists.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(boardLists).where(where), page);
  return { rows: rows.map(toListRow), total };
}

/** `board.lists.destroyable.find(params[:list_id])`. */
export async function findList(db: Executor, boardId: number, listId: number): Promise<BoardListRow | null> {
  const rows = await db.select(listSelection).from(boardLists).where(and(eq(boardLists.boardId, boardId), eq(boardLists.id, listId), destroyable));
  return rows[0] ? toListRow(rows[0]) : null;
}

/** `available_labels_for(board_parent)`: the parent's own labels and its ancestor groups'. */
export async function labelIsAvailable(db: Executor, parent: BoardParent, labelId: number): Promise<boolean> {
  const owner = parent.kind === "project" ? sql`l.project_id = ${parent.id}` : sql`false`;
  const result = await db.execute(sql`SELECT 1 FROM labels l WHERE l.id = ${labelId}
    AND (${owner} OR l.group_id = ANY(${sql.param(parent.groupIds)}::int[]))`);
  return result.rows.length > 0;
}

/** Boards::MilestonesFinder: the parent's milestones and its ancestor groups'. */
export async function milestoneIsAvailable(db: Executor, parent: BoardParent, milestoneId: number): Promise<boolean> {
  const owner = parent.kind === "project" ? sql`m.project_id = ${parent.id}` : sql`false`;
  const result = await db.execute(sql`SELECT 1 FROM milestones m WHERE m.id = ${milestoneId}
    AND (${owner} OR m.group_id = ANY(${sql.param(parent.groupIds)}::int[]))`);
  return result.rows.length > 0;
}

/** Boards::IterationsFinder: the iterations of the parent's group (or the group) and its ancestors. */
export async function iterationIsAvailable(db: Executor, parent: BoardParent, iterationId: number): Promise<boolean> {
  const result = await db.execute(sql`SELECT 1 FROM iterations i WHERE i.id = ${iterationId}
    AND i.group_id = ANY(${sql.param(parent.groupIds)}::int[])`);
  return result.rows.length > 0;
}

/** Boards::UsersFinder: members of the parent, directly or through its ancestor groups. */
export async function userIsAvailable(db: Executor, parent: BoardParent, userId: number): Promise<boolean> {
  const direct = parent.kind === "project" ? sql`(m.source_type = 'Project' AND m.source_id = ${parent.id})` : sql`false`;
  const result = await db.execute(sql`SELECT 1 FROM members m WHERE m.user_id = ${userId}
    AND (m.expires_at IS NULL OR m.expires_at > current_date)
    AND (${direct} OR (m.source_type = 'Namespace' AND m.source_id = ANY(${sql.param(parent.groupIds)}::int[])))`);
  return result.rows.length > 0;
}

export async function insertBoard(db: Executor, parent: BoardParent, name: string): Promise<number> {
  const [row] = await db
    .insert(boards)
    .values({ name, projectId: parent.kind === "project" ? parent.id : null, groupId: parent.kind === "group" ? parent.id : null })
    .returning({ id: boards.id });
  return row.id;
}

export type BoardChanges = Partial<Pick<Board, "name" | "hideBacklogList" | "hideClosedList" | "milestoneId" | "assigneeId" | "weight">>;

export async function updateBoard(db: Executor, boardId: number, changes: BoardChanges, labelIds: number[] | undefined): Promise<void> {
  if (Object.keys(changes).length) await db.update(boards).set({ ...changes, updatedAt: new Date() }).where(eq(boards.id, boardId));
  if (labelIds === undefined) return;
  await db.delete(boardLabels).where(eq(boardLabels.boardId, boardId));
  if (labelIds.length) await db.insert(boardLabels).values(labelIds.map((labelId) => ({ boardId, labelId })));
}

export async function deleteBoard(db: Executor, boardId: number): Promise<void> {
  await db.delete(boards).where(eq(boards.id, boardId));
}

/** The labels of the parent (or its ancestor groups) with these titles: a board's `labels` scope. */
export async function availableLabelIdsByTitle(db: Executor, parent: BoardParent, titles: string[]): Promise<number[]> {
  if (!titles.length) return [];
  const owner = parent.kind === "project" ? sql`l.project_id = ${parent.id}` : sql`false`;
  const result = await db.execute<{ id: number }>(sql`SELECT l.id FROM labels l WHERE l.title = ANY(${sql.param(titles)}::text[])
    AND (${owner} OR l.group_id = ANY(${sql.param(parent.groupIds)}::int[])) ORDER BY l.id`);
  return result.rows.map((r) => Number(r.id));
}

/** The backlog and closed lists every new board starts with (Boards::CreateService#create_board!). */
export async function insertDefaultLists(db: Executor, boardId: number): Promise<void> {
  await db.insert(boardLists).values([
    { boardId, listType: LIST_TYPES.backlog },
    { boardId, listType: LIST_TYPES.closed },
  ]);
}

export type NewList = { listType: number; labelId?: number; userId?: number; milestoneId?: number; iterationId?: number };

/**
 * Boards::Lists::CreateService: the next position after the movable lists, in the statement that
 * inserts (serialised per board by the board row's lock). Null when the board already has such a list.
 */
export async function insertList(db: Executor, boardId: number, list: NewList): Promise<number | null> {
  await db.execute(sql`SELECT 1 FROM boards WHERE id = ${boardId} FOR UPDATE`);
  const result = await db.execute<{ id: number }>(sql`INSERT INTO lists (board_id, list_type, label_id, user_id, milestone_id, iteration_id, position)
    SELECT ${boardId}, ${list.listType}, ${list.labelId ?? null}::int, ${list.userId ?? null}::int, ${list.milestoneId ?? null}::int,
      ${list.iterationId ?? null}::int,
      COALESCE((SELECT max(position) + 1 FROM lists WHERE board_id = ${boardId} AND ${destroyable}), 0)
    ON CONFLICT DO NOTHING RETURNING id`);
  return result.rows[0] ? Number(result.rows[0].id) : null;
}

/** How many movable lists the board has (`board.lists.movable.size`), with the board locked for the move. */
export async function lockMovableCount(db: Executor, boardId: number): Promise<number> {
  await db.execute(sql`SELECT 1 FROM boards WHERE id = ${boardId} FOR UPDATE`);
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(boardLists).where(and(eq(boardLists.boardId, boardId), destroyable));
  return row.n;
}

/** Boards::Lists::MoveService#reorder_intermediate_lists and #update_list_position. */
export async function moveList(db: Executor, boardId: number, listId: number, from: number, to: number): Promise<void> {
  const inBoard = and(eq(boardLists.boardId, boardId), destroyable);
  if (from < to) {
    await db.update(boardLists).set({ position: sql`${boardLists.position} - 1` }).where(and(inBoard, gt(boardLists.position, from), lte(boardLists.position, to)));
  } else {
    await db.update(boardLists).set({ position: sql`${boardLists.position} + 1` }).where(and(inBoard, gte(boardLists.position, to), lt(boardLists.position, from)));
  }
  await db.update(boardLists).set({ position: to, updatedAt: new Date() }).where(eq(boardLists.id, listId));
}

/** Boards::Lists::DestroyService: the lists after it move up one; then it is deleted. */
export async function deleteList(db: Executor, boardId: number, listId: number, position: number | null): Promise<void> {
  await db.execute(sql`SELECT 1 FROM boards WHERE id = ${boardId} FOR UPDATE`);
  if (position !== null) {
    await db.update(boardLists).set({ position: sql`${boardLists.position} - 1` }).where(and(eq(boardLists.boardId, boardId), destroyable, gt(boardLists.position, position)));
  }
  await db.delete(boardLists).where(eq(boardLists.id, listId));
}


/** How many boards the parent has, its boards locked so that two deletions cannot both pass the check. */
export async function countBoards(db: Executor, parent: BoardParent): Promise<number> {
  const ids = await db.select({ id: boards.id }).from(boards).where(ownedBy(parent)).for("update");
  return ids.length;
}
