import { and, arrayContains, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { badges, epics, groupTransferJobs, labelLinks, labels, members, milestones, namespaces, users, type GroupTransferJob } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { GroupExportRelations } from "../entities/group_export";

export async function createExportJob(db: Executor, job: { groupId: number; userId: number; correlationId: string }): Promise<GroupTransferJob> {
  const [row] = await db.insert(groupTransferJobs).values({ kind: "export", status: "queued", ...job }).returning();
  return row;
}

/** The group's newest finished export (the archive `export/download` serves). */
export async function finishedExport(db: Executor, groupId: number): Promise<GroupTransferJob | null> {
  const [row] = await db
    .select()
    .from(groupTransferJobs)
    .where(and(eq(groupTransferJobs.groupId, groupId), eq(groupTransferJobs.kind, "export"), eq(groupTransferJobs.status, "finished")))
    .orderBy(desc(groupTransferJobs.id))
    .limit(1);
  return row ?? null;
}

/** The group and its descendants (parents first), with their relations: one statement a relation. */
export async function groupExportRelations(db: Executor, groupId: number): Promise<GroupExportRelations | null> {
  const groups = await db
    .select()
    .from(namespaces)
    .where(and(eq(namespaces.type, "Group"), arrayContains(namespaces.traversalIds, [groupId])))
    .orderBy(sql`cardinality(${namespaces.traversalIds})`, asc(namespaces.id));
  if (!groups.some((g) => g.id === groupId)) return null;
  const ids = groups.map((g) => g.id);
  const [labelRows, milestoneRows, badgeRows, memberRows, epicRows, epicLabelRows] = await Promise.all([
    db.select().from(labels).where(inArray(labels.groupId, ids)).orderBy(asc(labels.id)),
    db.select().from(milestones).where(inArray(milestones.groupId, ids)).orderBy(asc(milestones.id)),
    db.select().from(badges).where(inArray(badges.groupId, ids)).orderBy(asc(badges.id)),
    db
      .select({ member: members, user: { id: users.id, username: users.username, publicEmail: users.publicEmail } })
      .from(members)
      .innerJoin(users, eq(users.id, members.userId))
      .where(and(eq(members.sourceType, "Namespace"), inArray(members.sourceId, ids)))
      .orderBy(asc(members.id)),
    db.select().from(epics).where(inArray(epics.groupId, ids)).orderBy(asc(epics.id)),
    db
      .select({ epicId: labelLinks.targetId, title: labels.title, color: labels.color })
      .from(labelLinks)
      .innerJoin(labels, eq(labels.id, labelLinks.labelId))
      .innerJoin(epics, eq(epics.id, labelLinks.targetId))
      .where(and(eq(labelLinks.targetType, "Epic"), inArray(epics.groupId, ids)))
      .orderBy(asc(labelLinks.id)),
  ]);
  return { groups, labelRows, milestoneRows, badgeRows, memberRows, epicRows, epicLabelRows };
}
