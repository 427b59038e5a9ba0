import * as z from "zod";
import { allowedOnGroup, type GroupWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { badRequest, notFound, recordNotFound } from "../kernel/errors";
import { authorizedGroup } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams, validateParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { billableMember, BillableMember, BillableMembership, membership } from "../entities/billable_members";
import * as q from "./queries";
import { ensureSnapshot } from "./services";

/** ee/lib/api/members.rb: the billable members of a top-level group (a daily snapshot). */
export const billableMembersRoutes = router();

const SORTS = ["access_level_asc", "access_level_desc", "last_joined", "name_asc", "name_desc", "oldest_joined", "oldest_sign_in", "recent_sign_in"] as const;
const ListParams = pageParams.extend({ search: p.string().optional(), sort: p.oneOf(...SORTS).optional() });

/** `bad_request!` for a subgroup or a caller who may not administer the group's members. */
async function rootGroup(c: Ctx): Promise<GroupWithAccess> {
  const group = await authorizedGroup(c, null, { signedIn: true });
  if (group.parentId !== null) throw badRequest();
  if (!allowedOnGroup(c.var.actor, "admin_group_member", group)) throw badRequest();
  return group;
}

function userIdParam(c: Ctx): number {
  const { user_id } = validateParams({ user_id: c.req.param("user_id") }, z.object({ user_id: p.int() }));
  return user_id;
}

/** GET /groups/:id/billable_members: the snapshot (made on first read), searched and sorted. */
billableMembersRoutes.get("/groups/:id/billable_members", { params: ListParams, response: [BillableMember] }, async (c) => {
  const params = await readParams(c, ListParams);
  const group = await rootGroup(c);
  const db = c.var.db();
  await ensureSnapshot(db, group.id);
  const page = pageOf(params);
  const list = await q.listBillable(db, group.id, { search: params.search, sort: params.sort ?? "id_asc" }, page);
  paginate(c, page, list.total);
  return present(c, list.rows, billableMember);
});

/**
 * GET /groups/:id/billable_members/:user_id/memberships: the user's direct memberships in the hierarchy.
 * Whether the user is billed is decided on the hierarchy as it is now (as GitLab's `billed_user_ids`),
 * not on the list's daily snapshot.
 */
billableMembersRoutes.get("/groups/:id/billable_members/:user_id/memberships", { params: pageParams, response: [BillableMembership] }, async (c) => {
  const page = pageOf(await readParams(c, pageParams));
  const userId = userIdParam(c);
  const group = await rootGroup(c);
  const db = c.var.db();
  const user = userId > 2147483647 ? null : await q.findUserById(db, userId);
  if (!user) throw recordNotFound();
  if (!(await q.isBilledNow(db, group.id, user.id))) throw notFound("User");
  const list = await q.membershipsInHierarchy(db, group.id, user.id, page);
  paginate(c, page, list.total);
  return present(c, list.rows, membership);
});

/**
 * DELETE /groups/:id/billable_members/:user_id (BillableMembers::DestroyService): the user's direct
 * memberships in the group, its subgroups and their projects go, whether or not the daily snapshot
 * lists them yet; 204. Every refusal is the service's error through `bad_request!`, so 400 with
 * `400 Bad request - <reason>`, a caller who may not manage the members included.
 */
billableMembersRoutes.delete("/groups/:id/billable_members/:user_id", async (c) => {
  const userId = userIdParam(c);
  const group = await authorizedGroup(c, null, { signedIn: true });
  if (group.parentId !== null) throw badRequest("Invalid group provided, must be top-level");
  if (!allowedOnGroup(c.var.actor, "admin_group_member", group)) throw badRequest("User unauthorized to remove member");
  const noMember = badRequest("No member found for the given user_id");
  if (userId > 2147483647) throw noMember;
  const db = c.var.db();
  // Members::DestroyService refuses the group's last owner with a bare AccessDeniedError, whose message
  // is its class name. Differs from GitLab: GitLab may already have removed the user's other
  // memberships by then; here nothing is removed.
  if (await q.isLastOwner(db, group.id, userId)) throw badRequest("Gitlab::Access::AccessDeniedError");
  const removed = await db.transaction((tx) => q.removeFromHierarchy(tx, group.id, userId));
  if (removed === 0) throw noMember;
  return c.body(null, 204);
});
