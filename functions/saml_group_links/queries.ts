import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import { identities, members, samlGroupLinks, userCustomAttributes, type SamlGroupLink } from "../../db/schema";
import type { Executor } from "../kernel/db";

/** Every statement of SAML group links and of the memberships they give. */
export type { SamlGroupLink };

/** The identity providers that mean "signed in through SAML": the instance's `saml` and group SAML's `group_saml`. */
export const SAML_PROVIDERS = ["saml", "group_saml"];
/** The user custom attribute that holds a user's SAML groups (the stand-in for the assertion's `Groups`). */
export const SAML_GROUPS_ATTRIBUTE = "saml_groups";

export async function linksOf(db: Executor, groupId: number): Promise<SamlGroupLink[]> {
  return db.select().from(samlGroupLinks).where(eq(samlGroupLinks.groupId, groupId)).orderBy(asc(samlGroupLinks.id));
}

export async function findLink(db: Executor, groupId: number, name: string): Promise<SamlGroupLink | null> {
  const [row] = await db.select().from(samlGroupLinks).where(and(eq(samlGroupLinks.groupId, groupId), eq(samlGroupLinks.samlGroupName, name)));
  return row ?? null;
}

/** Null when the group already links this name (the unique index). */
export async function insertLink(db: Executor, link: { groupId: number; samlGroupName: string; accessLevel: number }): Promise<SamlGroupLink | null> {
  const [row] = await db.insert(samlGroupLinks).values(link).onConflictDoNothing().returning();
  return row ?? null;
}

export async function deleteLink(db: Executor, id: number): Promise<void> {
  await db.delete(samlGroupLinks).where(eq(samlGroupLinks.id, id));
}

/** The user's SAML groups, or null when the user has no SAML identity (then links do not apply). */
export async function samlGroupsOf(db: Executor, userId: number): Promise<string[] | null> {
  const [row] = await db
    .select({ value: userCustomAttributes.value })
    .from(identities)
    .leftJoin(userCustomAttributes, and(eq(userCustomAttributes.userId, identities.userId), eq(userCustomAttributes.key, SAML_GROUPS_ATTRIBUTE)))
    .where(and(eq(identities.userId, userId), inArray(identities.provider, SAML_PROVIDERS)))
    .limit(1);
  if (!row) return null;
  return (row.value ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/** Every link of every group (the few rows SAML groups are matched against). */
export async function allLinks(db: Executor): Promise<SamlGroupLink[]> {
  return db.select().from(samlGroupLinks);
}

/** The user's direct memberships of `groupIds`. */
export async function membershipsIn(db: Executor, userId: number, groupIds: number[]): Promise<{ groupId: number; accessLevel: number }[]> {
  if (groupIds.length === 0) return [];
  return db
    .select({ groupId: members.sourceId, accessLevel: members.accessLevel })
    .from(members)
    .where(and(eq(members.userId, userId), eq(members.sourceType, "Namespace"), inArray(members.sourceId, groupIds)));
}

/** Users with a SAML identity who are members of the group or have SAML groups (those a link change may concern). */
export async function samlUsersFor(db: Executor, groupId: number): Promise<number[]> {
  const rows = await db
    .selectDistinct({ userId: identities.userId })
    .from(identities)
    .where(
      and(
        inArray(identities.provider, SAML_PROVIDERS),
        or(
          sql`exists (select 1 from ${members} where ${members.userId} = ${identities.userId} and ${members.sourceType} = 'Namespace' and ${members.sourceId} = ${groupId})`,
          sql`exists (select 1 from ${userCustomAttributes} where ${userCustomAttributes.userId} = ${identities.userId} and ${userCustomAttributes.key} = ${SAML_GROUPS_ATTRIBUTE})`,
        ),
      ),
    );
  return rows.map((r) => r.userId);
}

export async function upsertMemberships(db: Executor, userId: number, set: { groupId: number; accessLevel: number }[]): Promise<void> {
  if (set.length === 0) return;
  await db
    .insert(members)
    .values(set.map((m) => ({ sourceType: "Namespace", sourceId: m.groupId, userId, accessLevel: m.accessLevel })))
    .onConflictDoUpdate({ target: [members.sourceType, members.sourceId, members.userId], set: { accessLevel: sql`excluded.access_level`, updatedAt: sql`now()` } });
}

export async function removeMemberships(db: Executor, userId: number, groupIds: number[]): Promise<void> {
  if (groupIds.length === 0) return;
  await db.delete(members).where(and(eq(members.userId, userId), eq(members.sourceType, "Namespace"), inArray(members.sourceId, groupIds)));
}
