import { and, eq, inArray, sql } from "drizzle-orm";
import { badges, epics, groupTransferJobs, labelLinks, labels, members, milestones, namespaces, users, type GroupTransferJob, type Namespace, type User } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { restoreGroupIidsSql } from "../shared/issuables/iids";

export async function createImportJob(db: Executor, job: { groupId: number; userId: number; r2Key: string; correlationId: string }): Promise<GroupTransferJob> {
  const [row] = await db.insert(groupTransferJobs).values({ kind: "import", status: "scheduled", ...job }).returning();
  return row;
}

export async function groupById(db: Executor, id: number): Promise<Namespace | null> {
  const [row] = await db.select().from(namespaces).where(and(eq(namespaces.id, id), eq(namespaces.type, "Group")));
  return row ?? null;
}

/** A subgroup an earlier attempt of the same import made (a lease takeover starts over). */
export async function childGroup(db: Executor, parentId: number, path: string): Promise<Namespace | null> {
  const [row] = await db.select().from(namespaces).where(and(eq(namespaces.parentId, parentId), sql`lower(${namespaces.path}) = lower(${path})`));
  return row ?? null;
}

export async function setDescription(db: Executor, groupId: number, description: string) {
  await db.update(namespaces).set({ description, updatedAt: sql`now()` }).where(eq(namespaces.id, groupId));
}

/** Users whose primary or public email is one of these (MembersMapper's `User.by_any_email`). */
export async function usersByEmail(db: Executor, emails: string[]): Promise<{ id: number; email: string; publicEmail: string | null }[]> {
  if (emails.length === 0) return [];
  const list = sql.param(emails.map((e) => e.toLowerCase()));
  return db
    .select({ id: users.id, email: users.email, publicEmail: users.publicEmail })
    .from(users)
    .where(sql`lower(${users.email}) = ANY(${list}::text[]) OR lower(${users.publicEmail}) = ANY(${list}::text[])`);
}

export type GroupRelations = {
  labels: { title: string; color: string; description: string | null }[];
  milestones: { iid: number; title: string; description: string | null; state: string; dueDate: string | null; startDate: string | null }[];
  badges: { name: string | null; linkUrl: string; imageUrl: string }[];
  members: { userId: number; accessLevel: number; expiresAt: string | null; createdById: number }[];
  epics: { iid: number; authorId: number; title: string; description: string | null; state: string; confidential: boolean; startDate: string | null; dueDate: string | null; startDateIsFixed: boolean; dueDateIsFixed: boolean; closedAt: Date | null; parentIid: number | null; labelTitles: string[] }[];
};

/**
 * One group's relations, in one transaction (the caller's): rows an earlier attempt wrote are kept
 * (labels by title, milestones and epics by iid, members by user, badges by their URLs), so a retried
 * import does not write them twice. Epic labels missing from the group are created as GitLab's
 * importer does; the iid counters move past the imported iids.
 */
export async function insertGroupRelations(db: Executor, groupId: number, r: GroupRelations): Promise<void> {
  if (r.labels.length) await db.insert(labels).values(r.labels.map((l) => ({ ...l, groupId }))).onConflictDoNothing();
  if (r.milestones.length) await db.insert(milestones).values(r.milestones.map((m) => ({ ...m, groupId }))).onConflictDoNothing();
  if (r.members.length) await db.insert(members).values(r.members.map((m) => ({ ...m, sourceType: "Namespace", sourceId: groupId }))).onConflictDoNothing();
  if (r.badges.length) {
    const existing = await db.select({ linkUrl: badges.linkUrl, imageUrl: badges.imageUrl }).from(badges).where(eq(badges.groupId, groupId));
    const seen = new Set(existing.map((b) => `${b.linkUrl}\n${b.imageUrl}`));
    const fresh = r.badges.filter((b) => !seen.has(`${b.linkUrl}\n${b.imageUrl}`));
    if (fresh.length) await db.insert(badges).values(fresh.map((b) => ({ ...b, type: "GroupBadge", groupId })));
  }
  if (r.epics.length) {
    const rows = r.epics.map(({ parentIid: _p, labelTitles: _l, ...e }) => ({ ...e, groupId, closedById: e.state === "closed" ? e.authorId : null }));
    await db.insert(epics).values(rows).onConflictDoNothing();
    const stored = await db.select({ id: epics.id, iid: epics.iid }).from(epics).where(and(eq(epics.groupId, groupId), inArray(epics.iid, r.epics.map((e) => e.iid))));
    const idOf = new Map(stored.map((e) => [e.iid, e.id]));
    const pairs = r.epics.filter((e) => e.parentIid !== null && idOf.has(e.parentIid)).map((e) => sql`(${idOf.get(e.iid)!}::int, ${idOf.get(e.parentIid!)!}::int)`);
    if (pairs.length) await db.execute(sql`UPDATE epics SET parent_id = v.parent_id FROM (VALUES ${sql.join(pairs, sql`, `)}) AS v(id, parent_id) WHERE epics.id = v.id`);
    const titles = [...new Set(r.epics.flatMap((e) => e.labelTitles))];
    if (titles.length) {
      await db.insert(labels).values(titles.map((title) => ({ title, color: r.labels.find((l) => l.title === title)?.color ?? "#6699cc", groupId }))).onConflictDoNothing();
      const found = await db.select({ id: labels.id, title: labels.title }).from(labels).where(and(eq(labels.groupId, groupId), inArray(labels.title, titles)));
      const labelOf = new Map(found.map((l) => [l.title, l.id]));
      const epicIds = [...idOf.values()];
      await db.delete(labelLinks).where(and(eq(labelLinks.targetType, "Epic"), inArray(labelLinks.targetId, epicIds)));
      const links = r.epics.flatMap((e) => [...new Set(e.labelTitles)].map((t) => ({ labelId: labelOf.get(t)!, targetType: "Epic", targetId: idOf.get(e.iid)! })));
      if (links.length) await db.insert(labelLinks).values(links);
    }
  }
  await db.execute(restoreGroupIidsSql(groupId));
}

export async function importer(db: Executor, id: number): Promise<User | null> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row ?? null;
}
