import type { Database } from "../kernel/db";
import * as q from "./queries";

/**
 * SAML group sync (EE Groups::SyncService after a SAML sign-in), for users provisioned through the users
 * API: a user with a `saml` or `group_saml` identity is a member of every group that links one of their
 * SAML groups, at the highest linked level, and is no member of a linked group that links none of them.
 * Edgeforge has no browser sign-in and so no assertion: a user's SAML groups are the comma-separated
 * `saml_groups` custom attribute (docs/directory_and_imports.md). Groups without SAML links are not touched.
 */
export async function syncSamlUser(db: Database, userId: number): Promise<void> {
  const names = await q.samlGroupsOf(db, userId);
  if (names === null) return;
  const links = await q.allLinks(db);
  const linkedGroups = [...new Set(links.map((l) => l.groupId))];
  const desired = new Map<number, number>();
  for (const link of links) if (names.includes(link.samlGroupName)) desired.set(link.groupId, Math.max(desired.get(link.groupId) ?? 0, link.accessLevel));
  await db.transaction(async (tx) => {
    const current = new Map((await q.membershipsIn(tx, userId, linkedGroups)).map((m) => [m.groupId, m.accessLevel]));
    await q.upsertMemberships(tx, userId, [...desired].filter(([g, level]) => current.get(g) !== level).map(([groupId, accessLevel]) => ({ groupId, accessLevel })));
    await q.removeMemberships(tx, userId, [...current.keys()].filter((g) => !desired.has(g)));
  });
}

/** After a group's links changed: the sync of each SAML user it may concern. */
export async function syncSamlGroup(db: Database, groupId: number): Promise<void> {
  for (const userId of await q.samlUsersFor(db, groupId)) await syncSamlUser(db, userId);
}
