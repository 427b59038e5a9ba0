import { eq, sql } from "drizzle-orm";
import { pushRules, type PushRule } from "../../db/schema";
import type { Executor } from "../kernel/db";

export type { PushRule };
export type PushRuleValues = Partial<Omit<typeof pushRules.$inferInsert, "id" | "projectId" | "groupId" | "createdAt" | "updatedAt">>;
export type Owner = { projectId: number } | { groupId: number };

const ownedBy = (owner: Owner) => ("projectId" in owner ? eq(pushRules.projectId, owner.projectId) : eq(pushRules.groupId, owner.groupId));

export async function findPushRule(db: Executor, owner: Owner): Promise<PushRule | null> {
  const [row] = await db.select().from(pushRules).where(ownedBy(owner));
  return row ?? null;
}

/** Inserts the owner's rule; null when it already has one (the unique index decides a race). */
export async function insertPushRule(db: Executor, owner: Owner, values: PushRuleValues): Promise<PushRule | null> {
  const [row] = await db
    .insert(pushRules)
    .values({ ...values, ...owner })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

export async function updatePushRule(db: Executor, id: number, values: PushRuleValues): Promise<PushRule | null> {
  const [row] = await db.update(pushRules).set({ ...values, updatedAt: sql`now()` }).where(eq(pushRules.id, id)).returning();
  return row ?? null;
}

export async function deletePushRule(db: Executor, id: number): Promise<void> {
  await db.delete(pushRules).where(eq(pushRules.id, id));
}
