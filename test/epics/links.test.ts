import { beforeAll, describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type TestGroup, type TestUser, type World } from "../helpers/world";

type Json = Record<string, any>;

let w: World;
let reporter: TestUser;
let guest: TestUser;
let group: TestGroup;

beforeAll(async () => {
  w = await world();
  reporter = await w.user();
  guest = await w.user();
  group = await w.group({ reporters: [reporter], guests: [guest] });
});

async function newEpic(g: TestGroup, title: string, extra: Json = {}): Promise<Json> {
  const res = await w.as(reporter).post(`/groups/${g.id}/epics`, { json: { title, ...extra } });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}

const links = (g: TestGroup, parent: Json) => `/groups/${g.id}/epics/${parent.iid}/epics`;

describe("POST /groups/:id/epics/:epic_iid/epics/:child_epic_id", () => {
  it("relates an existing epic as the first child, and moves a child from another parent", async () => {
    const parent = await newEpic(group, "parent");
    const other = await newEpic(group, "other parent");
    const a = await newEpic(group, "a");
    const b = await newEpic(group, "b");
    const first = await w.as(reporter).post(`${links(group, parent)}/${a.id}`);
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({ id: a.id, parent_id: parent.id, parent_iid: parent.iid });
    expect((await w.as(reporter).post(`${links(group, parent)}/${b.id}`)).status).toBe(201);
    const children = (await (await w.as(reporter).get(links(group, parent))).json()) as Json[];
    expect(children.map((e) => e.id)).toEqual([b.id, a.id]); // move_to_start: the newest link first

    const moved = await w.as(reporter).post(`${links(group, other)}/${a.id}`);
    expect(moved.status).toBe(201);
    expect(((await (await w.as(reporter).get(links(group, parent))).json()) as Json[]).map((e) => e.id)).toEqual([b.id]);
    expect(((await (await w.as(reporter).get(links(group, other))).json()) as Json[]).map((e) => e.id)).toEqual([a.id]);
  });

  it("refuses what Epic#validate_parent refuses, with 409 and GitLab's message", async () => {
    const parent = await newEpic(group, "p");
    const child = await newEpic(group, "c");
    await w.as(reporter).post(`${links(group, parent)}/${child.id}`);
    const refuse = async (p: Json, c: Json, message: string) =>
      expect(await statusAndBody(await w.as(reporter).post(`${links(group, p)}/${c.id}`))).toEqual([409, { message }]);
    await refuse(parent, parent, "This epic cannot be added. An epic cannot be added to itself.");
    await refuse(parent, child, "This epic cannot be added. It is already assigned to the parent epic.");
    await refuse(child, parent, "This epic cannot be added. It is already an ancestor of the parent epic.");
    const secret = await newEpic(group, "secret", { confidential: true });
    await refuse(secret, await newEpic(group, "open"), "This epic cannot be added. A non-confidential epic cannot be added to a confidential parent epic.");
  });

  it("keeps a tree within 7 levels", async () => {
    const chain = [await newEpic(group, "level 1")];
    for (let level = 2; level <= 7; level++) {
      const res = await w.as(reporter).post(links(group, chain[chain.length - 1]), { json: { title: `level ${level}` } });
      expect(res.status).toBe(201);
      chain.push((await res.json()) as Json);
    }
    const eighth = await newEpic(group, "too deep");
    expect(await statusAndBody(await w.as(reporter).post(`${links(group, chain[6])}/${eighth.id}`))).toEqual([
      409,
      { message: "This epic cannot be added. One or more epics would exceed the maximum depth (7) from its most distant ancestor." },
    ]);
    expect(await statusAndBody(await w.as(reporter).post(links(group, chain[6]), { json: { title: "too deep" } }))).toEqual([
      400,
      { message: { parent: ["This epic cannot be added. One or more epics would exceed the maximum depth (7) from its most distant ancestor."] } },
    ]);
    // A two-level subtree fits under level 5 (levels 6 and 7), not under level 6.
    const top = await newEpic(group, "subtree top");
    await w.as(reporter).post(links(group, top), { json: { title: "subtree leaf" } });
    expect((await w.as(reporter).post(`${links(group, chain[5])}/${top.id}`)).status).toBe(409);
    expect((await w.as(reporter).post(`${links(group, chain[4])}/${top.id}`)).status).toBe(201);
  });

  it("links epics of subgroups under a parent group's epic, never the other way", async () => {
    const subgroup = await w.group({ parent: group });
    const parent = await newEpic(group, "group epic");
    const sub = await newEpic(subgroup, "subgroup epic");
    expect((await w.as(reporter).post(`${links(group, parent)}/${sub.id}`)).status).toBe(201);
    const subParent = await newEpic(subgroup, "subgroup parent");
    const up = await newEpic(group, "group child");
    // The group epic is outside the subgroup's tree: not found from there.
    expect(await statusAndBody(await w.as(reporter).post(`${links(subgroup, subParent)}/${up.id}`))).toEqual([
      404,
      { message: "No matching epic found. Make sure that you are adding a valid epic URL." },
    ]);
  });

  it("answers 401, 403 and 404 by caller", async () => {
    const parent = await newEpic(group, "perm parent");
    const child = await newEpic(group, "perm child");
    const path = `${links(group, parent)}/${child.id}`;
    expect((await w.anonymous.post(path)).status).toBe(401);
    expect(await statusAndBody(await w.as(guest).post(path))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(path))).toEqual([404, { message: "404 Group Not Found" }]);
    expect(await statusAndBody(await w.as(reporter).post(`/groups/${group.id}/epics/99999/epics/${child.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(reporter).post(`${links(group, parent)}/abc`))).toEqual([400, { error: "child_epic_id is invalid" }]);
    expect((await w.as(reporter).post(`${links(group, parent)}/99999999999`)).status).toBe(404);
  });
});

describe("POST /groups/:id/epics/:epic_iid/epics", () => {
  it("creates a child and answers the compact entity", async () => {
    const parent = await newEpic(group, "compact parent");
    const res = await w.as(reporter).post(links(group, parent), { json: { title: " child " } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(Object.keys(body).sort()).toEqual(["group_id", "has_children", "has_issues", "id", "iid", "parent_id", "reference", "relation_url", "title", "url"]);
    expect(body).toMatchObject({
      title: "child",
      group_id: group.id,
      parent_id: parent.id,
      has_children: false,
      has_issues: false,
      reference: `&${body.iid}`,
      url: `http://edgeforge.test/groups/${group.fullPath}/-/epics/${body.iid}`,
      relation_url: `http://edgeforge.test/groups/${group.fullPath}/-/epics/${parent.iid}/links/${body.id}`,
    });
  });

  it("inherits the parent's confidentiality unless told, and validates the title", async () => {
    const secret = await newEpic(group, "secret parent", { confidential: true });
    const child = (await (await w.as(reporter).post(links(group, secret), { json: { title: "inherits" } })).json()) as Json;
    const full = (await (await w.as(reporter).get(`/groups/${group.id}/epics/${child.iid}`)).json()) as Json;
    expect(full.confidential).toBe(true);
    expect(await statusAndBody(await w.as(reporter).post(links(group, secret), { json: {} }))).toEqual([400, { error: "title is missing" }]);
    expect(await statusAndBody(await w.as(reporter).post(links(group, secret), { json: { title: " " } }))).toEqual([400, { message: { title: ["can't be blank"] } }]);
    expect(await statusAndBody(await w.as(guest).post(links(group, secret), { json: { title: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("GET /groups/:id/epics/:epic_iid/epics", () => {
  it("lists readable children only, and needs a user", async () => {
    const parent = await newEpic(group, "list parent");
    await w.as(reporter).post(links(group, parent), { json: { title: "open child" } });
    await w.as(reporter).post(links(group, parent), { json: { title: "secret child", confidential: true } });
    const asReporter = (await (await w.as(reporter).get(links(group, parent))).json()) as Json[];
    expect(asReporter.map((e) => e.title).sort()).toEqual(["open child", "secret child"]);
    const asGuest = (await (await w.as(guest).get(links(group, parent))).json()) as Json[];
    expect(asGuest.map((e) => e.title)).toEqual(["open child"]);
    expect((await w.anonymous.get(links(group, parent))).status).toBe(401);
    expect((await w.as(w.stranger).get(links(group, parent))).status).toBe(404);
  });
});

describe("PUT /groups/:id/epics/:epic_iid/epics/:child_epic_id", () => {
  it("moves a child between its siblings", async () => {
    const parent = await newEpic(group, "order parent");
    const ids: number[] = [];
    for (const title of ["x", "y", "z"]) {
      const created = (await (await w.as(reporter).post(links(group, parent), { json: { title } })).json()) as Json;
      ids.push(created.id);
    }
    const [x, y, z] = ids; // created in this order, each moved to the start: z, y, x
    const order = async () => ((await (await w.as(reporter).get(links(group, parent))).json()) as Json[]).map((e) => e.id);
    expect(await order()).toEqual([z, y, x]);
    const res = await w.as(reporter).put(`${links(group, parent)}/${z}`, { json: { move_before_id: x } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json[]).map((e) => e.id)).toEqual([y, x, z]);
    await w.as(reporter).put(`${links(group, parent)}/${x}`, { json: { move_after_id: y } });
    expect(await order()).toEqual([x, y, z]);
    const stranger = await newEpic(group, "not a sibling");
    expect(await statusAndBody(await w.as(reporter).put(`${links(group, parent)}/${x}`, { json: { move_before_id: stranger.id } }))).toEqual([
      404,
      { message: "Epic not found for given params" },
    ]);
    expect((await w.as(guest).put(`${links(group, parent)}/${x}`, { json: { move_before_id: y } })).status).toBe(403);
  });
});

describe("DELETE /groups/:id/epics/:epic_iid/epics/:child_epic_id", () => {
  it("unassigns the child and answers it with parent_id null", async () => {
    const parent = await newEpic(group, "unlink parent");
    const child = (await (await w.as(reporter).post(links(group, parent), { json: { title: "leaving" } })).json()) as Json;
    const res = await w.as(reporter).delete(`${links(group, parent)}/${child.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: child.id, parent_id: null, parent_iid: null, _links: { parent: null } });
    expect(await (await w.as(reporter).get(links(group, parent))).json()).toEqual([]);
    expect((await w.as(guest).delete(`${links(group, parent)}/${child.id}`)).status).toBe(403);
    expect(await statusAndBody(await w.as(reporter).delete(`${links(group, parent)}/99999999`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("the ids the epic-link and epic-issue routes take (ee/lib/api/epic_links.rb, epic_issues.rb)", () => {
  it("an administrator who is no member links by global ids, and unlinks an issue by the link's id", async () => {
    const admin = await w.user({ admin: true });
    const owner = await w.user();
    const target = await w.group({ owners: [owner] });
    const project = await w.project({ group: await w.group({ parent: target }) });
    // Epics and issues elsewhere first, so that no global id equals an iid below.
    const noise = await w.project({ group });
    for (let i = 0; i < 3; i++) {
      await newEpic(group, "noise");
      await w.as(reporter).post(`/projects/${noise.id}/issues`, { json: { title: "noise" } });
    }
    const as = w.as(admin);
    const make = async (title: string) => (await (await as.post(`/groups/${target.id}/epics`, { json: { title } })).json()) as Json;
    const [parent, a, b] = [await make("parent"), await make("a"), await make("b")];
    expect(a.id).not.toBe(a.iid);
    const childPath = (e: Json) => `/groups/${target.id}/epics/${parent.iid}/epics/${e.id}`;
    expect(await statusAndBody(await as.post(`/groups/${target.id}/epics/${parent.iid}/epics/${a.iid}`))).toEqual([
      404,
      { message: "No matching epic found. Make sure that you are adding a valid epic URL." },
    ]);
    expect((await as.post(childPath(a))).status).toBe(201);
    expect((await as.post(childPath(b))).status).toBe(201);
    const reordered = await as.put(childPath(a), { json: { move_after_id: b.id } });
    expect(reordered.status).toBe(200);
    expect(((await reordered.json()) as Json[]).map((e) => e.id)).toEqual([a.id, b.id]);
    const unlinked = await as.delete(childPath(a));
    expect(unlinked.status).toBe(200);
    expect(await unlinked.json()).toMatchObject({ id: a.id, parent_id: null });

    const issue = (await (await as.post(`/projects/${project.id}/issues`, { json: { title: "i" } })).json()) as Json;
    expect(issue.id).not.toBe(issue.iid);
    const issuesPath = `/groups/${target.id}/epics/${parent.iid}/issues`;
    const assigned = await as.post(`${issuesPath}/${issue.id}`);
    expect(assigned.status).toBe(201);
    const link = (await assigned.json()) as Json;
    expect(link).toMatchObject({ issue: { id: issue.id }, epic: { id: parent.id } });
    expect(link.id).not.toBe(issue.id);
    expect((await as.delete(`${issuesPath}/${issue.id}`)).status).toBe(404);
    expect((await as.delete(`${issuesPath}/${link.id}`)).status).toBe(200);
  });
});
