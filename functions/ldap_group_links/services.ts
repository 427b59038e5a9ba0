import { withDb, type Database } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { ldapServer, memberDns, type LinkSource } from "../shared/ldap/directory";
import * as q from "./queries";

/**
 * The LDAP group sync (EE::Gitlab::Auth::Ldap::Sync::Group): each link's members are read from the
 * directory, matched to users by their identity's DN, and given the highest access of the links they
 * are in. Memberships the sync made or updated (`members.ldap`) whose user is no longer in any link are
 * removed; a membership made by hand is touched only while its user is in a link (it then takes the
 * directory's level and becomes the sync's).
 *
 * Differs from GitLab: a hand-made membership of a linked user is set to the link's level even when it
 * was higher (GitLab keeps an `override`, which Edgeforge does not have); the last owner is not protected.
 * A provider whose server is not configured is skipped, so removing `LDAP_SERVERS` removes no one.
 */
export type SyncResult = { added: number; updated: number; removed: number };

export async function syncGroup(db: Database, env: Bindings, groupId: number): Promise<SyncResult> {
  const links = await q.linksOf(db, groupId);
  const desired = new Map<number, number>();
  const providers = [...new Set(links.map((l) => l.provider))].filter((p) => ldapServer(env, p) !== null);
  if (providers.length === 0) return { added: 0, updated: 0, removed: 0 };
  for (const provider of providers) {
    const own = links.filter((l) => l.provider === provider);
    const sources = own.map((l): LinkSource => ({ cn: l.cn, filter: l.filter }));
    const found = await memberDns(env, provider, sources);
    const users = await q.usersByDn(db, provider, [...new Set([...found.values()].flatMap((s) => [...s]))]);
    own.forEach((link, i) => {
      for (const dn of found.get(sources[i]) ?? []) {
        const userId = users.get(dn);
        if (userId !== undefined) desired.set(userId, Math.max(desired.get(userId) ?? 0, link.groupAccess));
      }
    });
  }
  return db.transaction(async (tx) => {
    const current = new Map((await q.groupMembers(tx, groupId)).map((m) => [m.userId, m]));
    const set = [...desired].filter(([userId, level]) => current.get(userId)?.accessLevel !== level || !current.get(userId)?.ldap).map(([userId, accessLevel]) => ({ userId, accessLevel }));
    const remove = [...current.values()].filter((m) => m.ldap && !desired.has(m.userId)).map((m) => m.userId);
    await q.applyMemberships(tx, groupId, set, remove);
    const added = set.filter((m) => !current.has(m.userId)).length;
    return { added, updated: set.length - added, removed: remove.length };
  });
}

/** The hourly sync of every linked group (LdapGroupSyncWorker's schedule); one group's failure does not stop the others. */
export async function syncAllGroups(env: Bindings): Promise<void> {
  if (!env.LDAP_SERVERS) return;
  const groupIds = await withDb(env, (db) => q.linkedGroupIds(db));
  for (const groupId of groupIds) {
    try {
      await withDb(env, (db) => syncGroup(db, env, groupId));
    } catch (error) {
      console.error(`ldap sync: group ${groupId} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
