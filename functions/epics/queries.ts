import { and, asc, desc, eq, gte, ilike, lte, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { epics, namespaces, users, type Epic } from "../../db/schema";
import type { GroupWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { nextIid } from "../shared/issuables/iids";
import { cappedCount, type Page } from "../kernel/pagination";
import { groupAccessLevel, groupIsVisible } from "../kernel/visibility";
import type { EpicRow } from "./entities";

const parent = alias(epics, "parent_epic");

const votes = (name: string) =>
  sql<number>`(SELECT count(*) FROM award_emoji a WHERE a.awardable_type = 'Epic' AND a.awardable_id = ${epics.id} AND a.name = ${name})::int`;

const selectEpics = (db: Executor) =>
  db
    .select({
      epic: epics,
      groupFullPath: namespaces.fullPath,
      author: { id: users.id, username: users.username, name: users.name, state: users.state, avatarUrl: users.avatarUrl, email: users.email },
      parentIid: parent.iid,
      parentGroupId: parent.groupId,
      upvotes: votes("thumbsup"),
      downvotes: votes("thumbsdown"),
    })
    .from(epics)
    .innerJoin(namespaces, eq(namespaces.id, epics.groupId))
    .leftJoin(users, eq(users.id, epics.authorId))
    .leftJoin(parent, eq(parent.id, epics.parentId));

type Selected = Awaited<ReturnType<ReturnType<typeof selectEpics>["execute"]>>[number];

function toRow(r: Selected): EpicRow {
  const author = r.author && r.author.id !== null ? (r.author as EpicRow["author"]) : null;
  return Object.assign({}, r.epic, {
    author,
    groupFullPath: r.groupFullPath,
    parentIid: r.parentIid,
    parentGroupId: r.parentGroupId,
    upvotes: Number(r.upvotes),
    downvotes: Number(r.downvotes),
  });
}

/** EpicPolicy as SQL over `epics` joined to its group (`namespaces`): readable group; confidential for reporters. */
function epicIsVisible(actor: Actor | null): SQL {
  if (actor?.isAdmin) return sql`true`;
  if (!actor) return and(groupIsVisible(null), eq(epics.confidential, false))!;
  return sql`(${groupIsVisible(actor)} AND (NOT ${epics.confidential} OR ${groupAccessLevel(actor.user.id)} >= 20))`;
}

export type EpicFilters = {
  orderBy: "created_at" | "updated_at";
  sort: "asc" | "desc";
  state: "opened" | "closed" | "all";
  search?: string;
  authorId?: number;
  confidential?: boolean;
  createdAfter?: Date;
  createdBefore?: Date;
  updatedAfter?: Date;
  updatedBefore?: Date;
  includeAncestors: boolean;
  includeDescendants: boolean;
};

/** EpicsFinder for a group (ee/app/finders/epics_finder.rb), the subset of its filters built here. */
export async function listEpics(db: Executor, group: GroupWithAccess, actor: Actor | null, f: EpicFilters, page: Page): Promise<{ rows: EpicRow[]; total: number }> {
  const groups: SQL[] = [eq(epics.groupId, group.id)];
  if (f.includeDescendants) groups.push(sql`${namespaces.traversalIds} @> ARRAY[${group.id}]::int[]`);
  if (f.includeAncestors) groups.push(sql`${epics.groupId} = ANY(${sql.param(group.traversalIds)}::int[])`);
  const conditions: SQL[] = [or(...groups)!, epicIsVisible(actor)];
  if (f.state !== "all") conditions.push(eq(epics.state, f.state));
  if (f.search) {
    const pattern = `%${f.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    conditions.push(or(ilike(epics.title, pattern), ilike(epics.description, pattern))!);
  }
  if (f.authorId !== undefined) conditions.push(eq(epics.authorId, f.authorId));
  if (f.confidential !== undefined) conditions.push(eq(epics.confidential, f.confidential));
  if (f.createdAfter) conditions.push(gte(epics.createdAt, f.createdAfter));
  if (f.createdBefore) conditions.push(lte(epics.createdAt, f.createdBefore));
  if (f.updatedAfter) conditions.push(gte(epics.updatedAt, f.updatedAfter));
  if (f.updatedBefore) conditions.push(lte(epics.updatedAt, f.updatedBefore));
  const where = and(...conditions);
  const column = f.orderBy === "updated_at" ? epics.updatedAt : epics.createdAt;
  const direction = f.sort === "asc" ? asc : desc;
  const rows = await selectEpics(db).where(where).orderBy(direction(column), direction(epics.id)).limit(page.limit).offset(page.offset);
  const counted = db.select({ one: sql`1` }).from(epics).innerJoin(namespaces, eq(namespaces.id, epics.groupId)).where(where);
  const total = await cappedCount(db, counted, page);
  return { rows: rows.map(toRow), total };
}

/** `user_group.epics.find_by(iid:)`: null when missing. */
export async function findEpic(db: Executor, group: GroupWithAccess, iid: number): Promise<EpicRow | null> {
  if (iid < 1 || iid > 2147483647) return null;
  const [row] = await selectEpics(db)
    .where(and(eq(epics.groupId, group.id), eq(epics.iid, iid)))
    .limit(1);
  return row ? toRow(row) : null;
}

/** Epics::CreateService: the next group iid and the epic, in one transaction. */
export async function insertEpic(db: Executor, values: Omit<typeof epics.$inferInsert, "iid">): Promise<Epic> {
  return db.transaction(async (tx) => {
    const iid = await nextIid(tx, "epics", { namespaceId: values.groupId });
    const [row] = await tx.insert(epics).values({ ...values, iid }).returning();
    return row;
  });
}
