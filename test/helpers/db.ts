import { env } from "cloudflare:test";
import type { sql } from "drizzle-orm";
import { createDb } from "../../functions/kernel/db";
import type { World } from "./world";

/** A database connection for the duration of `fn`, outside any world (the git fixtures write through the git core). */
export async function withDb<T>(fn: (db: ReturnType<typeof createDb>["db"]) => Promise<T>): Promise<T> {
  const { db, pool } = createDb(env as never);
  try {
    return await fn(db);
  } finally {
    await pool.end();
  }
}

/** The rows of a raw SQL query, for checks of what an endpoint wrote. */
export async function rows<T = Record<string, any>>(w: World, query: ReturnType<typeof sql>): Promise<T[]> {
  return w.db(async (db) => (await db.execute(query)).rows as T[]);
}
