import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import type { Json } from "../helpers/api";

describe("POST /projects/:id/issues with iteration_id", () => {
  it("assigns an iteration of the project's groups, shows it, and ignores iterations of other groups", async () => {
    const w = await world();
    const owner = await w.user();
    const root = await w.group({ owners: [owner] });
    const group = await w.group({ parent: root });
    const project = await w.project({ group });
    const other = await w.group({ owners: [owner] });
    const make = async (groupId: number, json: Json) => (await (await w.as(owner).post(`/groups/${groupId}/iterations`, { json })).json()) as Json;
    const sprint = await make(root.id, { title: "S1", start_date: "2030-01-01", due_date: "2030-01-14" });
    const foreign = await make(other.id, { title: "F", start_date: "2030-01-01", due_date: "2030-01-14" });

    const created = await w.as(owner).post(`/projects/${project.id}/issues`, { json: { title: "a", iteration_id: sprint.id } });
    expect(created.status).toBe(201);
    const body = (await created.json()) as Json;
    expect(body.iteration).toEqual({ ...sprint });

    const outside = (await (await w.as(owner).post(`/projects/${project.id}/issues`, { json: { title: "b", iteration_id: foreign.id } })).json()) as Json;
    expect(outside.iteration).toBeNull();
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/issues`, { json: { title: "d", iteration_id: "x" } }))).toEqual([
      400,
      { error: "iteration_id is invalid" },
    ]);
  });
});

describe("PUT /projects/:id/issues/:issue_iid with iteration_id", () => {
  it("sets, keeps and removes the iteration; the list filters on it", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    const sprint = (await (await w.as(owner).post(`/groups/${group.id}/iterations`, { json: { start_date: "2030-01-01", due_date: "2030-01-14" } })).json()) as Json;
    const issue = (await (await w.as(owner).post(`/projects/${project.id}/issues`, { json: { title: "a" } })).json()) as Json;
    expect(issue.iteration).toBeNull();
    const put = async (json: Json) => (await (await w.as(owner).put(`/projects/${project.id}/issues/${issue.iid}`, { json })).json()) as Json;
    expect(((await put({ iteration_id: sprint.id })).iteration as Json).id).toBe(sprint.id);
    expect(((await put({ title: "renamed" })).iteration as Json).id).toBe(sprint.id);
    const listed = (await (await w.as(owner).get(`/projects/${project.id}/issues`, { query: { iteration_id: sprint.id } })).json()) as Json[];
    expect(listed.map((i) => i.iid)).toEqual([issue.iid]);
    expect((await put({ iteration_id: 0 })).iteration).toBeNull();
  });
});
