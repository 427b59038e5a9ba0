import { and, asc, eq } from "drizzle-orm";
import { integrations, type Integration } from "../../db/schema";
import type { Executor } from "../kernel/db";

export type IntegrationValues = Partial<Omit<typeof integrations.$inferInsert, "id" | "projectId" | "slug" | "createdAt">>;

/** `project.integrations.active`: the active ones, by slug. */
export async function listActive(db: Executor, projectId: number): Promise<Integration[]> {
  return db.select().from(integrations).where(and(eq(integrations.projectId, projectId), eq(integrations.active, true))).orderBy(asc(integrations.slug));
}

export async function findIntegration(db: Executor, projectId: number, slug: string): Promise<Integration | null> {
  const rows = await db.select().from(integrations).where(and(eq(integrations.projectId, projectId), eq(integrations.slug, slug))).limit(1);
  return rows[0] ?? null;
}

/** Creates or updates the project's integration of `slug` in one statement. */
export async function upsertIntegration(db: Executor, projectId: number, slug: string, values: IntegrationValues): Promise<Integration> {
  const [row] = await db
    .insert(integrations)
    .values({ ...values, projectId, slug })
    .onConflictDoUpdate({ target: [integrations.projectId, integrations.slug], set: { ...values, updatedAt: new Date() } })
    .returning();
  return row;
}

/** DELETE keeps the row inactive with no properties, as `integration.update(active: false, properties: {})`. */
export async function deactivate(db: Executor, id: number): Promise<void> {
  await db.update(integrations).set({ active: false, properties: {}, updatedAt: new Date() }).where(eq(integrations.id, id));
}
