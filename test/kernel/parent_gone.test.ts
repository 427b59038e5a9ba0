import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { projects } from "../../db/schema";
import { parentGone } from "../../functions/kernel/errors";
import { statusAndBody } from "../helpers/client";
import { world, type World, type TestProject, type TestUser } from "../helpers/world";

/**
 * A project deleted between a route's lookup and its INSERT: the INSERT's foreign-key check waits on the
 * deleting transaction's row lock, then fails with 23503 once it commits. The kernel answers the 404 the
 * lookup would now give. The delete is held open until the request waits on it, so that the race is certain.
 */
async function deletedDuringRequest(w: World, project: TestProject, send: () => Promise<Response>): Promise<Response> {
  let pending: Promise<Response> | undefined;
  await w.db((db) =>
    db.transaction(async (tx) => {
      await tx.delete(projects).where(eq(projects.id, project.id));
      pending = send();
      // Commit only once the request passed its lookup and waits on this transaction (its INSERT's
      // foreign-key check), so that the answer comes from the violation, not from the lookup.
      for (let waited = 0; ; waited += 100) {
        const result = await tx.execute(sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))`);
        if ((result.rows[0] as { n: number }).n > 0) break;
        if (waited > 30_000) throw new Error("the request never waited on the deleted project");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }),
  );
  return pending!;
}

async function setup(): Promise<{ w: World; owner: TestUser; project: TestProject }> {
  const w = await world();
  const owner = await w.user();
  const project = await w.project({ owner, visibility: "private" });
  return { w, owner, project };
}

describe("a parent deleted between lookup and insert (foreign-key violation)", () => {
  it("POST /projects/:id/snippets answers 404 Project Not Found, not 500", async () => {
    const { w, owner, project } = await setup();
    const res = await deletedDuringRequest(w, project, () =>
      w.as(owner).post(`/projects/${project.id}/snippets`, { json: { title: "t", file_name: "a.rb", content: "x", visibility: "private" } }),
    );
    expect(await statusAndBody(res)).toEqual([404, { message: "404 Project Not Found" }]);
  });

  it("POST /projects/:id/triggers answers 404 Project Not Found, not 500", async () => {
    const { w, owner, project } = await setup();
    const res = await deletedDuringRequest(w, project, () => w.as(owner).post(`/projects/${project.id}/triggers`, { json: { description: "t" } }));
    expect(await statusAndBody(res)).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("parentGone", () => {
  const fk = (message: string, detail?: string) => new Error("Failed query", { cause: Object.assign(new Error(message), { code: "23503", detail }) });

  it("names the referenced table's resource, or none", () => {
    expect(parentGone(fk('insert or update on table "snippets" violates foreign key constraint "x"', 'Key (project_id)=(7) is not present in table "projects".'))).toEqual({
      table: "projects",
      body: "404 Project Not Found",
    });
    expect(parentGone(fk('insert or update on table "a" violates foreign key constraint "x"', 'Key (b_id)=(7) is not present in table "bees".'))?.body).toBe("404 Not Found");
  });

  it("leaves a violation raised by a DELETE and other errors alone", () => {
    expect(parentGone(fk('update or delete on table "projects" violates foreign key constraint "x" on table "y"'))).toBeNull();
    expect(parentGone(Object.assign(new Error("dup"), { code: "23505" }))).toBeNull();
    expect(parentGone(new Error("boom"))).toBeNull();
  });
});
