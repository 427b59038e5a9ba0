import * as z from "zod";
import { findProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { userBasic } from "../../entities/users";
import { publicGroupDetails } from "../../entities/projects";
import * as q from "../team_queries";

/** `GET /projects/:id/users` and `GET /projects/:id/groups` (lib/api/projects.rb). */
export const teamRoutes = router();

const ListUsers = z.object({
  search: p.string().optional(),
  skip_users: p.ints({ comma: true }).optional(),
  ...pageParams.shape,
});

/** GET /projects/:id/users: the project's team (UserBasic), for whoever may read the project. */
teamRoutes.get("/projects/:id/users", { params: ListUsers, paginated: true }, async (c) => {
  const params = await readParams(c, ListUsers);
  const project = await findProject(c, c.req.param("id")!);
  const page = pageOf(params);
  const { rows, total } = await q.listTeamUsers(c.var.db(), project.id, { search: params.search, skipUsers: params.skip_users }, page);
  paginate(c, page, total);
  return present(c, rows, userBasic);
});

const ListGroups = z.object({
  search: p.string().optional(),
  skip_groups: p.ints({ comma: true }).optional(),
  with_shared: p.bool().optional(),
  shared_visible_only: p.bool().optional(),
  shared_min_access_level: p.intOneOf(10, 20, 30, 40, 50).optional(),
  ...pageParams.shape,
});

/** GET /projects/:id/groups (Projects::GroupsFinder; Entities::PublicGroupDetails). */
teamRoutes.get("/projects/:id/groups", { params: ListGroups, paginated: true }, async (c) => {
  const params = await readParams(c, ListGroups);
  const project = await findProject(c, c.req.param("id")!);
  const page = pageOf(params);
  const { rows, total } = await q.listProjectGroups(
    c.var.db(),
    c.var.actor,
    project.id,
    {
      search: params.search,
      skipGroups: params.skip_groups,
      withShared: params.with_shared ?? false,
      sharedMinAccessLevel: params.shared_min_access_level,
      sharedVisibleOnly: params.shared_visible_only ?? false,
    },
    page,
  );
  paginate(c, page, total);
  return present(c, rows, publicGroupDetails);
});
