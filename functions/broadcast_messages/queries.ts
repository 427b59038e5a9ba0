import { desc, eq, sql } from "drizzle-orm";
import { broadcastMessages, type BroadcastMessage } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Page } from "../kernel/pagination";

export type { BroadcastMessage };
export type BroadcastChanges = Partial<Omit<typeof broadcastMessages.$inferInsert, "id" | "createdAt" | "updatedAt">>;

/** `BroadcastMessage.all.order_id_desc`, one page and the total. */
export async function listMessages(db: Executor, page: Page): Promise<{ rows: BroadcastMessage[]; total: number }> {
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(broadcastMessages).orderBy(desc(broadcastMessages.id)).limit(page.limit).offset(page.offset),
    db.select({ total: sql<number>`count(*)::int` }).from(broadcastMessages),
  ]);
  return { rows, total };
}

export async function findMessage(db: Executor, id: number): Promise<BroadcastMessage | null> {
  const [row] = await db.select().from(broadcastMessages).where(eq(broadcastMessages.id, id));
  return row ?? null;
}

export async function insertMessage(db: Executor, values: typeof broadcastMessages.$inferInsert): Promise<BroadcastMessage> {
  const [row] = await db.insert(broadcastMessages).values(values).returning();
  return row;
}

export async function updateMessage(db: Executor, id: number, changes: BroadcastChanges): Promise<BroadcastMessage | null> {
  const [row] = await db.update(broadcastMessages).set({ ...changes, updatedAt: sql`now()` }).where(eq(broadcastMessages.id, id)).returning();
  return row ?? null;
}

export async function deleteMessage(db: Executor, id: number): Promise<void> {
  await db.delete(broadcastMessages).where(eq(broadcastMessages.id, id));
}
