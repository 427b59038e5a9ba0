import { Pool, neonConfig } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import type { MiddlewareHandler } from "hono";
import * as schema from "../../db/schema";
import type { AppEnv, Bindings } from "./env";

export type Database = NeonDatabase<typeof schema>;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
/** Either the request's database or a transaction on it: queries accept both. */
export type Executor = Database | Transaction;

let configuredProxy: string | undefined;

/** neonConfig is global to the isolate: set once, from the first env seen (ARCHITECTURE.md §8). */
function configureNeon(env: Bindings) {
  if (!env.WS_PROXY || configuredProxy === env.WS_PROXY) return;
  const proxy = env.WS_PROXY;
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
  configuredProxy = proxy;
}

/** A fresh pool (max 1 connection) and its Drizzle handle; `onQuery` counts statements. */
export function createDb(env: Bindings, onQuery?: () => void) {
  configureNeon(env);
  const pool = new Pool({ connectionString: env.DATABASE_URL, max: 1 });
  const db = drizzle({
    client: pool,
    schema,
    casing: "snake_case",
    logger: onQuery ? { logQuery: () => onQuery() } : false,
  });
  return { db, pool };
}

/** For queue, cron and Durable Object code: opens, runs, ends in `finally`. */
export async function withDb<T>(env: Bindings, fn: (db: Database) => Promise<T>): Promise<T> {
  const { db, pool } = createDb(env);
  try {
    return await fn(db);
  } finally {
    await pool.end();
  }
}

/**
 * The lazy per-request database: `c.var.db()` opens the pool on first call; after the response, if
 * it was opened, the pool is ended in `waitUntil`. A module-level pool breaks on the next request.
 */
export const lazyDatabase: MiddlewareHandler<AppEnv> = async (c, next) => {
  let opened: ReturnType<typeof createDb> | undefined;
  c.set("queryCount", 0);
  c.set("db", () => {
    opened ??= createDb(c.env, () => c.set("queryCount", c.var.queryCount + 1));
    return opened.db;
  });
  try {
    await next();
  } finally {
    if (opened) {
      const pool = opened.pool;
      try {
        c.executionCtx.waitUntil(pool.end());
      } catch {
        await pool.end();
      }
    }
  }
  if (c.env.QUERY_COUNT_HEADER) c.header("X-Query-Count", String(c.var.queryCount));
};
