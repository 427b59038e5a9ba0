import { todos } from "../../../db/schema";
import type { Executor } from "../../kernel/db";

/** To-dos (app/services/todo_service.rb): the action codes and the one INSERT of pending to-dos. */

/** Todo#action values. */
export const TodoAction = {
  assigned: 1,
  mentioned: 2,
  build_failed: 3,
  marked: 4,
  approval_required: 5,
  unmergeable: 6,
  directly_addressed: 7,
  merge_train_removed: 8,
  review_requested: 9,
} as const;
export type TodoActionName = keyof typeof TodoAction;

export type TodoInput = {
  userIds: number[];
  action: TodoActionName;
  targetType: "Issue" | "MergeRequest" | "Epic" | "Snippet" | "AlertManagement::Alert";
  targetId: number;
  projectId: number | null;
  groupId?: number | null;
  authorId: number;
  noteId?: number | null;
  body?: string | null;
};

/** Inserts one pending to-do per user, in the caller's transaction (one statement). */
export async function createTodos(tx: Executor, input: TodoInput): Promise<void> {
  const userIds = [...new Set(input.userIds)];
  if (userIds.length === 0) return;
  await tx.insert(todos).values(
    userIds.map((userId) => ({
      userId,
      projectId: input.projectId,
      groupId: input.groupId ?? null,
      authorId: input.authorId,
      targetType: input.targetType,
      targetId: input.targetId,
      noteId: input.noteId ?? null,
      action: TodoAction[input.action],
      body: input.body ?? null,
    })),
  );
}
