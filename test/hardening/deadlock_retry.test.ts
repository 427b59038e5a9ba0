import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../functions/kernel/db";
import { world } from "../helpers/world";

/**
 * kernel/db.ts `createDb`: a transaction Postgres aborts as a deadlock (40P01) runs again, so two
 * requests that lock the same rows in opposite orders both succeed instead of one answering 500.
 */
describe("createDb: deadlocked transactions run again", () => {
  it("two transactions locking two rows in opposite orders both commit", async () => {
    const w = await world();
    const [a, b] = await Promise.all([w.user(), w.user()]);
    let retries = 0;
    const one = createDb(env as never, undefined, () => (retries += 1));
    const two = createDb(env as never, undefined, () => (retries += 1));
    let attempts = 0;
    const lockBoth = (db: typeof one.db, first: number, second: number, name: string) =>
      db.transaction(async (tx) => {
        attempts += 1;
        await tx.execute(sql`UPDATE users SET name = ${name} WHERE id = ${first}`);
        await tx.execute(sql`SELECT pg_sleep(0.3)`);
        await tx.execute(sql`UPDATE users SET name = ${name} WHERE id = ${second}`);
      });
    try {
      const results = await Promise.allSettled([lockBoth(one.db, a.id, b.id, "one"), lockBoth(two.db, b.id, a.id, "two")]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
      // Postgres broke the deadlock by aborting one of them, which ran a second time.
      expect(attempts).toBeGreaterThanOrEqual(3);
      // Each run again is counted (what X-Retry-Count reports per request).
      expect(retries).toBe(attempts - 2);
    } finally {
      await Promise.all([one.pool.end(), two.pool.end()]);
    }
  });
});

describe("X-Retry-Count", () => {
  it("is sent beside X-Query-Count when the QUERY_COUNT_HEADER binding is set: 0 for a request nothing aborted", async () => {
    const w = await world();
    const user = await w.user();
    const res = await w.as(user).get("/user");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-query-count")).not.toBeNull();
    expect(res.headers.get("x-retry-count")).toBe("0");
  });
});
