// Statement counts of the git writes: commit create, cherry-pick, revert, and project
// create with a README. Budgets are asserted; the counts are printed for the report.
import { describe, expect, it } from "vitest";
import { unique, world } from "../helpers/world";
import { commitOn, commitsPath, smallRepo } from "../helpers/commits";

const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

describe("statement counts of git writes", () => {
  it("commit create, cherry-pick, revert and project create with README stay within their budgets", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    const counts: Record<string, number> = {};

    const one = await api.post(commitsPath(project), { json: { branch: "main", commit_message: "one", actions: [{ action: "create", file_path: "x/one.txt", content: "1\n" }] } });
    expect(one.status).toBe(201);
    counts["commit, 1 action"] = queryCount(one);

    const files = Array.from({ length: 10 }, (_, i) => `many/f${i}.txt`);
    const seed = await commitOn(api, project, "main", "seed", files.map((f) => ({ action: "create", file_path: f, content: "a\n" })));
    const ten = await api.post(commitsPath(project), {
      json: { branch: "main", commit_message: "ten", actions: files.map((f) => ({ action: "update", file_path: f, content: "b\n", last_commit_id: seed.id })) },
    });
    expect(ten.status).toBe(201);
    counts["commit, 10 updates with last_commit_id"] = queryCount(ten);

    const branch = await api.post(commitsPath(project), {
      json: { branch: "feature", start_branch: "main", commit_message: "side", actions: [{ action: "create", file_path: "side.txt", content: "s\n" }] },
    });
    expect(branch.status).toBe(201);
    counts["commit, new branch from start_branch"] = queryCount(branch);
    const side = (await branch.json()) as { id: string };

    const pick = await api.post(`/projects/${project.id}/repository/commits/${side.id}/cherry_pick`, { json: { branch: "main" } });
    expect(pick.status).toBe(201);
    counts["cherry-pick"] = queryCount(pick);
    const picked = (await pick.json()) as { id: string };

    const revert = await api.post(`/projects/${project.id}/repository/commits/${picked.id}/revert`, { json: { branch: "main" } });
    expect(revert.status).toBe(201);
    counts["revert"] = queryCount(revert);

    const created = await api.post("/projects", { json: { path: unique("readme"), initialize_with_readme: true } });
    expect(created.status).toBe(201);
    counts["project create with README"] = queryCount(created);

    console.log("statement counts", JSON.stringify(counts));
    // Before the single-statement write: 11, 33, 11, 19, 18 and 16. Before the planner and the one
    // state read: 4-5, 8-9, 4-5, 8-9, 8 and 9-10. Now: the token and the project, then
    // one state read (tips, protections, the root tree, the checks' history, the picked commit), the
    // trees below the root along the touched paths (one per depth), the replaced blobs for line
    // counts, one write; a project with a README: the namespace, the taken-check (with the new id),
    // one insert (project and owner), one commit write.
    expect(counts["commit, 1 action"]).toBeLessThanOrEqual(4);
    expect(counts["commit, 10 updates with last_commit_id"]).toBeLessThanOrEqual(6);
    expect(counts["commit, new branch from start_branch"]).toBeLessThanOrEqual(4);
    // Cherry-pick and revert were 5 before their index took the picked commit's stored line counts
    // (read with the state): the blobs of the paths they change the same way are not read again.
    expect(counts["cherry-pick"]).toBeLessThanOrEqual(4);
    expect(counts["revert"]).toBeLessThanOrEqual(4);
    expect(counts["project create with README"]).toBeLessThanOrEqual(5);
  });

  it("a commit reads no tree the previous commit wrote: updating a file two directories deep after creating it reads only the replaced blob", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    // Contents no other test writes: the trees are new to the isolate's cache.
    const mark = `${Date.now()}-${Math.random()}`;
    const path = "deep/er/file.txt";
    const created = await api.post(commitsPath(project), { json: { branch: "main", commit_message: "create", actions: [{ action: "create", file_path: path, content: `${mark}\n` }] } });
    expect(created.status).toBe(201);
    const updated = await api.post(commitsPath(project), { json: { branch: "main", commit_message: "update", actions: [{ action: "update", file_path: path, content: `${mark}\nmore\n` }] } });
    expect(updated.status).toBe(201);
    // The token, the project, the state read (with the root tree), the replaced blob, the write: `deep`
    // and `deep/er` were written by the commit before (one statement each otherwise).
    expect(queryCount(updated)).toBeLessThanOrEqual(5);
    const file = await api.get(`/projects/${project.id}/repository/files/${encodeURIComponent(path)}/raw`, { query: { ref: "main" } });
    expect(file.status).toBe(200);
    expect(await file.text()).toBe(`${mark}\nmore\n`);
    expect(((await updated.json()) as { stats: { additions: number; deletions: number } }).stats).toMatchObject({ additions: 1, deletions: 0 });
  });
});
