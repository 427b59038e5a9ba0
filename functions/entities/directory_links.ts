import * as z from "zod";
import type { LdapGroupLink as LdapGroupLinkRow, SamlGroupLink as SamlGroupLinkRow } from "../../db/schema";

/** EE::API::Entities::LdapGroup (GitLab 15.4): a directory group found by `GET /ldap/groups`. */
export const LdapGroup = z.object({ cn: z.string() }).meta({ id: "LdapGroup" });
export function ldapGroup(row: { cn: string }): z.output<typeof LdapGroup> {
  return { cn: row.cn };
}

/**
 * EE::API::Entities::LdapGroupLink. `filter` is exposed when the license has `ldap_group_sync_filter`;
 * Edgeforge always exposes it (filters are built and synced here).
 */
export const LdapGroupLink = z
  .object({ cn: z.string().nullable(), group_access: z.int(), provider: z.string(), filter: z.string().nullable() })
  .meta({ id: "LdapGroupLink" });
export function ldapGroupLink(row: LdapGroupLinkRow): z.output<typeof LdapGroupLink> {
  return { cn: row.cn, group_access: row.groupAccess, provider: row.provider, filter: row.filter };
}

/** EE::API::Entities::SamlGroupLink: `saml_group_name` exposed as `name`. */
export const SamlGroupLink = z.object({ name: z.string(), access_level: z.int() }).meta({ id: "SamlGroupLink" });
export function samlGroupLink(row: SamlGroupLinkRow): z.output<typeof SamlGroupLink> {
  return { name: row.samlGroupName, access_level: row.accessLevel };
}
