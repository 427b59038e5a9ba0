import { authorize, authorizeGroup } from "../kernel/abilities";
import { validation } from "../kernel/errors";
import { findGroup, findProject } from "../kernel/lookup";
import { pageOf, paginate } from "../kernel/pagination";
import { readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { iteration, Iteration } from "../entities/iterations";
import { CreateIteration, ListIterations } from "./params";
import * as q from "./queries";
import { castDate } from "../kernel/params";
import * as services from "./services";

/**
 * EE iterations (ee/lib/api/iterations.rb): the iterations of a group and of a project's groups.
 * Anonymous callers may list those of public groups and projects, as in GitLab. `POST /groups/:id/iterations`
 * is ours (GitLab creates iterations through cadences in the UI and GraphQL only). Not built: cadences,
 * `in`, `updated_before` / `updated_after`, updating and deleting iterations.
 */
export const iterationsRoutes = router();

/** GET /groups/:id/iterations: the group's iterations and, unless `include_ancestors=false`, its ancestors'. */
iterationsRoutes.get("/groups/:id/iterations", { params: ListIterations, response: [Iteration] }, async (c) => {
  const params = await readParamsWithPath(c, ListIterations);
  const group = await findGroup(c, c.req.param("id")!);
  authorizeGroup(c, "read_iteration", group);
  const groupIds = params.include_ancestors ? group.traversalIds : [group.id];
  const page = pageOf(params);
  const list = await q.listIterations(c.var.db(), groupIds, params, page);
  paginate(c, page, list.total);
  return present(c, list.rows, iteration);
});

/**
 * GET /projects/:id/iterations: the iterations of the project's group and, unless
 * `include_ancestors=false`, of that group's ancestors. A project of a user has none.
 */
iterationsRoutes.get("/projects/:id/iterations", { params: ListIterations, response: [Iteration] }, async (c) => {
  const params = await readParamsWithPath(c, ListIterations);
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_iteration", project);
  const ns = project.namespace;
  const groupIds = ns.type !== "Group" ? [] : params.include_ancestors ? ns.traversalIds : [ns.id];
  const page = pageOf(params);
  const list = await q.listIterations(c.var.db(), groupIds, params, page);
  paginate(c, page, list.total);
  return present(c, list.rows, iteration);
});

/**
 * POST /groups/:id/iterations (reporters and up: `admin_iteration`): 201, or Rails' validation errors.
 * Deliberate difference from GitLab: no such REST route in GitLab 15.4 (GraphQL `iterationCreate`).
 */
iterationsRoutes.post("/groups/:id/iterations", { params: CreateIteration, response: Iteration }, async (c) => {
  const params = await readParamsWithPath(c, CreateIteration);
  const group = await findGroup(c, c.req.param("id")!);
  authorizeGroup(c, "admin_iteration", group);
  const title = params.title?.trim() ? params.title : null;
  const values = { title, description: params.description ?? null, startDate: castDate(params.start_date), dueDate: castDate(params.due_date) };
  const result = await services.createIteration(c.var.db(), group.id, values, new Date());
  if ("errors" in result) throw validation(result.errors);
  return present(c, result.row, iteration, {}, 201);
});
