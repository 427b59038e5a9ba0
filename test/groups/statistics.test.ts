// GET /groups?statistics=true (and the subgroup lists, which share `group_list_params`): admins see
// `Namespace.with_statistics`, the sums of the statistics of each group's own projects, computed for
// the page in one aggregate statement.
import { describe, expect, it } from "vitest";
import { commit, queryCount, token, type Json } from "../helpers/api";
import { world, type World } from "../helpers/world";

const SIZES = ["storage_size", "repository_size", "wiki_size", "lfs_objects_size", "job_artifacts_size", "pipeline_artifacts_size", "packages_size", "snippets_size", "uploads_size"];

/** The sum of the projects' statistics as GET /projects/:id?statistics=true shows them, in the group block's keys. */
async function summed(w: World, projectIds: number[]): Promise<Record<string, number>> {
  const out = Object.fromEntries(SIZES.map((k) => [k, 0]));
  for (const id of projectIds) {
    const stats = ((await (await w.root.get(`/projects/${id}`, { query: { statistics: true } })).json()) as Json).statistics as Record<string, number>;
    for (const k of SIZES) out[k] += stats[k];
  }
  return out;
}

describe("GET /groups?statistics=true", () => {
  it("sums the group's own projects' statistics for admins (a subgroup's projects count for the subgroup)", async () => {
    const w = await world();
    const tag = token();
    const owner = await w.user();
    const parent = await w.group({ path: `${tag}-parent`, owners: [owner] });
    const child = await w.group({ path: `${tag}-child`, parent, owners: [owner] });
    const empty = await w.group({ path: `${tag}-empty`, owners: [owner] });
    const [one, two] = [await w.project({ group: parent, maintainers: [owner] }), await w.project({ group: parent, maintainers: [owner] })];
    const inner = await w.project({ group: child, maintainers: [owner] });
    await commit(w, owner, one, "main", "one", [{ action: "create", file_path: "a.txt", content: "a\n".repeat(100) }]);
    await commit(w, owner, two, "main", "two", [{ action: "create", file_path: "b.txt", content: "b\n" }]);
    await commit(w, owner, inner, "main", "inner", [{ action: "create", file_path: "c.txt", content: "c\n".repeat(1000) }]);

    const res = await w.root.get("/groups", { query: { search: tag, statistics: true, order_by: "id", all_available: true } });
    expect(res.status).toBe(200);
    const groups = (await res.json()) as Json[];
    expect(groups.map((g) => g.id)).toEqual([parent.id, child.id, empty.id]);
    const [p, c, e] = groups.map((g) => g.statistics as Record<string, number>);
    expect(p).toEqual(await summed(w, [one.id, two.id]));
    expect(p.repository_size).toBeGreaterThan(0);
    expect(p.storage_size).toBe(p.repository_size + p.wiki_size + p.lfs_objects_size + p.job_artifacts_size + p.pipeline_artifacts_size + p.packages_size + p.snippets_size + p.uploads_size);
    expect(c).toEqual(await summed(w, [inner.id]));
    expect(e).toEqual(Object.fromEntries(SIZES.map((k) => [k, 0])));

    // Also in the subgroup lists, which take the same parameters.
    const subgroups = (await (await w.root.get(`/groups/${parent.id}/subgroups`, { query: { statistics: true } })).json()) as Json[];
    expect(subgroups.map((g) => g.statistics)).toEqual([c]);
    // 15.4's GET /groups/:id declares no `statistics` (its presenter never asks for the block).
    const single = (await (await w.root.get(`/groups/${parent.id}`, { query: { statistics: true } })).json()) as Json;
    expect(single).not.toHaveProperty("statistics");
  });

  it("shows no statistics to others, and costs admins one statement per page whatever its size", async () => {
    const w = await world();
    const tag = token();
    const owner = await w.user();
    for (let i = 0; i < 3; i++) {
      const g = await w.group({ path: `${tag}-g${i}`, owners: [owner] });
      await w.project({ group: g, maintainers: [owner] });
    }
    const mine = (await (await w.as(owner).get("/groups", { query: { search: tag, statistics: true } })).json()) as Json[];
    expect(mine).toHaveLength(3);
    for (const g of mine) expect(g).not.toHaveProperty("statistics");

    const count = async (query: Record<string, unknown>) => queryCount(await w.root.get("/groups", { query: { search: tag, all_available: true, ...query } }));
    const plain = await count({});
    expect(await count({ statistics: true, per_page: 1 })).toBe(plain + 1);
    expect(await count({ statistics: true, per_page: 3 })).toBe(plain + 1);
  });
});
