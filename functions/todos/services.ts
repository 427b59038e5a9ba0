import { sql } from "drizzle-orm";
import type { Executor } from "../kernel/db";
import { insertTodosSql, resolveAllTodosSql, resolveTodoSql, TodoAction } from "../shared/issuables/todos";

/** To-do writes (app/services/todo_service.rb). */

/**
 * `TodoService#resolve_todo` on one of the caller's to-dos (nothing changes when it is already done).
 * Returns false when the caller has no such to-do.
 */
export async function markDone(db: Executor, userId: number, id: number): Promise<boolean> {
  const result = await db.execute<{ id: number }>(sql`
    WITH t AS (SELECT id FROM todos WHERE id = ${id}::int AND user_id = ${userId}::int),
    upd AS (${resolveTodoSql(userId, id)})
    SELECT id FROM t`);
  return result.rows.length > 0;
}

/** `TodoService#resolve_todos` over the caller's pending to-dos (`POST /todos/mark_as_done`). */
export async function markAllDone(db: Executor, userId: number): Promise<void> {
  await db.execute(resolveAllTodosSql(userId));
}

/**
 * `TodoService#mark_todo`: a `marked` to-do of the caller on the target, unless the caller already has
 * a pending to-do on it (`create_todos` excludes them). Returns the new to-do's id, or null.
 */
export async function markTodo(
  db: Executor,
  userId: number,
  target: { type: "Issue" | "MergeRequest"; id: number; projectId: number },
): Promise<number | null> {
  const result = await db.execute<{ id: number }>(
    insertTodosSql(
      {
        from: sql`(SELECT 1) AS one`,
        userId: sql`${userId}::int`,
        action: sql`${TodoAction.marked}::int`,
        targetType: target.type,
        targetId: target.id,
        projectId: target.projectId,
        authorId: userId,
        skipPending: {},
      },
      sql` RETURNING id`,
    ),
  );
  return result.rows[0] ? Number(result.rows[0].id) : null;
}
