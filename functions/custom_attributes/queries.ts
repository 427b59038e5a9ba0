import { and, asc, eq } from "drizzle-orm";
import { groupCustomAttributes, projectCustomAttributes, userCustomAttributes } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { CustomAttributeRow } from "../entities/custom_attributes";

/** The only Drizzle code of custom attributes: one table per kind of owner, as GitLab has. */

export type Owner = { kind: "user" | "group" | "project"; id: number };

function table(kind: Owner["kind"]) {
  if (kind === "user") return { t: userCustomAttributes, owner: userCustomAttributes.userId };
  if (kind === "group") return { t: groupCustomAttributes, owner: groupCustomAttributes.groupId };
  return { t: projectCustomAttributes, owner: projectCustomAttributes.projectId };
}

export async function listAttributes(db: Executor, owner: Owner): Promise<CustomAttributeRow[]> {
  const { t, owner: column } = table(owner.kind);
  return db.select({ key: t.key, value: t.value }).from(t).where(eq(column, owner.id)).orderBy(asc(t.id));
}

export async function findAttribute(db: Executor, owner: Owner, key: string): Promise<CustomAttributeRow | null> {
  const { t, owner: column } = table(owner.kind);
  const rows = await db.select({ key: t.key, value: t.value }).from(t).where(and(eq(column, owner.id), eq(t.key, key))).limit(1);
  return rows[0] ?? null;
}

/** `find_or_initialize_by(key:)` then `update(value:)`, as one upsert. */
export async function upsertAttribute(db: Executor, owner: Owner, key: string, value: string): Promise<CustomAttributeRow> {
  if (owner.kind === "user") {
    const rows = await db
      .insert(userCustomAttributes)
      .values({ userId: owner.id, key, value })
      .onConflictDoUpdate({ target: [userCustomAttributes.userId, userCustomAttributes.key], set: { value } })
      .returning({ key: userCustomAttributes.key, value: userCustomAttributes.value });
    return rows[0];
  }
  if (owner.kind === "group") {
    const rows = await db
      .insert(groupCustomAttributes)
      .values({ groupId: owner.id, key, value })
      .onConflictDoUpdate({ target: [groupCustomAttributes.groupId, groupCustomAttributes.key], set: { value } })
      .returning({ key: groupCustomAttributes.key, value: groupCustomAttributes.value });
    return rows[0];
  }
  const rows = await db
    .insert(projectCustomAttributes)
    .values({ projectId: owner.id, key, value })
    .onConflictDoUpdate({
      target: [projectCustomAttributes.projectId, projectCustomAttributes.key],
      set: { value, updatedAt: new Date() },
    })
    .returning({ key: projectCustomAttributes.key, value: projectCustomAttributes.value });
  return rows[0];
}

/** Deletes the attribute; false when there was none. */
export async function deleteAttribute(db: Executor, owner: Owner, key: string): Promise<boolean> {
  const { t, owner: column } = table(owner.kind);
  const rows = await db.delete(t).where(and(eq(column, owner.id), eq(t.key, key))).returning({ key: t.key });
  return rows.length > 0;
}
