import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import type { Json } from "../helpers/api";

describe("GET /user/activities", () => {
  it("lists users active on or after `from`, oldest activity first, paginated", async () => {
    const w = await world();
    const [a, b, old] = [await w.user(), await w.user(), await w.user()];
    await w.db((db) =>
      db.execute(sql`UPDATE users SET last_activity_on = CASE id WHEN ${a.id} THEN DATE '2031-02-02' WHEN ${b.id} THEN DATE '2031-02-01' ELSE DATE '2031-01-01' END
        WHERE id IN (${a.id}, ${b.id}, ${old.id})`),
    );
    // Only users of this test are this far in the future: the list is theirs alone.
    const res = await w.root.get("/user/activities", { query: { from: "2031-01-15", per_page: 1 } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ username: b.username, last_activity_on: "2031-02-01", last_activity_at: "2031-02-01" }]);
    expect(res.headers.get("x-total")).toBe("2");
    const second = (await (await w.root.get("/user/activities", { query: { from: "2031-01-15", per_page: 1, page: 2 } })).json()) as Json[];
    expect(second.map((u) => u.username)).toEqual([a.username]);
  });

  it("records the caller's activity on API requests", async () => {
    const w = await world();
    const me = await w.user();
    expect((await w.as(me).get("/user")).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    let seen: unknown = null;
    for (let i = 0; i < 50 && seen !== today; i++) {
      const [row] = (await w.db((db) => db.execute(sql`SELECT last_activity_on::text AS d FROM users WHERE id = ${me.id}`))).rows as { d: string | null }[];
      seen = row.d;
      if (seen !== today) await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toBe(today);
  });

  it("answers GitLab's 400 for a bad `from`, and is for administrators", async () => {
    const w = await world();
    expect(await statusAndBody(await w.root.get("/user/activities", { query: { from: "yesterday" } }))).toEqual([400, { error: "from is invalid" }]);
    expect(await statusAndBody(await w.anonymous.get("/user/activities"))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(w.stranger).get("/user/activities"))).toEqual([403, { message: "403 Forbidden" }]);
  });
});
