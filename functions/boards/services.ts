import type { Database } from "../kernel/db";
import { LIST_TYPES } from "../entities/boards";
import * as q from "./queries";

/** Boards::CreateService: the board with its backlog and closed lists, in one transaction. */
export async function createBoard(db: Database, parent: q.BoardParent, name: string): Promise<number> {
  return db.transaction(async (tx) => {
    const id = await q.insertBoard(tx, parent, name);
    await q.insertDefaultLists(tx, id);
    return id;
  });
}

/** What a new list lists by: exactly one of a label, a user or a milestone (already found available). */
export type ListTarget = { labelId: number } | { assigneeId: number } | { milestoneId: number } | { iterationId: number };

/** Boards::Lists::CreateService: null when the board already has a list for that target. */
export async function createList(db: Database, boardId: number, target: ListTarget): Promise<number | null> {
  const list =
    "labelId" in target
      ? { listType: LIST_TYPES.label, labelId: target.labelId }
      : "assigneeId" in target
        ? { listType: LIST_TYPES.assignee, userId: target.assigneeId }
        : "milestoneId" in target
          ? { listType: LIST_TYPES.milestone, milestoneId: target.milestoneId }
          : { listType: LIST_TYPES.iteration, iterationId: target.iterationId };
  return db.transaction((tx) => q.insertList(tx, boardId, list));
}

/**
 * Boards::Lists::MoveService: false unless the new position is another one among the board's movable
 * lists (`valid_move?`); the lists in between shift by one.
 */
export async function moveList(db: Database, boardId: number, list: { id: number; position: number | null }, to: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const movable = await q.lockMovableCount(tx, boardId);
    const current = (await q.findList(tx, boardId, list.id))?.position ?? null;
    if (current === null || to === current || to < 0 || to >= movable) return false;
    await q.moveList(tx, boardId, list.id, current, to);
    return true;
  });
}

/** Boards::Lists::DestroyService: the lists after it move up one. */
export async function destroyList(db: Database, boardId: number, list: { id: number; position: number | null }): Promise<void> {
  await db.transaction((tx) => q.deleteList(tx, boardId, list.id, list.position));
}

/**
 * Boards::DestroyService: a parent's last board is kept (GitLab answers 204 either way: the API ignores
 * the service's "doesn't have any other boards" error).
 */
export async function destroyBoard(db: Database, parent: q.BoardParent, boardId: number): Promise<void> {
  await db.transaction(async (tx) => {
    if ((await q.countBoards(tx, parent)) > 1) await q.deleteBoard(tx, boardId);
  });
}
