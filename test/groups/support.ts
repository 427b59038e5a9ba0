import { eq, sql } from "drizzle-orm";
import { groupCustomAttributes, namespaces, users } from "../../db/schema";
import { unique, type World } from "../helpers/world";

export type Json = Record<string, any>;

/** A search token (letters and digits only) that no other test's groups contain. */
export const token = () => unique("t").replace(/[^a-z0-9]/gi, "");

export const ids = async (res: Response) => ((await res.json()) as Json[]).map((g) => g.id as number);

export async function rename(w: World, groupId: number, name: string) {
  await w.db((db) => db.update(namespaces).set({ name, fullName: name }).where(eq(namespaces.id, groupId)));
}

export async function setCanCreateGroup(w: World, userId: number, value: boolean) {
  await w.db((db) => db.update(users).set({ canCreateGroup: value }).where(eq(users.id, userId)));
}

export async function setCustomAttribute(w: World, groupId: number, key: string, value: string) {
  await w.db((db) => db.insert(groupCustomAttributes).values({ groupId, key, value }));
}

export async function groupRow(w: World, id: number) {
  return w.db(async (db) => (await db.select().from(namespaces).where(eq(namespaces.id, id)))[0]);
}

export async function linkProject(w: World, projectId: number, groupId: number, groupAccess = 30) {
  await w.db((db) => db.execute(sql`INSERT INTO project_group_links (project_id, group_id, group_access) VALUES (${projectId}, ${groupId}, ${groupAccess})`));
}

export const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));
