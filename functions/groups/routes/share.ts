import { GroupDetail } from "../../entities/groups";
import * as z from "zod";
import { allowedOnGroup } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import { apiError, conflict, notFound } from "../../kernel/errors";
import { findGroup, authorizedGroup } from "../../kernel/lookup";
import { p, readParamsWithPath } from "../../kernel/params";
import { router } from "../../kernel/router";
import * as q from "../queries";
import { presentDetail } from "./group";

/**
 * Sharing a group with a group (lib/api/groups.rb, app/services/groups/group_links/create_service.rb):
 * group_group_links. The members of the shared-with group (and of its ancestors) reach the shared
 * group, its subgroups and their projects at the lower of their own level and `group_access`
 * (kernel/visibility.ts).
 */
export const shareRoutes = router();

/** `group_access` takes Gitlab::Access.all_values (guest to owner) in 15.4. */
const ShareGroup = z.object({
  group_id: p.int(),
  group_access: p.intOneOf(10, 20, 30, 40, 50),
  expires_at: p.date().optional(),
});

/** POST /groups/:id/share (lib/api/groups.rb): GroupDetail of the shared group, 201. */
shareRoutes.post("/groups/:id/share", { params: ShareGroup, response: GroupDetail, errors: [409] }, async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, ShareGroup);
  const shared = await findGroup(c, c.req.param("id"));
  // `find_group!(params[:group_id])`: a group the caller may not read is 404 Group Not Found.
  const sharedWith = await findGroup(c, String(params.group_id));
  // CreateService: `admin_group_member` on the shared group (and `read_group` on the other, checked above).
  if (!allowedOnGroup(c.var.actor, "admin_group_member", shared)) throw apiError("Not Found", 404);
  const link = await q.insertGroupGroupLink(c.var.db(), {
    sharedGroupId: shared.id,
    sharedWithGroupId: sharedWith.id,
    groupAccess: params.group_access,
    expiresAt: params.expires_at ?? null,
  });
  // GroupGroupLink's uniqueness validation, `error(link.errors.full_messages.to_sentence, 409)`.
  if (!link) throw conflict("Shared group The group has already been shared with this group");
  return presentDetail(c, shared, { withProjects: false, withCustomAttributes: false }, 201);
});

const UnshareGroup = z.object({ group_id: p.int() });

/**
 * DELETE /groups/:id/share/:group_id (lib/api/groups.rb): 204, or `404 Group Link Not Found`.
 * Deliberate difference from GitLab: 15.4's endpoint answers 204 to anyone who can read the group and
 * lets Groups::GroupLinks::DestroyService decide; here a caller without `admin_group_member` on the
 * shared group gets 403 and nothing is deleted.
 */
shareRoutes.delete("/groups/:id/share/:group_id", { params: UnshareGroup }, async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, UnshareGroup);
  const shared = await authorizedGroup(c, "admin_group_member");
  if (!(await q.deleteGroupGroupLink(c.var.db(), shared.id, params.group_id))) throw notFound("Group Link");
  return c.body(null, 204);
});

