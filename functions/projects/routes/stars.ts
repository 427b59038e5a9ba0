import * as z from "zod";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { findProject } from "../../kernel/lookup";
import { p, readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { project as projectEntity, userStarsProject, ProjectWithAccess, BasicProjectDetails, Project, UserStarsProject } from "../../entities/projects";
import { ListStarredProjects } from "../params";
import * as projectQueries from "../queries";
import * as q from "../star_queries";
import { columnOrder, userProjects } from "./list";

/**
 * Project stars (lib/api/projects.rb: star, unstar, starrers, `GET /users/:user_id/starred_projects`).
 * `projects.star_count` is the counter cache, changed in the same statement as the star row.
 */
export const starsRoutes = router();

/** Grape's `not_modified!`: 304 with no body. */
const notModified = () => new Response(null, { status: 304 });

async function starOrUnstar(c: Ctx, on: boolean) {
  const actor = requireUser(c);
  const project = await findProject(c, c.req.param("id")!);
  const db = c.var.db();
  const changed = on ? await q.star(db, actor.user.id, project.id) : await q.unstar(db, actor.user.id, project.id);
  if (!changed) return notModified();
  const row = await projectQueries.loadProjectRow(db, actor, project.id);
  // Entities::Project, as GitLab presents the reloaded project.
  return present(c, row!, projectEntity, {}, 201);
}

/** POST /projects/:id/star: 201 with the project, 304 when the caller already starred it. */
starsRoutes.post("/projects/:id/star", { response: Project, errors: [304] }, (c) => starOrUnstar(c, true));

/** POST /projects/:id/unstar: 201 with the project, 304 when the caller had not starred it. */
starsRoutes.post("/projects/:id/unstar", { response: Project, errors: [304] }, (c) => starOrUnstar(c, false));

const ListStarrers = pageParams.extend({ search: p.string().optional() });

/** GET /projects/:id/starrers (UsersStarProjectsFinder; API::Entities::UserStarsProject) */
starsRoutes.get("/projects/:id/starrers", { params: ListStarrers, response: [UserStarsProject] }, async (c) => {
  const params = await readParams(c, ListStarrers);
  const project = await findProject(c, c.req.param("id")!);
  const page = pageOf(params);
  const { rows, total } = await q.listStarrers(c.var.db(), c.var.actor, project.id, params.search, page);
  paginate(c, page, total);
  return present(c, rows, userStarsProject);
});

/** GET /users/:user_id/starred_projects (StarredProjectsFinder) */
starsRoutes.get("/users/:user_id/starred_projects", { params: ListStarredProjects, response: [z.union([ProjectWithAccess, BasicProjectDetails])] }, async (c) => {
  const params = await readParams(c, ListStarredProjects);
  return userProjects(c, params, (userId) => ({ kind: "all", starredBy: userId }), columnOrder(params));
});
