import * as z from "zod";
import { requireUser } from "../../kernel/auth";
import { apiError } from "../../kernel/errors";
import { authorizedProject } from "../../kernel/lookup";
import { p, rawParams, validateParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { projectGroupLink, ProjectGroupLinkEntity } from "../../entities/projects";
import * as s from "../services";

export const shareRoutes = router();

/** `group_access` takes Gitlab::Access.values (guest to maintainer) in 15.4. */
const ShareProject = z.object({
  group_id: p.int().describe("The ID of a group"),
  group_access: p.intOneOf(10, 20, 30, 40).describe("The group access level"),
  expires_at: p.date().optional().describe("Share expiration date"),
});

/** POST /projects/:id/share (lib/api/projects.rb, app/services/projects/group_links/create_service.rb) */
shareRoutes.post("/projects/:id/share", { params: ShareProject, response: ProjectGroupLinkEntity, errors: [409] }, async (c) => {
  const params = validateParams(await rawParams(c), ShareProject);
  const found = await authorizedProject(c, "admin_project");
  // Project#allowed_to_share_with_group?
  if (found.namespace.shareWithGroupLock) throw apiError("The project sharing with group is disabled", 400);
  const link = await s.shareProject(c.var.db(), requireUser(c).user, found, {
    groupId: params.group_id,
    groupAccess: params.group_access,
    expiresAt: params.expires_at ?? null,
  });
  return present(c, link, projectGroupLink, {}, 201);
});

const UnshareProject = z.object({ group_id: p.int().describe("The ID of the group") });

/** DELETE /projects/:id/share/:group_id (lib/api/projects.rb): 204, or `404 Group Link Not Found`. */
shareRoutes.delete("/projects/:id/share/:group_id", { params: UnshareProject }, async (c) => {
  const params = validateParams({ group_id: c.req.param("group_id") }, UnshareProject);
  const found = await authorizedProject(c, "admin_project");
  await s.unshareProject(c.var.db(), found.id, params.group_id);
  return c.body(null, 204);
});
