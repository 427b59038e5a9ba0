import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { namespaces, projects, todos } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { issueIsVisible } from "../shared/issuables/policy";
import { TodoAction } from "../shared/issuables/todos";
import { loadIssueRows } from "../shared/issuables/issue_preload";
import { loadMergeRequestRows } from "../shared/issuables/merge_request_preload";
import { loadEpicRows } from "../shared/issuables/epic_preload";
import { cappedCount, type Page } from "../kernel/pagination";
import { groupAccessLevel, groupIsVisible, projectIsVisible } from "../kernel/visibility";
import type { TodoRow, TodoTarget } from "../entities/todos";
import type { ListParams } from "./params";

const todoGroup = alias(namespaces, "todo_group");

/**
 * The caller may still read the target. Differs from GitLab 15.4, which lists to-dos whatever their
 * target and relies on TodosDestroyer workers to delete those whose target became unreadable; here
 * they are filtered out instead (as `Todos::AllowedTargetFilterService` does in later versions).
 */
function targetReadable(actor: Actor): SQL {
  if (actor.isAdmin) return sql`true`;
  return sql`CASE ${todos.targetType}
    WHEN 'Issue' THEN EXISTS (SELECT 1 FROM issues WHERE issues.id = ${todos.targetId} AND ${issueIsVisible(actor)})
    WHEN 'MergeRequest' THEN EXISTS (SELECT 1 FROM merge_requests m JOIN projects ON projects.id = m.project_id
      WHERE m.id = ${todos.targetId} AND projects.merge_requests_enabled AND ${projectIsVisible(actor, projects, 20)})
    WHEN 'Epic' THEN EXISTS (SELECT 1 FROM epics JOIN namespaces ON namespaces.id = epics.group_id
      WHERE epics.id = ${todos.targetId} AND ${groupIsVisible(actor)}
        AND (NOT epics.confidential OR ${groupAccessLevel(actor.user.id)} >= 20))
    ELSE false END`;
}

/** TodosFinder's filters (app/finders/todos_finder.rb). */

function condition(actor: Actor, f: ListParams): SQL {
  const conditions: SQL[] = [eq(todos.userId, actor.user.id), eq(todos.state, f.state ?? "pending"), targetReadable(actor)];
  if (f.action !== undefined) conditions.push(eq(todos.action, TodoAction[f.action as keyof typeof TodoAction] ?? -1));
  if (f.author_id !== undefined) conditions.push(eq(todos.authorId, f.author_id));
  if (f.project_id !== undefined) conditions.push(eq(todos.projectId, f.project_id));
  if (f.type !== undefined) conditions.push(eq(todos.targetType, f.type));
  if (f.group_id !== undefined) {
    // `for_group_ids_and_descendants`: to-dos of the group's subtree and of the projects inside it.
    const subtree = sql`SELECT g.id FROM namespaces g WHERE g.traversal_ids @> ARRAY[${f.group_id}]::int[]`;
    conditions.push(sql`(${todos.groupId} IN (${subtree}) OR ${todos.projectId} IN (SELECT p.id FROM projects p WHERE p.namespace_id IN (${subtree})))`);
  }
  return and(...conditions)!;
}

function selectTodos(db: Executor) {
  return db
    .select({
      todo: todos,
      project: projects,
      group: todoGroup,
      author: sql<TodoRow["author"]>`(SELECT json_build_object('id', u.id, 'username', u.username, 'name', u.name,
        'state', u.state, 'avatarUrl', u.avatar_url, 'email', u.email) FROM users u WHERE u.id = ${todos.authorId})`,
      noteBody: sql<string | null>`(SELECT n.note FROM notes n WHERE n.id = ${todos.noteId})`,
    })
    .from(todos)
    .leftJoin(projects, eq(projects.id, todos.projectId))
    .leftJoin(todoGroup, eq(todoGroup.id, todos.groupId));
}

type Selected = Awaited<ReturnType<ReturnType<typeof selectTodos>["execute"]>>[number];

/** Issues, merge requests and epics of the to-dos, one statement per kind present. */
async function withTargets(db: Executor, actor: Actor, selected: Selected[]): Promise<TodoRow[]> {
  const idsOf = (type: string) => [...new Set(selected.filter((s) => s.todo.targetType === type).map((s) => s.todo.targetId))];
  const issueRows = await loadIssueRows(db, idsOf("Issue"), actor);
  const mrRows = await loadMergeRequestRows(db, idsOf("MergeRequest"), actor);
  const epicRows = await loadEpicRows(db, idsOf("Epic"));
  const targets = new Map<string, TodoTarget>();
  for (const row of issueRows) targets.set(`Issue:${row.id}`, { type: "Issue", row });
  for (const row of mrRows) targets.set(`MergeRequest:${row.id}`, { type: "MergeRequest", row });
  for (const row of epicRows) targets.set(`Epic:${row.id}`, { type: "Epic", row });
  return selected.map((s) => ({
    ...s.todo,
    project: s.project,
    group: s.group,
    author: s.author,
    noteBody: s.noteBody,
    target: targets.get(`${s.todo.targetType}:${s.todo.targetId}`) ?? null,
  }));
}

/** `GET /todos`: one page, newest first (`order_id_desc`), with the capped total. */
export async function listTodos(db: Executor, actor: Actor, f: ListParams, page: Page): Promise<{ rows: TodoRow[]; total: number }> {
  const where = condition(actor, f);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(todos).where(where), page);
  const selected = await selectTodos(db).where(where).orderBy(desc(todos.id)).limit(page.limit).offset(page.offset);
  return { rows: await withTargets(db, actor, selected), total };
}

/** One to-do of the caller, with its relations. */
export async function loadTodo(db: Executor, actor: Actor, id: number): Promise<TodoRow | null> {
  const selected = await selectTodos(db)
    .where(and(eq(todos.id, id), eq(todos.userId, actor.user.id)))
    .limit(1);
  if (!selected[0]) return null;
  return (await withTargets(db, actor, selected))[0];
}

/** Whether a user exists (`User.find(params[:author_id])` answers 404 otherwise). */
export async function userExists(db: Executor, id: number): Promise<boolean> {
  const result = await db.execute(sql`SELECT 1 FROM users WHERE id = ${id}::int`);
  return result.rows.length > 0;
}
