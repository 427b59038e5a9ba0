import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { boardLists } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world, type World } from "../helpers/world";
import { createLabel, createMilestone, team, type Json } from "../helpers/api";

type Team = Awaited<ReturnType<typeof team>>;

async function createBoard(w: World, t: Team, name = "Planning"): Promise<Json> {
  const res = await w.as(t.reporter).post(`/projects/${t.project.id}/boards`, { json: { name } });
  if (res.status !== 201) throw new Error(`create board: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

async function labelList(w: World, t: Team, board: Json, name: string): Promise<Json> {
  const label = await createLabel(w, t.owner, t.project, { name });
  const res = await w.as(t.reporter).post(`/projects/${t.project.id}/boards/${board.id}/lists`, { json: { label_id: label.id } });
  if (res.status !== 201) throw new Error(`create list: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

const positions = async (w: World, t: Team, board: Json) => {
  const res = await w.as(t.guest).get(`/projects/${t.project.id}/boards/${board.id}/lists`);
  return ((await res.json()) as Json[]).map((l) => [l.label.name, l.position]);
};

describe("POST /projects/:id/boards", () => {
  requiresAuthentication((w) => w.anonymous.post("/projects/1/boards", { json: { name: "x" } }));
  hidesPrivateProject(async (w, project) => w.as(await w.user()).post(`/projects/${project.id}/boards`, { json: { name: "x" } }));

  forbidsRoles(["guest"], (w, project, user) => w.as(user).post(`/projects/${project.id}/boards`, { json: { name: "x" } }));

  it("creates a board with its backlog and closed lists (only label lists are shown)", async () => {
    const w = await world();
    const t = await team(w);
    const board = await createBoard(w, t);
    expect(board).toMatchObject({
      id: expect.any(Number),
      name: "Planning",
      hide_backlog_list: false,
      hide_closed_list: false,
      project: { id: t.project.id, path_with_namespace: t.project.fullPath },
      lists: [],
      group: null,
      milestone: null,
      assignee: null,
      labels: [],
      weight: null,
    });
    const kinds = await w.db((db) => db.select({ type: boardLists.listType }).from(boardLists).where(eq(boardLists.boardId, board.id as number)));
    expect(kinds.map((k) => k.type).sort()).toEqual([0, 2]);
  });

  it("answers GitLab's 400s", async () => {
    const w = await world();
    const t = await team(w);
    expect(await statusAndBody(await w.as(t.owner).post(`/projects/${t.project.id}/boards`, { json: {} }))).toEqual([400, { error: "name is missing" }]);
  });
});

describe("GET /projects/:id/boards", () => {
  it("lists the project's boards with their lists, paginated, to guests", async () => {
    const w = await world();
    const t = await team(w);
    const first = await createBoard(w, t, "One");
    await createBoard(w, t, "Two");
    await labelList(w, t, first, "Doing");
    const res = await w.as(t.guest).get(`/projects/${t.project.id}/boards`, { query: { per_page: 1 } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("2");
    const [board] = (await res.json()) as Json[];
    expect(board.name).toBe("One");
    expect(board.lists).toEqual([
      {
        id: expect.any(Number),
        label: expect.objectContaining({ name: "Doing", color: "#FF0000" }),
        position: 0,
        max_issue_count: 0,
        max_issue_weight: 0,
        limit_metric: null,
      },
    ]);
    const stranger = await w.user();
    expect((await w.as(stranger).get(`/projects/${t.project.id}/boards`)).status).toBe(404);
  });
});

describe("PUT /projects/:id/boards/:board_id", () => {
  it("renames, hides lists and scopes the board to a milestone, an assignee and labels", async () => {
    const w = await world();
    const t = await team(w);
    const board = await createBoard(w, t);
    const milestone = await createMilestone(w, t.owner, t.project, { title: "v1" });
    await createLabel(w, t.owner, t.project, { name: "Doing" });
    const res = await w.as(t.reporter).put(`/projects/${t.project.id}/boards/${board.id}`, {
      json: { name: "Renamed", hide_closed_list: true, milestone_id: milestone.id, assignee_id: t.guest.id, labels: "Doing,Unknown", weight: 4 },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: "Renamed",
      hide_closed_list: true,
      milestone: { id: milestone.id, title: "v1" },
      assignee: { id: t.guest.id },
      labels: [expect.objectContaining({ name: "Doing" })],
      weight: 4,
    });
    expect((await w.as(t.guest).put(`/projects/${t.project.id}/boards/${board.id}`, { json: { name: "x" } })).status).toBe(403);
    expect(await statusAndBody(await w.as(t.owner).put(`/projects/${t.project.id}/boards/999999999`, { json: { name: "x" } }))).toEqual([
      404,
      { message: "404 Not found" },
    ]);
  });
});

describe("DELETE /projects/:id/boards/:board_id", () => {
  it("deletes a board but keeps the project's last one, answering 204 either way", async () => {
    const w = await world();
    const t = await team(w);
    const first = await createBoard(w, t, "One");
    const second = await createBoard(w, t, "Two");
    expect((await w.as(t.reporter).delete(`/projects/${t.project.id}/boards/${first.id}`)).status).toBe(204);
    expect((await w.as(t.reporter).delete(`/projects/${t.project.id}/boards/${second.id}`)).status).toBe(204);
    const left = (await (await w.as(t.guest).get(`/projects/${t.project.id}/boards`)).json()) as Json[];
    expect(left.map((b) => b.name)).toEqual(["Two"]);
  });
});

describe("POST /projects/:id/boards/:board_id/lists", () => {
  it("adds label, milestone and assignee lists after the others", async () => {
    const w = await world();
    const t = await team(w);
    const board = await createBoard(w, t);
    const doing = await labelList(w, t, board, "Doing");
    expect(doing.position).toBe(0);
    const milestone = await createMilestone(w, t.owner, t.project, { title: "v1" });
    const byMilestone = await w.as(t.reporter).post(`/projects/${t.project.id}/boards/${board.id}/lists`, { json: { milestone_id: milestone.id } });
    expect(byMilestone.status).toBe(201);
    expect(await byMilestone.json()).toMatchObject({ label: null, position: 1, milestone: { id: milestone.id, title: "v1" } });
    const byUser = await w.as(t.reporter).post(`/projects/${t.project.id}/boards/${board.id}/lists`, { json: { assignee_id: t.guest.id } });
    expect(await byUser.json()).toMatchObject({ label: null, position: 2, assignee: { id: t.guest.id, username: t.guest.username } });
  });

  it("answers GitLab's 400s: none or two targets, a foreign label, milestone or user, a repeated label", async () => {
    const w = await world();
    const t = await team(w);
    const board = await createBoard(w, t);
    const post = (json: Json) => w.as(t.reporter).post(`/projects/${t.project.id}/boards/${board.id}/lists`, { json });
    expect(await statusAndBody(await post({}))).toEqual([
      400,
      { error: "label_id, assignee_id, milestone_id, iteration_id are missing, exactly one parameter must be provided" },
    ]);
    expect(await statusAndBody(await post({ label_id: 1, milestone_id: 2 }))).toEqual([400, { error: "label_id, milestone_id are mutually exclusive" }]);
    const other = await team(w);
    const foreign = await createLabel(w, other.owner, other.project, { name: "Elsewhere" });
    expect(await statusAndBody(await post({ label_id: foreign.id }))).toEqual([400, { message: { error: "Label not found!" } }]);
    expect(await statusAndBody(await post({ milestone_id: 999999999 }))).toEqual([400, { message: { error: "Milestone not found!" } }]);
    const stranger = await w.user();
    expect(await statusAndBody(await post({ assignee_id: stranger.id }))).toEqual([400, { message: { error: "User not found!" } }]);
    const label = await createLabel(w, t.owner, t.project, { name: "Twice" });
    expect((await post({ label_id: label.id })).status).toBe(201);
    expect(await statusAndBody(await post({ label_id: label.id }))).toEqual([400, { message: { label_id: ["has already been taken"] } }]);
    expect((await w.as(t.guest).post(`/projects/${t.project.id}/boards/${board.id}/lists`, { json: { label_id: label.id } })).status).toBe(403);
  });
});

describe("PUT /projects/:id/boards/:board_id/lists/:list_id", () => {
  it("moves a list, shifting the lists in between; refuses a position out of range", async () => {
    const w = await world();
    const t = await team(w);
    const board = await createBoard(w, t);
    const a = await labelList(w, t, board, "A");
    await labelList(w, t, board, "B");
    await labelList(w, t, board, "C");
    const move = (list: Json, position: number) =>
      w.as(t.reporter).put(`/projects/${t.project.id}/boards/${board.id}/lists/${list.id}`, { json: { position } });
    const moved = await move(a, 2);
    expect(moved.status).toBe(200);
    expect(((await moved.json()) as Json).position).toBe(2);
    expect(await positions(w, t, board)).toEqual([["B", 0], ["C", 1], ["A", 2]]);
    expect((await move(a, 0)).status).toBe(200);
    expect(await positions(w, t, board)).toEqual([["A", 0], ["B", 1], ["C", 2]]);
    expect(await statusAndBody(await move(a, 3))).toEqual([400, { message: { error: "List could not be moved!" } }]);
    expect(await statusAndBody(await move(a, 0))).toEqual([400, { message: { error: "List could not be moved!" } }]);
    expect(await statusAndBody(await w.as(t.reporter).put(`/projects/${t.project.id}/boards/${board.id}/lists/${a.id}`, { json: {} }))).toEqual([
      400,
      { error: "position is missing" },
    ]);
  });
});

describe("DELETE /projects/:id/boards/:board_id/lists/:list_id", () => {
  it("deletes a list and closes the gap in positions", async () => {
    const w = await world();
    const t = await team(w);
    const board = await createBoard(w, t);
    const a = await labelList(w, t, board, "A");
    await labelList(w, t, board, "B");
    expect((await w.as(t.guest).delete(`/projects/${t.project.id}/boards/${board.id}/lists/${a.id}`)).status).toBe(403);
    expect((await w.as(t.reporter).delete(`/projects/${t.project.id}/boards/${board.id}/lists/${a.id}`)).status).toBe(204);
    expect(await positions(w, t, board)).toEqual([["B", 0]]);
    expect(await statusAndBody(await w.as(t.reporter).get(`/projects/${t.project.id}/boards/${board.id}/lists/${a.id}`))).toEqual([
      404,
      { message: "404 Not found" },
    ]);
  });
});

describe("GET /groups/:id/boards", () => {
  it("group boards: reporters create them with group label lists; members of the group read them", async () => {
    const w = await world();
    const reporter = await w.user();
    const guest = await w.user();
    const group = await w.group({ reporters: [reporter], guests: [guest] });
    const created = await w.as(reporter).post(`/groups/${group.id}/boards`, { json: { name: "Roadmap" } });
    expect(created.status).toBe(201);
    const board = (await created.json()) as Json;
    expect(board).toMatchObject({ name: "Roadmap", project: null, group: { id: group.id } });
    const label = (await (await w.as(reporter).post(`/groups/${group.id}/labels`, { json: { name: "Epic", color: "#00FF00" } })).json()) as Json;
    const list = await w.as(reporter).post(`/groups/${group.id}/boards/${board.id}/lists`, { json: { label_id: label.id } });
    expect(list.status).toBe(201);
    const read = (await (await w.as(guest).get(`/groups/${group.id}/boards`)).json()) as Json[];
    expect(read.map((b) => [b.name, b.lists.map((l: Json) => l.label.name)])).toEqual([["Roadmap", ["Epic"]]]);
    expect((await w.as(guest).post(`/groups/${group.id}/boards`, { json: { name: "x" } })).status).toBe(403);
  });
});
