import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { world } from "../helpers/world";
import { ciProject, createPipeline } from "../helpers/ci";

/**
 * iids come from one writer, `shared/issuables/iids.ts` (InternalId): gapless under concurrent creates,
 * never reused after the last row is deleted, and on first use they start after the largest iid a row
 * already carries (rows written without the counter: older data, a restored project).
 */

const CI = "job:\n  script: echo hi\n";

describe("POST /projects/:id/issues (iids)", () => {
  it("gives concurrent creates distinct gapless iids, and does not reuse a deleted last iid", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const api = w.as(owner);
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) => api.post(`/projects/${project.id}/issues`, { json: { title: `issue ${i}` } }).then(async (r) => {
        expect(r.status).toBe(201);
        return ((await r.json()) as { iid: number }).iid;
      })),
    );
    expect([...created].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await api.delete(`/projects/${project.id}/issues/8`)).status).toBe(204);
    const next = await api.post(`/projects/${project.id}/issues`, { json: { title: "after the delete" } });
    expect(((await next.json()) as { iid: number }).iid).toBe(9);
  });
});

describe("POST /projects/:id/pipeline (iids)", () => {
  it("starts after the largest stored iid when the project has no counter yet, then counts on", async () => {
    const w = await world();
    const { api, project, sha } = await ciProject(w, CI);
    // A pipeline row written without the counter (as an import writes them).
    await w.db((db) =>
      db.execute(sql`INSERT INTO ci_pipelines (iid, project_id, ref, sha, source, status) VALUES (41, ${project.id}, 'main', ${sha}, 'push', 'success')`),
    );
    expect((await createPipeline(api, project.id)).iid).toBe(42);
    expect((await createPipeline(api, project.id)).iid).toBe(43);
  });
});
