import * as z from "zod";
import { allowedOnGroup } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, unauthorized } from "../kernel/errors";
import { findGroup } from "../kernel/lookup";
import { PROJECT_ACCESS_LEVELS } from "../kernel/access";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { SamlGroupLink, samlGroupLink } from "../entities/directory_links";
import * as q from "./queries";
import { syncSamlGroup } from "./services";

/**
 * SAML group links (ee/lib/api/saml_group_links.rb, GitLab 15.4): list, create, show and delete, for
 * owners of the group (`admin_saml_group_links`; anyone else who can read the group gets GitLab's
 * `unauthorized!`, 401). Creating or deleting a link re-runs the SAML group sync of the SAML users it
 * concerns (services.ts).
 *
 * Differs from GitLab: GitLab also needs SAML SSO configured on the top-level group (Premium); Edgeforge
 * has no SAML sign-in, so links can be made on any group.
 */
export const samlGroupLinksRoutes = router();

const CreateLink = z.object({
  saml_group_name: p.string().describe("The name of a SAML group"),
  access_level: p.intOneOf(...PROJECT_ACCESS_LEVELS).describe("Level of permissions for the linked SAML group"),
});

const linkNotFound = () => apiError("Linked SAML group link not found", 404);

/** `find_group` then `unauthorized! unless can?(current_user, :admin_saml_group_links, group)`. */
async function ownedGroup(c: Ctx) {
  requireUser(c);
  const group = await findGroup(c, c.req.param("id")!);
  if (!allowedOnGroup(c.var.actor, "admin_group", group)) throw unauthorized();
  return group;
}

/** GET /groups/:id/saml_group_links */
samlGroupLinksRoutes.get("/groups/:id/saml_group_links", { response: [SamlGroupLink], paginated: false }, async (c) => {
  const group = await ownedGroup(c);
  return present(c, await q.linksOf(c.var.db(), group.id), samlGroupLink);
});

/** POST /groups/:id/saml_group_links: 201; a name the group already links is 400. */
samlGroupLinksRoutes.post("/groups/:id/saml_group_links", { params: CreateLink, response: SamlGroupLink }, async (c) => {
  requireUser(c);
  const params = await readParams(c, CreateLink);
  const group = await ownedGroup(c);
  if (params.saml_group_name.trim() === "") throw apiError("Saml group name can't be blank", 400);
  const link = await q.insertLink(c.var.db(), { groupId: group.id, samlGroupName: params.saml_group_name, accessLevel: params.access_level });
  if (!link) throw apiError("Saml group name has already been taken", 400);
  await syncSamlGroup(c.var.db(), group.id);
  return present(c, link, samlGroupLink, {}, 201);
});

/** GET /groups/:id/saml_group_links/:saml_group_name */
samlGroupLinksRoutes.get("/groups/:id/saml_group_links/:saml_group_name", { response: SamlGroupLink }, async (c) => {
  const group = await ownedGroup(c);
  const link = await q.findLink(c.var.db(), group.id, c.req.param("saml_group_name"));
  if (!link) throw linkNotFound();
  return present(c, link, samlGroupLink);
});

/** DELETE /groups/:id/saml_group_links/:saml_group_name: 204. */
samlGroupLinksRoutes.delete("/groups/:id/saml_group_links/:saml_group_name", async (c) => {
  const group = await ownedGroup(c);
  const link = await q.findLink(c.var.db(), group.id, c.req.param("saml_group_name"));
  if (!link) throw linkNotFound();
  await q.deleteLink(c.var.db(), link.id);
  await syncSamlGroup(c.var.db(), group.id);
  return c.body(null, 204);
});
