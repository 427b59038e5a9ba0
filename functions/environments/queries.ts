import { and, asc, eq, sql } from "drizzle-orm";
import { environments, type Environment } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { escapeLike } from "../kernel/fuzzy_search";
import { cappedCount, type Page } from "../kernel/pagination";
import type { ListParams } from "./params";

/** Environments::EnvironmentsFinder: `name` exact, `search` a name prefix (case-insensitive), `states`. */
export async function listEnvironments(db: Executor, projectId: number, f: ListParams, page: Page): Promise<{ rows: Environment[]; total: number }> {
  const where = and(
    eq(environments.projectId, projectId),
    f.name ? eq(environments.name, f.name) : undefined,
    f.search ? sql`lower(${environments.name}) LIKE ${`${escapeLike(f.search.toLowerCase())}%`}` : undefined,
    f.states ? eq(environments.state, f.states) : undefined,
  );
  const rows = await db.select().from(environments).where(where).orderBy(asc(environments.id)).limit(page.limit).offset(page.offset);
  const total = await cappedCount(db, db.select({ one: sql`1` }).from(environments).where(where), page);
  return { rows, total };
}

export async function findEnvironment(db: Executor, projectId: number, id: number): Promise<Environment | null> {
  const rows = await db.select().from(environments).where(and(eq(environments.projectId, projectId), eq(environments.id, id))).limit(1);
  return rows[0] ?? null;
}

export type EnvironmentValues = { name: string; slug: string; externalUrl: string | null; tier: string };

function uniqueViolation(e: unknown): boolean {
  for (let err = e as { code?: unknown; cause?: unknown } | undefined; err; err = err.cause as typeof err) if (err.code === "23505") return true;
  return false;
}

/** Null when the project has an environment of this name (or slug). */
export async function insertEnvironment(db: Executor, projectId: number, v: EnvironmentValues): Promise<Environment | null> {
  const rows = await db.insert(environments).values({ projectId, ...v }).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

export async function updateEnvironment(db: Executor, id: number, v: Partial<EnvironmentValues> & { state?: string }): Promise<Environment | null> {
  try {
    const rows = await db.update(environments).set({ ...v, updatedAt: new Date() }).where(eq(environments.id, id)).returning();
    return rows[0] ?? null;
  } catch (e) {
    if (uniqueViolation(e)) return null;
    throw e;
  }
}

export async function deleteEnvironment(db: Executor, id: number): Promise<void> {
  await db.delete(environments).where(eq(environments.id, id));
}

/** The row type routes name (routes never import db/schema). */
export type { Environment } from "../../db/schema";
