import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { awardEmoji, epics } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world, type World } from "../helpers/world";
import { epic, expectFlat, type Json } from "../helpers/noteables";

async function epicRow(w: World, id: number) {
  return w.db(async (db) => (await db.select().from(epics).where(eq(epics.id, id)))[0]);
}

describe("POST /groups/:id/epics", () => {
  it("creates an epic with the next group iid", async () => {
    const w = await world();
    const reporter = await w.user();
    const group = await w.group({ reporters: [reporter] });
    const res = await w.as(reporter).post(`/groups/${group.id}/epics`, { json: { title: " Roadmap ", description: "big", confidential: true, labels: "a,b" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      iid: 1,
      group_id: group.id,
      title: "Roadmap",
      description: "big",
      confidential: true,
      state: "opened",
      author: { id: reporter.id },
      labels: ["a", "b"],
      upvotes: 0,
      downvotes: 0,
      parent_id: null,
      references: { short: "&1", relative: "&1", full: `${group.fullPath}&1` },
      web_url: `http://edgeforge.test/groups/${group.fullPath}/-/epics/1`,
      _links: {
        self: `http://edgeforge.test/api/v4/groups/${group.id}/epics/1`,
        epic_issues: `http://edgeforge.test/api/v4/groups/${group.id}/epics/1/issues`,
        group: `http://edgeforge.test/api/v4/groups/${group.id}`,
        parent: null,
      },
    });
    expect(await epicRow(w, body.id)).toMatchObject({ iid: 1, groupId: group.id, authorId: reporter.id, confidential: true });
    const second = (await (await w.as(reporter).post(`/groups/${group.id}/epics`, { form: { title: "Next" } })).json()) as Json;
    expect(second.iid).toBe(2);
  });

  it("takes start_date, end_date, their is_fixed flags and parent_id, as ee/lib/api/epics.rb declares them", async () => {
    const w = await world();
    const reporter = await w.user();
    const group = await w.group({ reporters: [reporter] });
    const api = w.as(reporter);
    const parent = (await (await api.post(`/groups/${group.id}/epics`, { json: { title: "Parent" } })).json()) as Json;
    const res = await api.post(`/groups/${group.id}/epics`, {
      json: { title: "Child", start_date: "2030-01-02", start_date_is_fixed: true, end_date: "2030-03-04", parent_id: parent.id },
    });
    expect(res.status).toBe(201);
    const child = (await res.json()) as Json;
    expect(child).toMatchObject({
      parent_id: parent.id,
      start_date_fixed: "2030-01-02",
      start_date_is_fixed: true,
      start_date: "2030-01-02",
      due_date_fixed: "2030-03-04",
      due_date_is_fixed: false,
      due_date: null,
    });
    // EpicLinks::CreateService's system notes on both epics.
    const noteBodies = async (e: Json, groupId: number) =>
      ((await (await api.get(`/groups/${groupId}/epics/${e.id}/notes`)).json()) as Json[]).filter((n) => n.system).map((n) => n.body);
    expect(await noteBodies(parent, group.id)).toEqual([`added epic &${child.iid} as child epic`]);
    expect(await noteBodies(child, group.id)).toEqual([`added epic &${parent.iid} as parent epic`]);
    // A parent outside the group's tree is not found (`find_epics(group_id:)`, as on update).
    const other = await w.group({ reporters: [reporter] });
    expect((await api.post(`/groups/${other.id}/epics`, { json: { title: "Elsewhere", parent_id: parent.id } })).status).toBe(404);
  });

  it("refuses a parent the new epic may not have: 404 for an unknown one, 400 with Epic#validate_parent's message", async () => {
    const w = await world();
    const reporter = await w.user();
    const group = await w.group({ reporters: [reporter] });
    const api = w.as(reporter);
    const secret = (await (await api.post(`/groups/${group.id}/epics`, { json: { title: "Secret", confidential: true } })).json()) as Json;
    expect(await statusAndBody(await api.post(`/groups/${group.id}/epics`, { json: { title: "Open", parent_id: secret.id } }))).toEqual([
      400,
      { message: { parent: ["This epic cannot be added. A non-confidential epic cannot be added to a confidential parent epic."] } },
    ]);
    expect(await statusAndBody(await api.post(`/groups/${group.id}/epics`, { json: { title: "Orphan", parent_id: 2147483600 } }))).toEqual([
      404,
      { message: "404 Not found" },
    ]);
    const list = (await (await api.get(`/groups/${group.id}/epics`)).json()) as Json[];
    expect(list.map((e) => e.title)).toEqual(["Secret"]);
  });

  it("answers 400 for a missing or blank title and 403 below reporter", async () => {
    const w = await world();
    const reporter = await w.user();
    const guest = await w.user();
    const group = await w.group({ reporters: [reporter], guests: [guest] });
    const path = `/groups/${group.id}/epics`;
    expect(await statusAndBody(await w.as(reporter).post(path, { json: {} }))).toEqual([400, { error: "title is missing" }]);
    expect(await statusAndBody(await w.as(reporter).post(path, { json: { title: "  " } }))).toEqual([400, { message: { title: ["can't be blank"] } }]);
    expect(await statusAndBody(await w.as(guest).post(path, { json: { title: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(path, { json: { title: "x" } }))).toEqual([404, { message: "404 Group Not Found" }]);
  });

  it("sets created_at for group owners only", async () => {
    const w = await world();
    const owner = await w.user();
    const reporter = await w.user();
    const group = await w.group({ owners: [owner], reporters: [reporter] });
    const when = "2019-03-04T05:06:07.000Z";
    const byOwner = (await (await w.as(owner).post(`/groups/${group.id}/epics`, { json: { title: "old", created_at: when } })).json()) as Json;
    expect(byOwner.created_at).toBe(when);
    const byReporter = (await (await w.as(reporter).post(`/groups/${group.id}/epics`, { json: { title: "now", created_at: when } })).json()) as Json;
    expect(byReporter.created_at).not.toBe(when);
  });

  requiresAuthentication((w) => w.anonymous.post(`/groups/1/epics`, { json: { title: "x" } }));
});

describe("GET /groups/:id/epics", () => {
  it("lists the group's and its subgroups' epics, newest first, with filters", async () => {
    const w = await world();
    const member = await w.user();
    const group = await w.group({ visibility: "public", reporters: [member] });
    const sub = await w.group({ parent: group, visibility: "public" });
    const a = await epic(w, group, { title: "alpha plan", author: member });
    const b = await epic(w, sub, { title: "beta" });
    const secret = await epic(w, group, { title: "gamma", confidential: true });
    const path = `/groups/${group.id}/epics`;
    const res = await w.as(member).get(path);
    expect(((await res.json()) as Json[]).map((e) => e.id)).toEqual([secret.id, b.id, a.id]);
    expect(res.headers.get("x-total")).toBe("3");
    const anon = (await (await w.anonymous.get(path)).json()) as Json[];
    expect(anon.map((e) => e.id)).toEqual([b.id, a.id]);
    expect(anon[0].references).toEqual({ short: "&1", relative: `${sub.fullPath}&1`, full: `${sub.fullPath}&1` });
    const only = async (query: Record<string, string | number>) => ((await (await w.as(member).get(path, { query })).json()) as Json[]).map((e) => e.id);
    expect(await only({ search: "PLAN" })).toEqual([a.id]);
    expect(await only({ author_id: member.id })).toEqual([a.id]);
    expect(await only({ include_descendant_groups: "false", sort: "asc" })).toEqual([a.id, secret.id]);
    expect(await only({ confidential: "true" })).toEqual([secret.id]);
    expect(await only({ state: "closed" })).toEqual([]);
    expect(await statusAndBody(await w.as(member).get(path, { query: { state: "done" } }))).toEqual([400, { error: "state does not have a valid value" }]);
    await expectFlat(w, member, path);
  });

  it("counts thumbs as votes", async () => {
    const w = await world();
    const member = await w.user();
    const group = await w.group({ guests: [member] });
    const e = await epic(w, group);
    await w.db((db) => db.insert(awardEmoji).values({ awardableType: "Epic", awardableId: e.id, userId: member.id, name: "thumbsup" }));
    const [body] = (await (await w.as(member).get(`/groups/${group.id}/epics`)).json()) as Json[];
    expect([body.upvotes, body.downvotes]).toEqual([1, 0]);
  });
});

describe("GET /groups/:id/epics/:epic_iid", () => {
  it("returns the epic by iid, and 403 for a missing or unreadable one (as GitLab)", async () => {
    const w = await world();
    const guest = await w.user();
    const group = await w.group({ guests: [guest] });
    const e = await epic(w, group, { title: "visible" });
    const secret = await epic(w, group, { confidential: true });
    expect(await (await w.as(guest).get(`/groups/${group.id}/epics/${e.iid}`)).json()).toMatchObject({ id: e.id, iid: e.iid, title: "visible" });
    expect(await statusAndBody(await w.as(guest).get(`/groups/${group.id}/epics/${secret.iid}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(guest).get(`/groups/${group.id}/epics/999`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/epics/${e.iid}`))).toEqual([404, { message: "404 Group Not Found" }]);
  });
});
