import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import type { Json } from "../helpers/api";

describe("POST /projects/:id/boards/:board_id/lists with iteration_id", () => {
  it("adds an iteration list of the project's groups; refuses others, repeats and guests", async () => {
    const w = await world();
    const owner = await w.user();
    const reporter = await w.user();
    const guest = await w.user();
    const root = await w.group({ owners: [owner], reporters: [reporter], guests: [guest] });
    const group = await w.group({ parent: root });
    const project = await w.project({ group });
    const other = await w.group({ owners: [owner] });
    const make = async (groupId: number) =>
      (await (await w.as(owner).post(`/groups/${groupId}/iterations`, { json: { start_date: "2030-01-01", due_date: "2030-01-14" } })).json()) as Json;
    const sprint = await make(root.id);
    const foreign = await make(other.id);
    const board = (await (await w.as(owner).post(`/projects/${project.id}/boards`, { json: { name: "b" } })).json()) as Json;
    const lists = `/projects/${project.id}/boards/${board.id}/lists`;

    const res = await w.as(reporter).post(lists, { json: { iteration_id: sprint.id } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ label: null, position: 0, iteration: { ...sprint } });
    const shown = (await (await w.as(guest).get(`/projects/${project.id}/boards/${board.id}`)).json()) as Json;
    expect((shown.lists as Json[]).map((l) => (l.iteration as Json | undefined)?.id)).toEqual([sprint.id]);

    expect(await statusAndBody(await w.as(reporter).post(lists, { json: { iteration_id: sprint.id } }))).toEqual([
      400,
      { message: { iteration_id: ["has already been taken"] } },
    ]);
    expect(await statusAndBody(await w.as(reporter).post(lists, { json: { iteration_id: foreign.id } }))).toEqual([
      400,
      { message: { error: "Iteration not found!" } },
    ]);
    expect((await w.as(guest).post(lists, { json: { iteration_id: sprint.id } })).status).toBe(403);
  });
});

describe("POST /groups/:id/boards/:board_id/lists with iteration_id", () => {
  it("takes the group's and its ancestors' iterations, not a subgroup's", async () => {
    const w = await world();
    const owner = await w.user();
    const root = await w.group({ owners: [owner] });
    const group = await w.group({ parent: root });
    const sub = await w.group({ parent: group });
    const make = async (groupId: number) =>
      (await (await w.as(owner).post(`/groups/${groupId}/iterations`, { json: { start_date: "2030-01-01", due_date: "2030-01-14" } })).json()) as Json;
    const fromRoot = await make(root.id);
    const fromSub = await make(sub.id);
    const board = (await (await w.as(owner).post(`/groups/${group.id}/boards`, { json: { name: "b" } })).json()) as Json;
    const lists = `/groups/${group.id}/boards/${board.id}/lists`;
    expect(((await (await w.as(owner).post(lists, { json: { iteration_id: fromRoot.id } })).json()) as Json).iteration).toMatchObject({ id: fromRoot.id });
    expect(await statusAndBody(await w.as(owner).post(lists, { json: { iteration_id: fromSub.id } }))).toEqual([400, { message: { error: "Iteration not found!" } }]);
  });
});
