import { alias } from "drizzle-orm/pg-core";
import { eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { namespaces, projects, users } from "../../db/schema";
import { preparedQuery, type Executor } from "../../functions/kernel/db";
import { withDb } from "../helpers/db";
import { world } from "../helpers/world";

// kernel/db.ts `preparedQuery`: its own row mapper must build exactly the rows Drizzle builds, and its
// named statement must give the same answers on every run (the first runs plan per value, later ones
// reuse a generic plan).
describe("preparedQuery", () => {
  const forkedFrom = alias(projects, "pq_forked_from");
  const owner = alias(users, "pq_owner");
  const select = (db: Executor) =>
    db
      .select({
        project: { id: projects.id, path: projects.path, createdAt: projects.createdAt },
        namespace: namespaces,
        owner: { id: owner.id, username: owner.username },
        forkedFrom: { id: forkedFrom.id, name: forkedFrom.name },
        doubled: sql<number>`${projects.id} * 2`,
        nested: { label: sql<string>`'n' || ${projects.id}` },
      })
      .from(projects)
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .leftJoin(owner, eq(owner.id, namespaces.ownerId))
      .leftJoin(forkedFrom, eq(forkedFrom.id, projects.forkedFromProjectId));
  const prepared = preparedQuery((db) => select(db).where(sql`${projects.id} = ANY(${sql.placeholder("ids")}::int[])`).orderBy(projects.id));

  it("maps rows as Drizzle does: nested paths, nulls, and null left-joined tables", async () => {
    const w = await world();
    const user = await w.user();
    const source = await w.project({ owner: user });
    const fork = await w.project({ owner: user });
    const ids = [source.id, fork.id];
    await withDb(async (db) => {
      await db.update(projects).set({ forkedFromProjectId: source.id }).where(eq(projects.id, fork.id));
      const expected = await select(db).where(inArray(projects.id, ids)).orderBy(projects.id);
      expect(expected).toHaveLength(2);
      expect(expected[0].forkedFrom).toBeNull(); // the source: a null left join
      expect(expected[1].forkedFrom).toEqual({ id: source.id, name: source.name });
      // Seven runs: past the five custom plans after which Postgres may switch to a generic plan.
      for (let run = 0; run < 7; run++) expect(await prepared(db, { ids })).toEqual(expected);
    });
  });
});
