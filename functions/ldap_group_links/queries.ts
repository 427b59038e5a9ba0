import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { identities, ldapGroupLinks, members, type LdapGroupLink } from "../../db/schema";
import type { Executor } from "../kernel/db";

/** Every statement of LDAP group links and their sync, scoped by the group. */
export type { LdapGroupLink };

export async function linksOf(db: Executor, groupId: number): Promise<LdapGroupLink[]> {
  return db.select().from(ldapGroupLinks).where(eq(ldapGroupLinks.groupId, groupId)).orderBy(asc(ldapGroupLinks.id));
}

/** The link with this `cn` (any provider when `provider` is null) or `filter` of `provider`. */
export async function findLink(db: Executor, groupId: number, key: { cn?: string; filter?: string; provider?: string }): Promise<LdapGroupLink | null> {
  const conditions = [eq(ldapGroupLinks.groupId, groupId)];
  if (key.cn !== undefined) conditions.push(eq(ldapGroupLinks.cn, key.cn));
  if (key.filter !== undefined) conditions.push(eq(ldapGroupLinks.filter, key.filter));
  if (key.provider !== undefined) conditions.push(eq(ldapGroupLinks.provider, key.provider));
  const [row] = await db.select().from(ldapGroupLinks).where(and(...conditions)).orderBy(asc(ldapGroupLinks.id)).limit(1);
  return row ?? null;
}

/** Inserts the link; null when the unique index already holds one with this cn (or filter) for the provider. */
export async function insertLink(db: Executor, link: { groupId: number; cn: string | null; filter: string | null; groupAccess: number; provider: string }): Promise<LdapGroupLink | null> {
  const [row] = await db.insert(ldapGroupLinks).values(link).onConflictDoNothing().returning();
  return row ?? null;
}

export async function deleteLink(db: Executor, id: number): Promise<void> {
  await db.delete(ldapGroupLinks).where(eq(ldapGroupLinks.id, id));
}

/** The groups that have links (the cron's work list). */
export async function linkedGroupIds(db: Executor): Promise<number[]> {
  const rows = await db.selectDistinct({ groupId: ldapGroupLinks.groupId }).from(ldapGroupLinks).orderBy(asc(ldapGroupLinks.groupId));
  return rows.map((r) => r.groupId);
}

/**
 * Users whose identity of `provider` is one of `dns` (normalised DNs): GitLab matches a directory entry to
 * a user through `identities.extern_uid`, the entry's DN. Compared lower-cased and without the spaces
 * around `,`, `=` and `+`, as `normalizeDn` writes them.
 */
export async function usersByDn(db: Executor, provider: string, dns: string[]): Promise<Map<string, number>> {
  if (dns.length === 0) return new Map();
  const normalized = sql<string>`lower(regexp_replace(trim(${identities.externUid}), '\\s*([,=+])\\s*', '\\1', 'g'))`;
  const rows = await db
    .select({ userId: identities.userId, dn: normalized })
    .from(identities)
    .where(and(eq(identities.provider, provider), inArray(normalized, dns)));
  return new Map(rows.map((r) => [r.dn, r.userId]));
}

export type GroupMember = { userId: number; accessLevel: number; ldap: boolean };

export async function groupMembers(db: Executor, groupId: number): Promise<GroupMember[]> {
  return db
    .select({ userId: members.userId, accessLevel: members.accessLevel, ldap: members.ldap })
    .from(members)
    .where(and(eq(members.sourceType, "Namespace"), eq(members.sourceId, groupId)));
}

/** The sync's write: memberships created or set to the directory's level (marked `ldap`), and the LDAP ones no longer found removed. */
export async function applyMemberships(db: Executor, groupId: number, set: { userId: number; accessLevel: number }[], remove: number[]): Promise<void> {
  if (set.length > 0)
    await db
      .insert(members)
      .values(set.map((m) => ({ sourceType: "Namespace", sourceId: groupId, userId: m.userId, accessLevel: m.accessLevel, ldap: true })))
      .onConflictDoUpdate({
        target: [members.sourceType, members.sourceId, members.userId],
        set: { accessLevel: sql`excluded.access_level`, ldap: true, updatedAt: sql`now()` },
      });
  if (remove.length > 0)
    await db
      .delete(members)
      .where(and(eq(members.sourceType, "Namespace"), eq(members.sourceId, groupId), eq(members.ldap, true), inArray(members.userId, remove)));
}
