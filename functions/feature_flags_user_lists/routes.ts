import * as z from "zod";
import type { ProjectWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { apiError, recordNotFound } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, pathRowId, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { userList, UserListEntity } from "../entities/feature_flags";
import type { UserList } from "./queries";
import * as q from "./queries";

/**
 * Feature flag user lists (lib/api/feature_flags_user_lists.rb): Developer or higher
 * (`admin_feature_flags_user_lists`), found by iid. Errors are the model's full messages.
 * The API has its own `error_formatter`: a string error is `{"message": "…"}`, so a list created
 * without `user_xids` is 400 `{"message": "user_xids is missing"}`. Its `before` block authorizes,
 * and Grape runs `before` ahead of parameter validation: who may not manage the project's lists gets
 * 404 or 403 whatever the parameters.
 */
export const featureFlagsUserListsRoutes = router({ errorFormat: "message" });

const ListUserLists = pageParams.extend({ search: p.string().optional() });
const CreateUserList = z.object({ name: p.string(), user_xids: p.string() });
const UpdateUserList = z.object({ name: p.string().optional(), user_xids: p.string().optional() });

const USER_XIDS_MESSAGE = "User xids user_xids must be a string of unique comma separated values each 256 characters or less";

/** `validates :name, presence, length: 1..255` and `:user_xids, feature_flag_user_xids`. */
function listErrors(v: { name: string; userXids: string }): string[] {
  const errors: string[] = [];
  if (v.name.trim() === "") errors.push("Name can't be blank");
  if ([...v.name].length > 255) errors.push("Name is too long (maximum is 255 characters)");
  if (!validXids(v.userXids)) errors.push(USER_XIDS_MESSAGE);
  return errors;
}

function validXids(value: string): boolean {
  if (/[\n\r\t]|,,/.test(value)) return false;
  const xids = value.split(",");
  while (xids.length && xids[xids.length - 1] === "") xids.pop();
  if (new Set(xids).size !== xids.length) return false;
  return xids.every((x) => x.trim() !== "" && x.trim() === x && x.length <= 256);
}

async function findList(c: Ctx, project: ProjectWithAccess): Promise<UserList> {
  const iid = c.req.param("iid")!;
  if (pathRowId(iid) === null) throw recordNotFound();
  const list = await q.findUserList(c.var.db(), project.id, Number(iid));
  if (!list) throw recordNotFound();
  return list;
}

const presentList = (c: Ctx, list: UserList | UserList[], project: ProjectWithAccess, status: 200 | 201 = 200) =>
  present(c, list, userList, { projectFullPath: project.fullPath }, status);

/** GET /projects/:id/feature_flags_user_lists (lib/api/feature_flags_user_lists.rb) */
featureFlagsUserListsRoutes.get("/projects/:id/feature_flags_user_lists", { params: ListUserLists, response: [UserListEntity] }, async (c) => {
  const project = await authorizedProject(c, "admin_feature_flags_user_lists");
  const params = await readParams(c, ListUserLists);
  const page = pageOf(params);
  const list = await q.listUserLists(c.var.db(), project.id, params.search, page);
  paginate(c, page, list.total);
  return presentList(c, list.rows, project);
});

/** POST /projects/:id/feature_flags_user_lists (lib/api/feature_flags_user_lists.rb) */
featureFlagsUserListsRoutes.post("/projects/:id/feature_flags_user_lists", { params: CreateUserList, response: UserListEntity }, async (c) => {
  const project = await authorizedProject(c, "admin_feature_flags_user_lists");
  const params = await readParams(c, CreateUserList);
  const values = { name: params.name, userXids: params.user_xids };
  const errors = listErrors(values);
  if (errors.length) throw apiError(errors, 400);
  const created = await q.insertUserList(c.var.db(), project.id, values);
  if (!created) throw apiError(["Name has already been taken"], 400);
  return presentList(c, created, project, 201);
});

/** GET /projects/:id/feature_flags_user_lists/:iid (lib/api/feature_flags_user_lists.rb) */
featureFlagsUserListsRoutes.get("/projects/:id/feature_flags_user_lists/:iid", { response: UserListEntity }, async (c) => {
  const project = await authorizedProject(c, "admin_feature_flags_user_lists");
  return presentList(c, await findList(c, project), project);
});

/** PUT /projects/:id/feature_flags_user_lists/:iid (lib/api/feature_flags_user_lists.rb) */
featureFlagsUserListsRoutes.put("/projects/:id/feature_flags_user_lists/:iid", { params: UpdateUserList, response: UserListEntity }, async (c) => {
  const project = await authorizedProject(c, "admin_feature_flags_user_lists");
  const params = await readParams(c, UpdateUserList);
  const list = await findList(c, project);
  const values = { name: params.name ?? list.name, userXids: params.user_xids ?? list.userXids };
  const errors = listErrors(values);
  if (errors.length) throw apiError(errors, 400);
  const updated = await q.updateUserList(c.var.db(), list.id, { name: params.name, userXids: params.user_xids });
  if (!updated) throw apiError(["Name has already been taken"], 400);
  return presentList(c, updated, project);
});

/** DELETE /projects/:id/feature_flags_user_lists/:iid (lib/api/feature_flags_user_lists.rb): 204; 409 while in use. */
featureFlagsUserListsRoutes.delete("/projects/:id/feature_flags_user_lists/:iid", async (c) => {
  const project = await authorizedProject(c, "admin_feature_flags_user_lists");
  const list = await findList(c, project);
  if (!(await q.deleteUserList(c.var.db(), list.id))) throw apiError(["User list is associated with a strategy"], 409);
  return c.body(null, 204);
});
