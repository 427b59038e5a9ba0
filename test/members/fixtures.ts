import { and, eq, sql } from "drizzle-orm";
import { expect } from "vitest";
import { members, projectGroupLinks } from "../../db/schema";
import type { RoleMembers, TestGroup, TestUser, World } from "../helpers/world";

export type Base = "groups" | "projects";
export const BASES: Base[] = ["groups", "projects"];

type Visibility = "private" | "internal" | "public";

/**
 * A group, or a personal project, with `manager` able to administer its members (the group's owner;
 * a maintainer of the project) and `holder` the owner of the project's namespace (projects only).
 */
export async function source(w: World, base: Base, opts: { visibility?: Visibility } & RoleMembers = {}) {
  const manager = await w.user();
  if (base === "groups") {
    const group = await w.group({ ...opts, owners: [manager, ...(opts.owners ?? [])] });
    return { base, id: group.id, path: `/groups/${group.id}`, manager, holder: null as TestUser | null, group };
  }
  const holder = await w.user();
  const project = await w.project({ ...opts, owner: holder, maintainers: [manager, ...(opts.maintainers ?? [])] });
  return { base, id: project.id, path: `/projects/${project.id}`, manager, holder, group: null as TestGroup | null };
}

export const sourceType = (base: Base) => (base === "groups" ? "Namespace" : "Project");

/** The stored row of `userId` in the source, or undefined. */
export async function storedMember(w: World, base: Base, sourceId: number, userId: number) {
  const rows = await w.db((db) =>
    db
      .select()
      .from(members)
      .where(and(eq(members.sourceType, sourceType(base)), eq(members.sourceId, sourceId), eq(members.userId, userId))),
  );
  return rows[0];
}

/** Adds one member row directly, with the columns the helpers do not set. */
export async function addMember(
  w: World,
  type: "Namespace" | "Project",
  sourceId: number,
  user: TestUser,
  accessLevel: number,
  extra: { expiresAt?: string; createdById?: number } = {},
) {
  await w.db((db) => db.insert(members).values({ sourceType: type, sourceId, userId: user.id, accessLevel, ...extra }));
}

export async function share(w: World, projectId: number, groupId: number, groupAccess: number) {
  await w.db((db) => db.insert(projectGroupLinks).values({ projectId, groupId, groupAccess }));
}

export async function setUser(w: World, user: TestUser, set: { state?: string; userType?: string }) {
  await w.db((db) => db.execute(sql`UPDATE users SET state = COALESCE(${set.state ?? null}, state), user_type = COALESCE(${set.userType ?? null}, user_type) WHERE id = ${user.id}`));
}

/** `YYYY-MM-DD`, `days` from today (UTC). */
export function dateIn(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

type Listed = { id: number; access_level: number; expires_at: string | null };

export async function listed(res: Response): Promise<Listed[]> {
  expect(res.status).toBe(200);
  return (await res.json()) as Listed[];
}

/** `[user id, access level]` pairs, sorted by user id. */
export async function levels(res: Response): Promise<[number, number][]> {
  return (await listed(res)).map((m): [number, number] => [m.id, m.access_level]).sort((a, b) => a[0] - b[0]);
}

export const pairs = (...list: [TestUser, number][]) =>
  list.map(([u, level]): [number, number] => [u.id, level]).sort((a, b) => a[0] - b[0]);
