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
  [reporter, guest] = [await w.user(), await w.user()];
  group = await w.group({ reporters: [reporter], guests: [guest], visibility: "private" });
});

async function newEpic(title: string, extra: Json = {}): Promise<Json> {
  const res = await w.as(reporter).post(`/groups/${group.id}/epics`, { json: { title, ...extra } });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}

describe("GET /groups/:id/epics/:epic_id/resource_state_events", () => {
  it("lists the close and reopen of the epic, oldest first, by its id; paginated; one event by id", async () => {
    const e = await newEpic("stateful");
    const api = w.as(reporter);
    expect((await api.put(`/groups/${group.id}/epics/${e.iid}`, { json: { state_event: "close" } })).status).toBe(200);
    expect((await api.put(`/groups/${group.id}/epics/${e.iid}`, { json: { state_event: "reopen" } })).status).toBe(200);
    const res = await api.get(`/groups/${group.id}/epics/${e.id}/resource_state_events`);
    const [status, body] = await statusAndBody(res);
    expect(status).toBe(200);
    expect(res.headers.get("x-total")).toBe("2");
    const events = body as Json[];
    expect(events.map((ev) => [ev.resource_type, ev.resource_id, ev.state, ev.user.username])).toEqual([
      ["Epic", e.id, "closed", reporter.username],
      ["Epic", e.id, "reopened", reporter.username],
    ]);
    expect(Object.keys(events[0])).toEqual(["id", "user", "created_at", "resource_type", "resource_id", "state"]);
    const second = await api.get(`/groups/${group.id}/epics/${e.id}/resource_state_events`, { query: { per_page: "1", page: "2" } });
    expect(((await second.json()) as Json[]).map((ev) => ev.state)).toEqual(["reopened"]);
    expect(second.headers.get("x-total-pages")).toBe("2");
    expect(await statusAndBody(await api.get(`/groups/${group.id}/epics/${e.id}/resource_state_events/${events[0].id}`))).toEqual([200, events[0]]);
    // An epic never closed has none; an event of another epic is not this one's.
    const quiet = await newEpic("quiet");
    expect(await statusAndBody(await api.get(`/groups/${group.id}/epics/${quiet.id}/resource_state_events`))).toEqual([200, []]);
    expect(await statusAndBody(await api.get(`/groups/${group.id}/epics/${quiet.id}/resource_state_events/${events[0].id}`))).toEqual([404, { message: "404 Not found" }]);
  });

  it("401 anonymous; 404 for non-members of the private group, a missing epic or event, and a confidential epic for guests", async () => {
    const e = await newEpic("guarded");
    const secret = await newEpic("secret", { confidential: true });
    const url = `/groups/${group.id}/epics/${e.id}/resource_state_events`;
    expect(await statusAndBody(await w.anonymous.get(url))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(url))).toEqual([404, { message: "404 Group Not Found" }]);
    expect(await statusAndBody(await w.as(guest).get(url))).toEqual([200, []]);
    expect(await statusAndBody(await w.as(guest).get(`/groups/${group.id}/epics/${secret.id}/resource_state_events`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(reporter).get(`/groups/${group.id}/epics/2147483647/resource_state_events`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(reporter).get(`${url}/2147483648`))).toEqual([404, { message: "404 Not found" }]);
    // The epic's iid is not its id: another group's epic by id is 404 here.
    const other = await w.group({ reporters: [reporter] });
    const foreign = (await (await w.as(reporter).post(`/groups/${other.id}/epics`, { json: { title: "elsewhere" } })).json()) as Json;
    expect(await statusAndBody(await w.as(reporter).get(`/groups/${group.id}/epics/${foreign.id}/resource_state_events`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("GET /groups/:id/epics/:epic_id/resource_label_events", () => {
  it("lists the label adds and removes of the epic with their labels", async () => {
    const e = await newEpic("labelled", { labels: "alpha" });
    const api = w.as(reporter);
    expect((await api.put(`/groups/${group.id}/epics/${e.iid}`, { json: { remove_labels: "alpha", add_labels: "beta" } })).status).toBe(200);
    const [status, body] = await statusAndBody(await api.get(`/groups/${group.id}/epics/${e.id}/resource_label_events`));
    expect(status).toBe(200);
    const events = body as Json[];
    expect(events.map((ev) => [ev.resource_type, ev.resource_id, ev.action, ev.label.name]).sort()).toEqual(
      [
        ["Epic", e.id, "add", "alpha"],
        ["Epic", e.id, "add", "beta"],
        ["Epic", e.id, "remove", "alpha"],
      ].sort(),
    );
    expect(Object.keys(events[0])).toEqual(["id", "user", "created_at", "resource_type", "resource_id", "label", "action"]);
    expect(await statusAndBody(await api.get(`/groups/${group.id}/epics/${e.id}/resource_label_events/${events[0].id}`))).toEqual([200, events[0]]);
  });
});
