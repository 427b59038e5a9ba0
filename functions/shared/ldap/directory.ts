import { withLdap, type LdapConnection } from "./client";
import { ldapServer, normalizeDn, type LdapServer } from "./config";
import { escapeFilterValue } from "./filter";

/**
 * What the directory says, in the terms the API and the group sync need (GitLab's
 * `Gitlab::Auth::Ldap::Adapter`): groups by name under `group_base`, and the member DNs of a group or of a
 * user filter under `base`.
 */
export { ldapServers, ldapServer, normalizeDn, type LdapServer } from "./config";
export { LdapError } from "./client";
export { validFilter } from "./filter";

/** `Adapter#groups("#{search}*", 20)`: group entries whose `cn` starts with `search`. */
export async function searchGroups(server: LdapServer, search: string, limit = 20): Promise<{ cn: string }[]> {
  return withLdap(server, async (ldap) => {
    const entries = await ldap.search({
      base: server.groupBase,
      filter: `(&(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=posixGroup)(objectClass=group))(cn=${escapeFilterValue(search)}*))`,
      attributes: ["cn"],
      sizeLimit: limit,
    });
    return entries.map((e) => ({ cn: e.attributes.cn?.[0] ?? "" })).filter((g) => g.cn !== "").slice(0, limit);
  });
}

/** A link's member DNs, normalised: a group's `member`/`uniqueMember` (and `memberUid` resolved through `uid`), or the entries a filter finds. */
export type LinkSource = { cn: string | null; filter: string | null };

export async function memberDns(env: { LDAP_SERVERS?: string }, provider: string, links: LinkSource[]): Promise<Map<LinkSource, Set<string>>> {
  const server = ldapServer(env, provider);
  if (!server) return new Map(links.map((l) => [l, new Set<string>()]));
  return withLdap(server, async (ldap) => {
    const out = new Map<LinkSource, Set<string>>();
    for (const link of links) out.set(link, new Set(link.cn !== null ? await groupMembers(ldap, server, link.cn) : await filterMembers(ldap, server, link.filter ?? "")));
    return out;
  });
}

async function groupMembers(ldap: LdapConnection, server: LdapServer, cn: string): Promise<string[]> {
  const [group] = await ldap.search({ base: server.groupBase, filter: `(cn=${escapeFilterValue(cn)})`, attributes: ["member", "uniqueMember", "memberUid"], sizeLimit: 1 });
  if (!group) return [];
  const dns = [...(group.attributes.member ?? []), ...(group.attributes.uniquemember ?? [])].map(normalizeDn);
  const uids = group.attributes.memberuid ?? [];
  if (uids.length > 0) {
    // posixGroup: members by user name; their DNs come from the users' entries.
    const filter = `(|${uids.map((u) => `(${server.uid}=${escapeFilterValue(u)})`).join("")})`;
    for (const entry of await ldap.search({ base: server.base, filter, attributes: ["1.1"] })) dns.push(normalizeDn(entry.dn));
  }
  return dns;
}

async function filterMembers(ldap: LdapConnection, server: LdapServer, filter: string): Promise<string[]> {
  const entries = await ldap.search({ base: server.base, filter, attributes: ["1.1"] });
  return entries.map((e) => normalizeDn(e.dn));
}
