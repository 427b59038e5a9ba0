import { describe, expect, it } from "vitest";
import { unique, world } from "../helpers/world";

type Json = Record<string, any>;

describe("default branch of a project created without README", () => {
  it("is the instance default (main) until the first push, and the first pushed branch becomes the default", async () => {
    const w = await world();
    const owner = await w.user();
    const api = w.as(owner);
    const created = await api.post("/projects", { json: { path: unique("empty") } });
    expect(created.status).toBe(201);
    const project = (await created.json()) as Json;
    expect(project).toMatchObject({ default_branch: "main", empty_repo: true });
    expect((await (await api.get(`/projects/${project.id}`)).json()) as Json).toMatchObject({ default_branch: "main", empty_repo: true });
    const commit = (branch: string, extra: Json = {}) =>
      api.post(`/projects/${project.id}/repository/commits`, {
        json: { branch, commit_message: `On ${branch}`, actions: [{ action: "create", file_path: `${branch}.txt`, content: "x\n" }], ...extra },
      });
    expect((await commit("develop")).status).toBe(201);
    expect((await (await api.get(`/projects/${project.id}`)).json()) as Json).toMatchObject({ default_branch: "develop", empty_repo: false });
    // A later branch does not take over.
    expect((await commit("main", { start_branch: "develop" })).status).toBe(201);
    expect(((await (await api.get(`/projects/${project.id}`)).json()) as Json).default_branch).toBe("develop");
  });
});
