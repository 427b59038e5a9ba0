import { and, asc, eq, sql } from "drizzle-orm";
import { remoteMirrors, type RemoteMirror } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";

export type MirrorValues = Partial<Pick<typeof remoteMirrors.$inferInsert, "enabled" | "onlyProtectedBranches" | "keepDivergentRefs">>;

/** `user_project.remote_mirrors`, by id. */
export async function listMirrors(db: Executor, projectId: number, page: Page): Promise<{ rows: RemoteMirror[]; total: number }> {
  const where = eq(remoteMirrors.projectId, projectId);
  const rows = await db.select().from(remoteMirrors).where(where).orderBy(asc(remoteMirrors.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(remoteMirrors).where(where), page);
  return { rows, total };
}

/** `user_project.remote_mirrors.find(id)` */
export async function findMirror(db: Executor, projectId: number, id: number): Promise<RemoteMirror | null> {
  const rows = await db.select().from(remoteMirrors).where(and(eq(remoteMirrors.projectId, projectId), eq(remoteMirrors.id, id))).limit(1);
  return rows[0] ?? null;
}

export async function insertMirror(db: Executor, projectId: number, values: MirrorValues & { url: string; credentials: { user?: string; password?: string } }): Promise<RemoteMirror> {
  const [row] = await db.insert(remoteMirrors).values({ ...values, projectId }).returning();
  return row;
}

export async function updateMirror(db: Executor, id: number, values: MirrorValues): Promise<RemoteMirror> {
  const [row] = await db.update(remoteMirrors).set({ ...values, updatedAt: new Date() }).where(eq(remoteMirrors.id, id)).returning();
  return row;
}

export async function deleteMirror(db: Executor, id: number): Promise<void> {
  await db.delete(remoteMirrors).where(eq(remoteMirrors.id, id));
}

/** The row type routes name (routes never import db/schema). */
export type { RemoteMirror } from "../../db/schema";
