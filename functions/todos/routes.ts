import * as z from "zod";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { recordNotFound } from "../kernel/errors";
import { findIssue, findMergeRequest } from "../shared/issuables/find";
import { findProject } from "../kernel/lookup";
import { pageOf, paginate } from "../kernel/pagination";
import { p, readParams, validateParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { todo, Todo } from "../entities/todos";
import { ListTodos } from "./params";
import * as q from "./queries";
import * as services from "./services";

/** To-dos (lib/api/todos.rb): every endpoint needs a signed-in user, reads included (`authenticate!`). */
export const todosRoutes = router();

const MAX_INT = 2147483647;
const inRange = (n: number | undefined) => n === undefined || Math.abs(n) <= MAX_INT;

/** GET /todos (lib/api/todos.rb): the caller's pending to-dos by default, newest first. */
todosRoutes.get("/todos", { params: ListTodos, response: [Todo] }, async (c) => {
  const actor = requireUser(c);
  const params = await readParams(c, ListTodos);
  if (params.author_id !== undefined && params.author_id !== 0) {
    if (!inRange(params.author_id) || !(await q.userExists(c.var.db(), params.author_id))) throw recordNotFound();
  }
  const page = pageOf(params);
  const outOfRange = !inRange(params.project_id) || !inRange(params.group_id);
  const { rows, total } = outOfRange
    ? { rows: [], total: 0 }
    : await q.listTodos(c.var.db(), actor, params, page);
  paginate(c, page, total);
  return present(c, rows, todo);
});

/** POST /todos/mark_as_done (lib/api/todos.rb): every pending to-do of the caller, 204. */
todosRoutes.post("/todos/mark_as_done", async (c) => {
  const actor = requireUser(c);
  await services.markAllDone(c.var.db(), actor.user.id);
  return c.body(null, 204);
});

/** POST /todos/:id/mark_as_done (lib/api/todos.rb): 201 with the to-do; another user's is `404 Not found`. */
todosRoutes.post("/todos/:id/mark_as_done", { response: Todo }, async (c) => {
  const actor = requireUser(c);
  const { id } = validateParams({ id: c.req.param("id") }, z.object({ id: p.int() }));
  if (!inRange(id) || !(await services.markDone(c.var.db(), actor.user.id, id))) throw recordNotFound();
  const row = await q.loadTodo(c.var.db(), actor, id);
  if (!row) throw recordNotFound();
  return present(c, row, todo, {}, 201);
});

/** A `marked` to-do for the caller: 201 with it, or 304 when the caller already has a pending one on the target. */
async function mark(c: Ctx, target: { type: "Issue" | "MergeRequest"; id: number; projectId: number }) {
  const actor = requireUser(c);
  const id = await services.markTodo(c.var.db(), actor.user.id, target);
  if (id === null) return c.body(null, 304);
  const row = await q.loadTodo(c.var.db(), actor, id);
  return present(c, row!, todo, {}, 201);
}

/** POST /projects/:id/issues/:issue_iid/todo (lib/api/todos.rb) */
todosRoutes.post("/projects/:id/issues/:issue_iid/todo", { response: Todo, errors: [304] }, async (c) => {
  validateParams({ issue_iid: c.req.param("issue_iid") }, z.object({ issue_iid: p.id() }));
  const project = await findProject(c, c.req.param("id"));
  const issue = await findIssue(c, project, c.req.param("issue_iid"));
  return mark(c, { type: "Issue", id: issue.id, projectId: project.id });
});

/** POST /projects/:id/merge_requests/:merge_request_iid/todo (lib/api/todos.rb) */
todosRoutes.post("/projects/:id/merge_requests/:merge_request_iid/todo", { response: Todo, errors: [304] }, async (c) => {
  validateParams({ merge_request_iid: c.req.param("merge_request_iid") }, z.object({ merge_request_iid: p.int() }));
  const project = await findProject(c, c.req.param("id"));
  const mr = await findMergeRequest(c, project, c.req.param("merge_request_iid"));
  return mark(c, { type: "MergeRequest", id: mr.id, projectId: project.id });
});
