import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../kernel/db";

/**
 * To-dos (app/services/todo_service.rb): the action codes and the one writer of `todos` rows: the
 * INSERT, the UPDATE that marks them done and the DELETE of a deleted target's to-dos. Every other
 * module puts these fragments in its own statements (`test/node/one_writer.test.mjs`).
 */

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

export type TodoTarget = "Issue" | "MergeRequest" | "Epic" | "Snippet" | "AlertManagement::Alert";

export type TodoRows = {
  /** The FROM clause the expressions below name (e.g. sql`mr, unnest(…) AS t(user_id, action)`). */
  from: SQL;
  where?: SQL;
  userId: SQL;
  /** Todo#action as a number (TodoAction). */
  action: SQL;
  targetType: TodoTarget;
  targetId: number | SQL;
  projectId: number | null;
  groupId?: number | null;
  authorId: number;
  noteId?: SQL;
  body?: SQL;
  /** `created_at` and `updated_at`; the statement's `now()` when absent. */
  at?: SQL;
  /**
   * TodoService#create_todos: users with a pending to-do on the target get none (`multiple_todos` is
   * off in 15.4). `except`: a user whose pending to-dos this same statement resolves (its snapshot
   * still sees them).
   */
  skipPending?: { except?: number };
};

/**
 * The one INSERT of to-dos (TodoService#create_todos): pending to-dos for the rows of `from`. Callers
 * put it in a CTE of their write statement (`todosCte`) or run it alone (`RETURNING`).
 */
export function insertTodosSql(r: TodoRows, returning: SQL = sql``): SQL {
  const at = r.at ?? sql`now()`;
  const conditions: SQL[] = [];
  if (r.where) conditions.push(r.where);
  if (r.skipPending) {
    const except = r.skipPending.except !== undefined ? sql` AND p.user_id <> ${r.skipPending.except}::int` : sql``;
    conditions.push(sql`NOT EXISTS (SELECT 1 FROM todos p WHERE p.user_id = ${r.userId} AND p.target_type = ${r.targetType}::text
      AND p.target_id = (${r.targetId})::int AND p.state = 'pending'${except})`);
  }
  const where = conditions.length ? sql` WHERE ${sql.join(conditions, sql` AND `)}` : sql``;
  return sql`INSERT INTO todos (user_id, project_id, group_id, author_id, target_type, target_id, note_id, action, body, state, created_at, updated_at)
    SELECT ${r.userId}, ${r.projectId}::int, ${r.groupId ?? null}::int, ${r.authorId}::int, ${r.targetType}::text, (${r.targetId})::int,
      ${r.noteId ?? sql`NULL`}::int, ${r.action}, ${r.body ?? sql`NULL`}::text, 'pending', ${at}, ${at}
    FROM ${r.from}${where}${returning}`;
}

/** `insertTodosSql` as the CTE `name` of a write statement. */
export function todosCte(name: string, r: TodoRows): SQL {
  return sql`${sql.identifier(name)} AS (${insertTodosSql(r)})`;
}

/**
 * The one UPDATE that marks to-dos done (TodoService#resolve_todos): the pending to-dos that `where`
 * selects. Callers run it alone or as a CTE of their write.
 */
export function doneTodosSql(where: SQL, opts: { at?: SQL } = {}): SQL {
  return sql`UPDATE todos SET state = 'done', updated_at = ${opts.at ?? sql`now()`} WHERE ${where} AND state = 'pending'`;
}

/** A target, or the targets a subquery names (`{ in: sql\`SELECT id FROM closed\` }`). */
export type TodoTargetIds = number | SQL | { in: SQL };

function targetIdCondition(targetId: TodoTargetIds): SQL {
  if (typeof targetId === "object" && "in" in targetId) return sql`target_id IN (${targetId.in})`;
  return sql`target_id = (${targetId})::int`;
}

/**
 * TodoService#resolve_todos_for_target: `userId`'s pending to-dos on the target(s) are done; `when`
 * guards it inside a larger statement.
 */
export function resolveTodosSql(userId: number, targetType: TodoTarget, targetId: TodoTargetIds, opts: { at?: SQL; when?: SQL } = {}): SQL {
  const when = opts.when ? sql`${opts.when} AND ` : sql``;
  return doneTodosSql(sql`${when}user_id = ${userId}::int AND target_type = ${targetType}::text AND ${targetIdCondition(targetId)}`, { at: opts.at });
}

/** TodoService#resolve_todo: one of the user's to-dos (`POST /todos/:id/mark_as_done`). */
export function resolveTodoSql(userId: number, todoId: number): SQL {
  return doneTodosSql(sql`id = ${todoId}::int AND user_id = ${userId}::int`);
}

/** TodoService#resolve_todos over every pending to-do of the user (`POST /todos/mark_as_done`). */
export function resolveAllTodosSql(userId: number): SQL {
  return doneTodosSql(sql`user_id = ${userId}::int`);
}

/** Issuable::DestroyService: the to-dos of a deleted target (every user's, any state). */
export function deleteTargetTodosSql(targetType: TodoTarget, targetId: number | SQL): SQL {
  return sql`DELETE FROM todos WHERE target_type = ${targetType}::text AND target_id = (${targetId})::int`;
}

/** Pending to-dos for a list of users on one target (alerts' `assigned`), through the one INSERT above. */
export async function createTodos(
  tx: Executor,
  input: { userIds: number[]; action: TodoActionName; targetType: TodoTarget; targetId: number; projectId: number | null; authorId: number },
): Promise<void> {
  const userIds = [...new Set(input.userIds)];
  if (userIds.length === 0) return;
  await tx.execute(
    insertTodosSql({
      from: sql`unnest(${sql.param(userIds)}::int[]) AS t(user_id)`,
      userId: sql`t.user_id`,
      action: sql`${TodoAction[input.action]}::int`,
      targetType: input.targetType,
      targetId: input.targetId,
      projectId: input.projectId,
      authorId: input.authorId,
    }),
  );
}
