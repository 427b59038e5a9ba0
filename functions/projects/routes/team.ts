import { findProject } from "../../kernel/lookup";
import { pageOf, paginate } from "../../kernel/pagination";
import { readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { userBasic, UserBasic } from "../../entities/users";
import { publicGroupDetails, PublicGroupDetails } from "../../entities/projects";
import { ListProjectGroups, ListProjectUsers } from "../params";
import * as q from "../team_queries";

/** `GET /projects/:id/users` and `GET /projects/:id/groups` (lib/api/projects.rb). */
export const teamRoutes = router();

/** GET /projects/:id/users: the project's team (UserBasic), for whoever may read the project. */
teamRoutes.get("/projects/:id/users", { params: ListProjectUsers, response: [UserBasic] }, async (c) => {
  const params = await readParams(c, ListProjectUsers);
  const project = await findProject(c, c.req.param("id")!);
  const page = pageOf(params);
  const { rows, total } = await q.listTeamUsers(c.var.db(), project.id, params, page);
  paginate(c, page, total);
  return present(c, rows, userBasic);
});

/** GET /projects/:id/groups (Projects::GroupsFinder; Entities::PublicGroupDetails). */
teamRoutes.get("/projects/:id/groups", { params: ListProjectGroups, response: [PublicGroupDetails] }, async (c) => {
  const params = await readParams(c, ListProjectGroups);
  const project = await findProject(c, c.req.param("id")!);
  const page = pageOf(params);
  const { rows, total } = await q.listProjectGroups(c.var.db(), c.var.actor, project.id, params, page);
  paginate(c, page, total);
  return present(c, rows, publicGroupDetails);
});
