import * as z from "zod";
import { PROJECT_ACCESS_LEVELS } from "../kernel/access";
import type { Ctx } from "../kernel/env";
import { requireUser } from "../kernel/auth";
import { withDb } from "../kernel/db";
import { acceptedBody, apiError, notFound } from "../kernel/errors";
import { authorizedGroup } from "../kernel/lookup";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { LdapGroupLink, ldapGroupLink } from "../entities/directory_links";
import { ldapServers, validFilter } from "../shared/ldap/directory";
import * as q from "./queries";
import { syncGroup } from "./services";

/**
 * LDAP group links (ee/lib/api/ldap_group_links.rb, GitLab 15.4) and the on-demand sync
 * (`POST /groups/:id/ldap_sync`, ee/lib/ee/api/groups.rb). Owners of the group (`admin_group`) manage them;
 * `before { authenticate! }`. The sync itself is services.ts; the cron runs it hourly.
 */
export const ldapGroupLinksRoutes = router();

const CreateLink = z.object({
  cn: p.string().optional().describe("The CN of an LDAP group"),
  filter: p.string().optional().describe("The LDAP filter for the group"),
  group_access: p.intOneOf(...PROJECT_ACCESS_LEVELS).describe("Access level for members of the LDAP group"),
  provider: p.string().describe("LDAP provider for the LDAP group link"),
});
const DeleteLink = z.object({
  cn: p.string().optional().describe("The CN of an LDAP group"),
  filter: p.string().optional().describe("The LDAP filter for the group"),
  provider: p.string().describe("LDAP provider for the LDAP group link"),
});
const CN_OR_FILTER = [{ exactlyOneOf: ["cn", "filter"] }];

const linkNotFound = () => apiError("Linked LDAP group not found", 404);

/** GET /groups/:id/ldap_group_links: 404 `No linked LDAP groups found` when there are none, as GitLab. */
ldapGroupLinksRoutes.get("/groups/:id/ldap_group_links", { response: [LdapGroupLink], paginated: false }, async (c) => {
  const group = await authorizedGroup(c, "admin_group", { signedIn: true });
  const links = await q.linksOf(c.var.db(), group.id);
  if (links.length === 0) throw apiError("No linked LDAP groups found", 404);
  return present(c, links, ldapGroupLink);
});

/** POST /groups/:id/ldap_group_links: a duplicate or an invalid filter is 409 with the model's first message. */
ldapGroupLinksRoutes.post("/groups/:id/ldap_group_links", { params: CreateLink, response: LdapGroupLink, errors: [409] }, async (c) => {
  // Grape: `authenticate!`, then the parameters, then find_group and authorize.
  requireUser(c);
  const params = await readParams(c, CreateLink, CN_OR_FILTER);
  const group = await authorizedGroup(c, "admin_group");
  if (params.cn !== undefined && params.cn.trim() === "") throw apiError("Cn can't be blank", 409);
  if (params.filter !== undefined && !validFilter(params.filter)) throw apiError("Filter must be a valid filter", 409);
  const link = await q.insertLink(c.var.db(), {
    groupId: group.id,
    cn: params.cn ?? null,
    filter: params.filter ?? null,
    groupAccess: params.group_access,
    provider: params.provider,
  });
  if (!link) throw apiError(params.cn !== undefined ? "Cn has already been taken" : "Filter has already been taken", 409);
  return present(c, link, ldapGroupLink, {}, 201);
});

async function destroy(c: Ctx, key: { cn?: string; filter?: string; provider?: string }) {
  const group = await authorizedGroup(c, "admin_group", { signedIn: true });
  const link = await q.findLink(c.var.db(), group.id, key);
  if (!link) throw linkNotFound();
  await q.deleteLink(c.var.db(), link.id);
  return c.body(null, 204);
}

/** DELETE /groups/:id/ldap_group_links (by `cn` or `filter`, and `provider`: python-gitlab's form). */
ldapGroupLinksRoutes.delete("/groups/:id/ldap_group_links", { params: DeleteLink }, async (c) => {
  requireUser(c);
  const params = await readParams(c, DeleteLink, CN_OR_FILTER);
  return destroy(c, { cn: params.cn, filter: params.filter, provider: params.provider });
});

/** DELETE /groups/:id/ldap_group_links/:cn (the first link with that cn, whatever its provider). */
ldapGroupLinksRoutes.delete("/groups/:id/ldap_group_links/:cn", async (c) => destroy(c, { cn: c.req.param("cn") }));

/** DELETE /groups/:id/ldap_group_links/:provider/:cn */
ldapGroupLinksRoutes.delete("/groups/:id/ldap_group_links/:provider/:cn", async (c) =>
  destroy(c, { cn: c.req.param("cn"), provider: c.req.param("provider") }),
);

/**
 * POST /groups/:id/ldap_sync: 202; the sync runs after the answer (GitLab queues LdapGroupSyncWorker).
 * 404 when no LDAP server is configured (`Gitlab::Auth::Ldap::Config.group_sync_enabled?`).
 */
ldapGroupLinksRoutes.post("/groups/:id/ldap_sync", { status: 202 }, async (c) => {
  if (ldapServers(c.env).length === 0) throw notFound();
  const group = await authorizedGroup(c, "admin_group", { signedIn: true });
  const env = c.env;
  c.executionCtx.waitUntil(
    withDb(env, (db) => syncGroup(db, env, group.id)).catch((error: unknown) =>
      console.error(`ldap sync: group ${group.id} failed: ${error instanceof Error ? error.message : String(error)}`),
    ),
  );
  return c.json(acceptedBody, 202);
});
