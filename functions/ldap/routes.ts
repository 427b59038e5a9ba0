import * as z from "zod";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, forbidden, notFound } from "../kernel/errors";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { loadSettings } from "../shared/settings/load";
import { LdapGroup, ldapGroup } from "../entities/directory_links";
import { LdapError, ldapServer, ldapServers, searchGroups, type LdapServer } from "../shared/ldap/directory";
import * as q from "./queries";

/**
 * The directory's groups (ee/lib/api/ldap.rb, GitLab 15.4): at most 20 whose `cn` starts with `search`,
 * under the server's `group_base`. Administrators, and group owners while `allow_group_owners_to_manage_ldap`
 * is on (`authenticated_with_ldap_admin_access!`).
 *
 * Differs from GitLab: with no LDAP server configured, or an unknown provider, the answer is 404 (GitLab
 * fails with 500); a directory that cannot be reached is 503 `{"message":"LDAP server unavailable: …"}`.
 */
export const ldapRoutes = router();

const SearchGroups = z.object({ search: p.string().default("").describe("Search for a specific LDAP group") });

async function ldapAdminAccess(c: Ctx) {
  const actor = requireUser(c);
  if (actor.isAdmin) return;
  const settings = await loadSettings(c.var.db());
  if (!settings.allow_group_owners_to_manage_ldap || !(await q.ownsAGroup(c.var.db(), actor.user.id))) throw forbidden();
}

async function listGroups(c: Ctx, server: LdapServer | null | undefined, search: string) {
  if (!server) throw notFound();
  try {
    return present(c, await searchGroups(server, search, 20), ldapGroup);
  } catch (error) {
    if (error instanceof LdapError) throw apiError(`LDAP server unavailable: ${error.message}`, 503);
    throw error;
  }
}

/** GET /ldap/groups (the first configured server) */
ldapRoutes.get("/ldap/groups", { params: SearchGroups, response: [LdapGroup], paginated: false, errors: [503] }, async (c) => {
  await ldapAdminAccess(c);
  const params = await readParams(c, SearchGroups);
  return listGroups(c, ldapServers(c.env)[0], params.search);
});

/** GET /ldap/:provider/groups */
ldapRoutes.get("/ldap/:provider/groups", { params: SearchGroups, response: [LdapGroup], paginated: false, errors: [503] }, async (c) => {
  await ldapAdminAccess(c);
  const params = await readParams(c, SearchGroups);
  return listGroups(c, ldapServer(c.env, c.req.param("provider")), params.search);
});
