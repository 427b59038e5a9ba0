import { describe, expect, it } from "vitest";
import { awardEmoji } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world, type TestUser, type World } from "../helpers/world";
import { awardsOf, expectFlat, issue, issueRow, mergeRequest, mergeRequestRow, note, snippet, todosOf, type Json } from "../helpers/noteables";

const AWARD_KEYS = ["id", "name", "user", "created_at", "updated_at", "awardable_id", "awardable_type"];

async function award(w: World, type: string, id: number, user: TestUser, name: string) {
  return w.db(async (db) => (await db.insert(awardEmoji).values({ awardableType: type, awardableId: id, userId: user.id, name }).returning())[0]);
}

describe("GET /projects/:id/issues/:issue_iid/award_emoji", () => {
  it("lists the issue's awards in order, paginated, also to anonymous callers of a public project", async () => {
    const w = await world();
    const a = await w.user();
    const b = await w.user();
    const project = await w.project({ visibility: "public" });
    const i = await issue(w, project);
    const first = await award(w, "Issue", i.id, a, "thumbsup");
    const second = await award(w, "Issue", i.id, b, "tada");
    const path = `/projects/${project.id}/issues/${i.iid}/award_emoji`;
    const res = await w.anonymous.get(path);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((x) => [x.id, x.name, x.user.id])).toEqual([[first.id, "thumbsup", a.id], [second.id, "tada", b.id]]);
    expect(Object.keys(body[0])).toEqual(AWARD_KEYS);
    expect(body[0]).toMatchObject({ awardable_id: i.id, awardable_type: "Issue", user: { username: a.username, web_url: `http://edgeforge.test/${a.username}` } });
    expect(res.headers.get("x-total")).toBe("2");
    const page = await w.anonymous.get(path, { query: { per_page: 1, page: 2 } });
    expect(((await page.json()) as Json[]).map((x) => x.id)).toEqual([second.id]);
    await expectFlat(w, a, path);
  });

  it("answers 404 Award Emoji Not Found for a confidential issue and 404 Not found for a missing one", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ guests: [guest] });
    const secret = await issue(w, project, { confidential: true });
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/issues/${secret.iid}/award_emoji`))).toEqual([
      404,
      { message: "404 Award Emoji Not Found" },
    ]);
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/issues/777777/award_emoji`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/issues/x/award_emoji`))).toEqual([400, { error: "issue_iid is invalid" }]);
  });

  hidesPrivateProject(async (w, project) => {
    const i = await issue(w, project);
    return w.as(w.stranger).get(`/projects/${project.id}/issues/${i.iid}/award_emoji`);
  });
});

describe("GET /projects/:id/issues/:issue_iid/award_emoji/:award_id", () => {
  it("returns one award; 404 Not found for another awardable's", async () => {
    const w = await world();
    const user = await w.user();
    const project = await w.project({ visibility: "public" });
    const i = await issue(w, project);
    const other = await issue(w, project);
    const mine = await award(w, "Issue", i.id, user, "heart");
    const elsewhere = await award(w, "Issue", other.id, user, "heart");
    const base = `/projects/${project.id}/issues/${i.iid}/award_emoji`;
    expect(await (await w.as(user).get(`${base}/${mine.id}`)).json()).toMatchObject({ id: mine.id, name: "heart", user: { id: user.id } });
    expect(await statusAndBody(await w.as(user).get(`${base}/${elsewhere.id}`))).toEqual([404, { message: "404 Not found" }]);
  });

  requiresAuthentication((w) => w.anonymous.get(`/projects/1/issues/1/award_emoji/1`));
});

describe("POST /projects/:id/issues/:issue_iid/award_emoji", () => {
  it("awards an emoji, counting thumbsup as an upvote and finishing the awarder's to-dos", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const res = await w.as(dev).post(`/projects/${project.id}/issues/${i.iid}/award_emoji`, { json: { name: "thumbsup" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(Object.keys(body)).toEqual(AWARD_KEYS);
    expect(body).toMatchObject({ name: "thumbsup", awardable_id: i.id, awardable_type: "Issue", user: { id: dev.id } });
    expect((await awardsOf(w, "Issue", i.id)).map((a) => [a.id, a.name, a.userId])).toEqual([[body.id, "thumbsup", dev.id]]);
    const row = await issueRow(w, i.id);
    expect([row.upvotes, row.downvotes]).toEqual([1, 0]);
    // Aliases are stored under the canonical name.
    const down = (await (await w.as(dev).post(`/projects/${project.id}/issues/${i.iid}/award_emoji`, { form: { name: "-1" } })).json()) as Json;
    expect(down.name).toBe("thumbsdown");
    expect((await issueRow(w, i.id)).downvotes).toBe(1);
    expect((await todosOf(w, dev.id, "Issue", i.id)).every((t) => t.state === "done")).toBe(true);
  });

  it("answers GitLab's errors for a missing, unknown or repeated name", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const path = `/projects/${project.id}/issues/${i.iid}/award_emoji`;
    expect(await statusAndBody(await w.as(dev).post(path, { json: {} }))).toEqual([400, { error: "name is missing" }]);
    expect(await statusAndBody(await w.as(dev).post(path, { json: { name: "no_such_emoji_zz" } }))).toEqual([
      404,
      { message: `404 Award Emoji ["Name is not a valid emoji name"] Not Found` },
    ]);
    expect((await w.as(dev).post(path, { json: { name: "rocket" } })).status).toBe(201);
    expect(await statusAndBody(await w.as(dev).post(path, { json: { name: "rocket" } }))).toEqual([
      404,
      { message: `404 Award Emoji ["Name has already been taken"] Not Found` },
    ]);
    expect((await awardsOf(w, "Issue", i.id)).length).toBe(1);
  });

  it("accepts gemoji's names and GitLab's picker names, stores aliases under GitLab's name, refuses skin tones", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const path = `/projects/${project.id}/issues/${i.iid}/award_emoji`;
    // Names the old hand-written list lacked: newer gemoji entries and gemoji's second names.
    for (const [sent, stored] of [["yo_yo", "yo_yo"], ["flying_saucer", "flying_saucer"], ["slight_smile", "slight_smile"], ["+1", "thumbsup"], ["poop", "hankey"], ["fist_oncoming", "fist_oncoming"]]) {
      const res = await w.as(dev).post(path, { json: { name: sent } });
      expect([sent, res.status, ((await res.json()) as Json).name]).toEqual([sent, 201, stored]);
    }
    for (const refused of ["thumbsup_tone1", "Thumbsup", "smile "]) {
      expect(await statusAndBody(await w.as(dev).post(path, { json: { name: refused } }))).toEqual([
        404,
        { message: `404 Award Emoji ["Name is not a valid emoji name"] Not Found` },
      ]);
    }
  });

  it("refuses who may not award (archived project, unreadable issue) with 404 Award Emoji Not Found", async () => {
    const w = await world();
    const dev = await w.user();
    const guest = await w.user();
    const archived = await w.project({ archived: true, developers: [dev] });
    const i = await issue(w, archived);
    expect(await statusAndBody(await w.as(dev).post(`/projects/${archived.id}/issues/${i.iid}/award_emoji`, { json: { name: "tada" } }))).toEqual([
      404,
      { message: "404 Award Emoji Not Found" },
    ]);
    const project = await w.project({ guests: [guest] });
    const secret = await issue(w, project, { confidential: true });
    expect((await w.as(guest).post(`/projects/${project.id}/issues/${secret.iid}/award_emoji`, { json: { name: "tada" } })).status).toBe(404);
  });

  requiresAuthentication((w) => w.anonymous.post(`/projects/1/issues/1/award_emoji`, { json: { name: "tada" } }));
});

describe("DELETE /projects/:id/issues/:issue_iid/award_emoji/:award_id", () => {
  it("removes the caller's award and its vote; 401 for someone else's, admins may", async () => {
    const w = await world();
    const dev = await w.user();
    const other = await w.user();
    const admin = await w.user({ admin: true });
    const project = await w.project({ developers: [dev, other] });
    const i = await issue(w, project);
    const up = (await (await w.as(dev).post(`/projects/${project.id}/issues/${i.iid}/award_emoji`, { json: { name: "thumbsup" } })).json()) as Json;
    const path = `/projects/${project.id}/issues/${i.iid}/award_emoji/${up.id}`;
    expect(await statusAndBody(await w.as(other).delete(path))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(dev).delete(path))).toEqual([204, ""]);
    expect(await awardsOf(w, "Issue", i.id)).toEqual([]);
    expect((await issueRow(w, i.id)).upvotes).toBe(0);
    expect(await statusAndBody(await w.as(dev).delete(path))).toEqual([404, { message: "404 Not found" }]);
    const again = await award(w, "Issue", i.id, other, "eyes");
    expect((await w.as(admin).delete(`/projects/${project.id}/issues/${i.iid}/award_emoji/${again.id}`)).status).toBe(204);
  });
});

describe("POST /projects/:id/merge_requests/:merge_request_iid/award_emoji", () => {
  it("awards on merge requests and counts their votes", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const mr = await mergeRequest(w, project);
    const body = (await (await w.as(dev).post(`/projects/${project.id}/merge_requests/${mr.iid}/award_emoji`, { json: { name: "thumbsup" } })).json()) as Json;
    expect(body).toMatchObject({ awardable_type: "MergeRequest", awardable_id: mr.id });
    expect((await mergeRequestRow(w, mr.id)).upvotes).toBe(1);
    const list = (await (await w.as(dev).get(`/projects/${project.id}/merge_requests/${mr.iid}/award_emoji`)).json()) as Json[];
    expect(list.map((a) => a.id)).toEqual([body.id]);
    expect((await w.as(dev).delete(`/projects/${project.id}/merge_requests/${mr.iid}/award_emoji/${body.id}`)).status).toBe(204);
    expect((await mergeRequestRow(w, mr.id)).upvotes).toBe(0);
  });
});

describe("POST /projects/:id/snippets/:snippet_id/award_emoji", () => {
  it("awards on snippets the caller may read", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ visibility: "public", developers: [dev] });
    const s = await snippet(w, project, { visibility: "private" });
    const body = (await (await w.as(dev).post(`/projects/${project.id}/snippets/${s.id}/award_emoji`, { json: { name: "star" } })).json()) as Json;
    expect(body).toMatchObject({ name: "star", awardable_type: "Snippet", awardable_id: s.id });
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/snippets/${s.id}/award_emoji`))).toEqual([
      404,
      { message: "404 Award Emoji Not Found" },
    ]);
  });
});

describe("POST /projects/:id/issues/:issue_iid/notes/:note_id/award_emoji", () => {
  it("awards on a note, not on system notes, and lists the note's awards", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const n = await note(w, "Issue", i.id, project.id, { author: dev });
    const sys = await note(w, "Issue", i.id, project.id, { author: dev, system: true });
    const base = `/projects/${project.id}/issues/${i.iid}/notes`;
    const res = await w.as(dev).post(`${base}/${n.id}/award_emoji`, { json: { name: "thumbsup" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ awardable_type: "Note", awardable_id: n.id, name: "thumbsup" });
    // A note's thumbsup is no vote on the issue.
    expect((await issueRow(w, i.id)).upvotes).toBe(0);
    expect(((await (await w.as(dev).get(`${base}/${n.id}/award_emoji`)).json()) as Json[]).map((a) => a.id)).toEqual([body.id]);
    expect(await (await w.as(dev).get(`${base}/${n.id}/award_emoji/${body.id}`)).json()).toMatchObject({ id: body.id });
    expect(await statusAndBody(await w.as(dev).post(`${base}/${sys.id}/award_emoji`, { json: { name: "thumbsup" } }))).toEqual([
      404,
      { message: "404 Award Emoji Awardable cannot be awarded emoji Not Found" },
    ]);
    expect(await statusAndBody(await w.as(dev).get(`${base}/99999999/award_emoji`))).toEqual([404, { message: "404 Not found" }]);
    expect((await w.as(dev).delete(`${base}/${n.id}/award_emoji/${body.id}`)).status).toBe(204);
    expect(await awardsOf(w, "Note", n.id)).toEqual([]);
  });

  it("treats a confidential note the caller may not read as unreadable", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ guests: [guest] });
    const i = await issue(w, project);
    const secret = await note(w, "Issue", i.id, project.id, { author: { id: 1 }, confidential: true });
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/issues/${i.iid}/notes/${secret.id}/award_emoji`))).toEqual([
      404,
      { message: "404 Award Emoji Not Found" },
    ]);
  });
});
