/**
 * The LDAP servers (GitLab's `gitlab.yml` `ldap.servers`), from the `LDAP_SERVERS` binding: a JSON array
 * of `{ provider, host, port, encryption, bind_dn, password, base, group_base, uid, label }`
 * (docs/directory_and_imports.md). `provider` is GitLab's provider name (`ldapmain` for the server
 * `main`); the first server is the one `GET /ldap/groups` searches.
 */
export type LdapServer = {
  provider: string;
  label: string;
  host: string;
  port: number;
  encryption: "plain" | "simple_tls";
  bindDn: string;
  password: string;
  /** Where users are searched (`base`). */
  base: string;
  /** Where groups are searched (`group_base`); defaults to `base`. */
  groupBase: string;
  /** The user name attribute (`uid`, or `sAMAccountName` on Active Directory). */
  uid: string;
};

const parsed = new Map<string, LdapServer[]>();

/** The configured servers; an empty list when LDAP is off. A malformed value is a deployment error and throws. */
export function ldapServers(env: { LDAP_SERVERS?: string }): LdapServer[] {
  const raw = env.LDAP_SERVERS?.trim();
  if (!raw) return [];
  const cached = parsed.get(raw);
  if (cached) return cached;
  const list = JSON.parse(raw) as unknown;
  if (!Array.isArray(list)) throw new Error("LDAP_SERVERS must be a JSON array");
  const servers = list.map((s: Record<string, unknown>, i): LdapServer => {
    const need = (key: string) => {
      if (typeof s[key] !== "string" || !s[key]) throw new Error(`LDAP_SERVERS[${i}].${key} is required`);
      return s[key] as string;
    };
    const encryption = s.encryption === "simple_tls" ? "simple_tls" : "plain";
    const base = need("base");
    return {
      provider: need("provider"),
      label: typeof s.label === "string" ? s.label : "LDAP",
      host: need("host"),
      port: Number(s.port ?? (encryption === "simple_tls" ? 636 : 389)),
      encryption,
      bindDn: typeof s.bind_dn === "string" ? s.bind_dn : "",
      password: typeof s.password === "string" ? s.password : "",
      base,
      groupBase: typeof s.group_base === "string" && s.group_base ? s.group_base : base,
      uid: typeof s.uid === "string" && s.uid ? s.uid : "uid",
    };
  });
  parsed.set(raw, servers);
  return servers;
}

export function ldapServer(env: { LDAP_SERVERS?: string }, provider: string): LdapServer | null {
  return ldapServers(env).find((s) => s.provider === provider) ?? null;
}

/** A DN compared as GitLab's `Gitlab::Auth::Ldap::DN#to_normalized_s` does for the common cases: case and spaces. */
export function normalizeDn(dn: string): string {
  return dn.trim().replace(/\s*([,=+])\s*/g, "$1").toLowerCase();
}
