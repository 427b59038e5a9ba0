import * as z from "zod";
import { allowedOnGroup, type GroupWithAccess } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, badRequest, forbidden, notFound, recordNotFound } from "../kernel/errors";
import { findGroup } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams, validateParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { billableMember, membership } from "./entities";
import * as q from "./queries";
import { ensureSnapshot } from "./services";

/** ee/lib/api/members.rb: the billable members of a top-level group (a daily snapshot, spec 2: 4.8). */
export const billableMembersRoutes = router();

const SORTS = ["access_level_asc", "access_level_desc", "last_joined", "name_asc", "name_desc", "oldest_joined", "oldest_sign_in", "recent_sign_in"] as const;
const ListParams = pageParams.extend({ search: p.string().optional(), sort: p.oneOf(...SORTS).optional() });

/** `bad_request!` for a subgroup or a caller who may not administer the group's members. */
async function rootGroup(c: Ctx): Promise<GroupWithAccess> {
  requireUser(c);
  const group = await findGroup(c, c.req.param("id")!);
  if (group.parentId !== null) throw badRequest();
  if (!allowedOnGroup(c.var.actor, "admin_group_member", group)) throw badRequest();
  return group;
}

function userIdParam(c: Ctx): number {
  const { user_id } = validateParams({ user_id: c.req.param("user_id") }, z.object({ user_id: p.int() }));
  return user_id;
}

/** GET /groups/:id/billable_members: the snapshot (made on first read), searched and sorted. */
billableMembersRoutes.get("/groups/:id/billable_members", async (c) => {
  const params = await readParams(c, ListParams);
  const group = await rootGroup(c);
  const db = c.var.db();
  await ensureSnapshot(db, group.id);
  const page = pageOf(params);
  const list = await q.listBillable(db, group.id, { search: params.search, sort: params.sort ?? "id_asc" }, page);
  paginate(c, page, list.total);
  return present(c, list.rows, billableMember);
});

/** GET /groups/:id/billable_members/:user_id/memberships: the user's direct memberships in the hierarchy. */
billableMembersRoutes.get("/groups/:id/billable_members/:user_id/memberships", async (c) => {
  const page = pageOf(await readParams(c, pageParams));
  const userId = userIdParam(c);
  const group = await rootGroup(c);
  const db = c.var.db();
  const user = userId > 2147483647 ? null : await q.findUserById(db, userId);
  if (!user) throw recordNotFound();
  await ensureSnapshot(db, group.id);
  if (!(await q.isBillable(db, group.id, user.id))) throw notFound("User");
  const list = await q.membershipsInHierarchy(db, group.id, user.id, page);
  paginate(c, page, list.total);
  return present(c, list.rows, membership);
});

/**
 * DELETE /groups/:id/billable_members/:user_id: the user leaves the group, its subgroups and projects;
 * 204. The snapshot drops them at once. The last owner of the group cannot be removed (403).
 */
billableMembersRoutes.delete("/groups/:id/billable_members/:user_id", async (c) => {
  const userId = userIdParam(c);
  requireUser(c);
  const group = await findGroup(c, c.req.param("id")!);
  if (!allowedOnGroup(c.var.actor, "admin_group_member", group)) throw forbidden();
  if (group.parentId !== null) throw apiError("Invalid group provided, must be top-level", 400);
  const db = c.var.db();
  await ensureSnapshot(db, group.id);
  if (userId > 2147483647 || !(await q.isBillable(db, group.id, userId))) throw apiError("No member found for the given user_id", 400);
  if (await q.isLastOwner(db, group.id, userId)) throw forbidden();
  await db.transaction((tx) => q.removeFromHierarchy(tx, group.id, userId));
  return c.body(null, 204);
});
