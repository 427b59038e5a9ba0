import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type World } from "../helpers/world";
import type { Json } from "../helpers/api";

/** A date `days` from today (UTC), as YYYY-MM-DD. */
const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const titles = async (res: Response) => ((await res.json()) as Json[]).map((i) => i.title);

async function createIteration(w: World, token: string, groupId: number, json: Json): Promise<Json> {
  const res = await w.as(token).post(`/groups/${groupId}/iterations`, { json });
  if (res.status !== 201) throw new Error(`create iteration: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

describe("POST /groups/:id/iterations", () => {
  it("creates an iteration with the group's next iid (201) for reporters", async () => {
    const w = await world();
    const reporter = await w.user();
    const group = await w.group({ reporters: [reporter] });
    const later = await createIteration(w, reporter.token, group.id, { title: "Sprint 2", start_date: day(20), due_date: day(30) });
    expect(later).toEqual({
      id: expect.any(Number),
      iid: 1,
      sequence: 1,
      group_id: group.id,
      title: "Sprint 2",
      description: null,
      state: 1,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      start_date: day(20),
      due_date: day(30),
      web_url: expect.stringMatching(new RegExp(`/groups/${group.fullPath}/-/iterations/${later.id}$`)),
    });
    const now = await createIteration(w, reporter.token, group.id, { title: "Sprint 1", description: "d", start_date: day(-2), due_date: day(5) });
    // The sequence follows the start dates: the earlier iteration comes first.
    expect([now.iid, now.sequence, now.state, now.description]).toEqual([2, 1, 2, "d"]);
    const untitled = await createIteration(w, reporter.token, group.id, { start_date: day(-30), due_date: day(-20) });
    expect([untitled.title, untitled.state, untitled.iid]).toEqual([null, 3, 3]);
  });

  it("answers Rails' validation errors: blank or bad dates, order, overlap, far future, taken title", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const post = (json: Json) => w.as(owner).post(`/groups/${group.id}/iterations`, { json });
    expect(await statusAndBody(await post({ title: "x" }))).toEqual([400, { message: { start_date: ["can't be blank"], due_date: ["can't be blank"] } }]);
    expect(await statusAndBody(await post({ start_date: "2030-02-30", due_date: "2030-03-01" }))).toEqual([400, { message: { start_date: ["can't be blank"] } }]);
    expect(await statusAndBody(await post({ start_date: "2030-02-10", due_date: "2030-02-01" }))).toEqual([
      400,
      { message: { due_date: ["must be greater than start date"] } },
    ]);
    expect(await statusAndBody(await post({ start_date: "2030-01-01", due_date: "2600-01-01" }))).toEqual([
      400,
      { message: { due_date: ["cannot be more than 500 years in the future"] } },
    ]);
    await createIteration(w, owner.token, group.id, { title: "A", start_date: "2030-01-01", due_date: "2030-01-14" });
    expect(await statusAndBody(await post({ title: "A", start_date: "2030-01-14", due_date: "2030-01-20" }))).toEqual([
      400,
      { message: { base: ["Dates cannot overlap with other existing Iterations within this group"], title: ["has already been taken"] } },
    ]);
    // Adjacent iterations do not overlap; a subgroup's dates are its own.
    expect((await post({ title: "B", start_date: "2030-01-15", due_date: "2030-01-28" })).status).toBe(201);
    const sub = await w.group({ parent: group });
    expect((await w.as(owner).post(`/groups/${sub.id}/iterations`, { json: { title: "A", start_date: "2030-01-01", due_date: "2030-01-14" } })).status).toBe(201);
    expect(await statusAndBody(await post({ start_date: 5, due_date: [] }))).toEqual([400, { error: "due_date is invalid" }]);
  });

  it("is refused to guests (403), anonymous callers (401) and unknown groups (404)", async () => {
    const w = await world();
    const guest = await w.user();
    const group = await w.group({ guests: [guest], visibility: "public" });
    const json = { start_date: "2031-01-01", due_date: "2031-01-02" };
    expect((await w.as(guest).post(`/groups/${group.id}/iterations`, { json })).status).toBe(403);
    expect((await w.anonymous.post(`/groups/${group.id}/iterations`, { json })).status).toBe(401);
    const hidden = await w.group();
    expect(await statusAndBody(await w.as(guest).post(`/groups/${hidden.id}/iterations`, { json }))).toEqual([404, { message: "404 Group Not Found" }]);
  });
});

describe("GET /groups/:id/iterations", () => {
  it("lists by due date with ancestors, filters by state and search, and pages", async () => {
    const w = await world();
    const owner = await w.user();
    const guest = await w.user();
    const root = await w.group({ owners: [owner] });
    const group = await w.group({ parent: root, guests: [guest] });
    await createIteration(w, owner.token, root.id, { title: "root past", start_date: day(-40), due_date: day(-35) });
    await createIteration(w, owner.token, group.id, { title: "future", start_date: day(10), due_date: day(20) });
    await createIteration(w, owner.token, group.id, { title: "now", start_date: day(-1), due_date: day(3) });
    await createIteration(w, owner.token, group.id, { title: "past", start_date: day(-10), due_date: day(-5) });
    const list = (query: Json = {}) => w.as(guest).get(`/groups/${group.id}/iterations`, { query });
    const all = await list();
    expect(await titles(all)).toEqual(["root past", "past", "now", "future"]);
    expect(all.headers.get("x-total")).toBe("4");
    expect(await titles(await list({ include_ancestors: false }))).toEqual(["past", "now", "future"]);
    expect(await titles(await list({ state: "opened" }))).toEqual(["now", "future"]);
    expect(await titles(await list({ state: "upcoming" }))).toEqual(["future"]);
    expect(await titles(await list({ state: "current" }))).toEqual(["now"]);
    expect(await titles(await list({ state: "started" }))).toEqual(["now"]);
    expect(await titles(await list({ state: "closed" }))).toEqual(["root past", "past"]);
    expect(await titles(await list({ search: "fut" }))).toEqual(["future"]);
    const page2 = await list({ per_page: 3, page: 2 });
    expect(await titles(page2)).toEqual(["future"]);
    expect([page2.headers.get("x-total"), page2.headers.get("x-total-pages"), page2.headers.get("x-prev-page")]).toEqual(["4", "2", "1"]);
    expect(await statusAndBody(await list({ state: "active" }))).toEqual([400, { error: "state does not have a valid value" }]);
  });

  it("is readable by whoever reads the group: anonymous for public groups, 404 for private ones", async () => {
    const w = await world();
    const owner = await w.user();
    const open = await w.group({ owners: [owner], visibility: "public" });
    await createIteration(w, owner.token, open.id, { title: "p", start_date: day(1), due_date: day(2) });
    expect(await titles(await w.anonymous.get(`/groups/${open.id}/iterations`))).toEqual(["p"]);
    const closed = await w.group({ owners: [owner] });
    expect(await statusAndBody(await w.anonymous.get(`/groups/${closed.id}/iterations`))).toEqual([404, { message: "404 Group Not Found" }]);
    expect((await w.as(w.stranger).get(`/groups/${closed.id}/iterations`)).status).toBe(404);
    expect((await w.as(owner).get(`/groups/${closed.id}/iterations`)).status).toBe(200);
  });
});

describe("GET /projects/:id/iterations", () => {
  it("lists the iterations of the project's group and its ancestors", async () => {
    const w = await world();
    const owner = await w.user();
    const root = await w.group({ owners: [owner] });
    const group = await w.group({ parent: root });
    const project = await w.project({ group });
    await createIteration(w, owner.token, root.id, { title: "root", start_date: day(1), due_date: day(2) });
    await createIteration(w, owner.token, group.id, { title: "own", start_date: day(5), due_date: day(6) });
    const list = (query: Json = {}) => w.as(owner).get(`/projects/${project.id}/iterations`, { query });
    expect(await titles(await list())).toEqual(["root", "own"]);
    expect(await titles(await list({ include_ancestors: false }))).toEqual(["own"]);
    expect(await titles(await list({ per_page: 1 }))).toEqual(["root"]);
  });

  it("answers an empty list for a user's project and 404 to those who cannot read the project", async () => {
    const w = await world();
    const owner = await w.user();
    const mine = await w.project({ owner });
    expect(await statusAndBody(await w.as(owner).get(`/projects/${mine.id}/iterations`))).toEqual([200, []]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${mine.id}/iterations`))).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await w.anonymous.get(`/projects/${mine.id}/iterations`)).status).toBe(404);
  });
});
