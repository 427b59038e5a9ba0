import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { events } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world, type TestProject, type TestUser, type World } from "../helpers/world";
import { commitOn } from "../helpers/commits";

type Json = Record<string, any>;

async function openIssue(w: World, u: TestUser, project: TestProject, extra: Record<string, unknown> = {}) {
  const res = await w.as(u).post(`/projects/${project.id}/issues`, { json: { title: `Issue ${Math.random()}`, ...extra } });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}

async function eventRows(w: World, project: TestProject) {
  return w.db((db) => db.select().from(events).where(eq(events.projectId, project.id)).orderBy(events.id));
}

describe("events triggers (the one writer)", () => {
  it("records created, commented, closed, reopened, joined, left and pushed with GitLab's action names", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner, visibility: "public" });
    const api = w.as(owner);
    const issue = await openIssue(w, owner, project);
    const noteRes = await api.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { json: { body: "a comment" } });
    expect(noteRes.status).toBe(201);
    const note = (await noteRes.json()) as Json;
    expect((await api.put(`/projects/${project.id}/issues/${issue.iid}`, { json: { state_event: "close" } })).status).toBe(200);
    expect((await api.put(`/projects/${project.id}/issues/${issue.iid}`, { json: { state_event: "reopen" } })).status).toBe(200);
    const dev = await w.user();
    expect((await api.post(`/projects/${project.id}/members`, { json: { user_id: dev.id, access_level: 30 } })).status).toBe(201);
    expect((await api.delete(`/projects/${project.id}/members/${dev.id}`)).status).toBe(204);
    const c1 = await commitOn(api, project, "main", "First line\n\nbody", [{ action: "create", file_path: "a.txt", content: "a" }]);
    const c2 = await commitOn(api, project, "main", "Second", [{ action: "create", file_path: "b.txt", content: "b" }]);
    const c3 = await commitOn(api, project, "feature", "Third on a branch", [{ action: "create", file_path: "c.txt", content: "c" }], { start_branch: "main" });

    const res = await w.anonymous.get(`/projects/${project.id}/events`, { query: { sort: "asc", per_page: 100 } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    const summary = body.map((e) => [e.action_name, e.target_type, e.author_id]);
    expect(summary).toEqual([
      ["created", null, owner.id],
      ["opened", "Issue", owner.id],
      ["commented on", "Note", owner.id],
      ["closed", "Issue", owner.id],
      ["opened", "Issue", owner.id],
      ["joined", null, dev.id],
      ["left", null, dev.id],
      ["pushed new", null, owner.id],
      ["pushed to", null, owner.id],
      ["pushed new", null, owner.id],
    ]);
    expect(body[1]).toEqual({
      id: expect.any(Number),
      project_id: project.id,
      action_name: "opened",
      target_id: issue.id,
      target_iid: issue.iid,
      target_type: "Issue",
      author_id: owner.id,
      target_title: issue.title,
      created_at: expect.any(String),
      author: expect.objectContaining({ id: owner.id, username: owner.username }),
      author_username: owner.username,
    });
    // A note event: target_iid is the note's id (Event#target_iid), and the note is embedded.
    expect(body[2]).toMatchObject({ target_id: note.id, target_iid: note.id, target_title: null, note: { id: note.id, body: "a comment", noteable_iid: issue.iid } });
    expect(body[7].push_data).toEqual({
      commit_count: 1,
      action: "created",
      ref_type: "branch",
      commit_from: null,
      commit_to: c1.id,
      ref: "main",
      commit_title: "First line",
      ref_count: null,
    });
    expect(body[8].push_data).toMatchObject({ commit_count: 1, action: "pushed", commit_from: c1.id, commit_to: c2.id, commit_title: "Second" });
    // A new branch counts the commits the default branch lacks.
    expect(body[9].push_data).toMatchObject({ commit_count: 1, action: "created", ref: "feature", commit_to: c3.id });
    expect(body[3]).not.toHaveProperty("push_data");
    expect(body[3]).not.toHaveProperty("note");
  });

  it("records project creation through the API and merged and approved merge requests", async () => {
    const w = await world();
    const owner = await w.user();
    const created = await w.as(owner).post("/projects", { json: { name: `p${Date.now()}`, initialize_with_readme: true } });
    expect(created.status).toBe(201);
    const project = (await created.json()) as Json;
    const api = w.as(owner);
    await commitOn(api, { id: project.id } as TestProject, "topic", "Topic", [{ action: "create", file_path: "t.txt", content: "t" }], { start_branch: "main" });
    const mrRes = await api.post(`/projects/${project.id}/merge_requests`, { json: { source_branch: "topic", target_branch: "main", title: "Topic" } });
    expect(mrRes.status).toBe(201);
    const mr = (await mrRes.json()) as Json;
    const approver = await w.user();
    expect((await api.post(`/projects/${project.id}/members`, { json: { user_id: approver.id, access_level: 40 } })).status).toBe(201);
    expect((await w.as(approver).post(`/projects/${project.id}/merge_requests/${mr.iid}/approve`)).status).toBe(201);
    const merged = await api.put(`/projects/${project.id}/merge_requests/${mr.iid}/merge`);
    expect(merged.status).toBe(200);
    const res = await api.get(`/projects/${project.id}/events`, { query: { sort: "asc", per_page: 100 } });
    const names = ((await res.json()) as Json[]).map((e) => `${e.action_name}:${e.target_type}`);
    expect(names[0]).toBe("created:null");
    expect(names).toEqual(expect.arrayContaining(["opened:MergeRequest", "joined:null", "approved:MergeRequest", "accepted:MergeRequest"]));
    expect(names.indexOf("accepted:MergeRequest")).toBeGreaterThan(names.indexOf("approved:MergeRequest"));
  });
});

describe("GET /projects/:id/events", () => {
  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/events`));

  it("answers GitLab's 400 for bad filters", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/events`, { query: { action: "exploded" } }))).toEqual([
      400,
      { error: "action does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/events`, { query: { target_type: "Issue" } }))).toEqual([
      400,
      { error: "target_type does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/events`, { query: { sort: "up" } }))).toEqual([
      400,
      { error: "sort does not have a valid value" },
    ]);
    expect((await w.anonymous.get(`/projects/${project.id}/events`, { query: { before: "yesterday" } })).status).toBe(400);
  });

  it("filters by action, target_type, before and after, and paginates", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner, visibility: "public" });
    const issues = [];
    for (let i = 0; i < 3; i++) issues.push(await openIssue(w, owner, project));
    await w.as(owner).post(`/projects/${project.id}/issues/${issues[0].iid}/notes`, { json: { body: "hi" } });
    const api = w.as(owner);
    const created = (await (await api.get(`/projects/${project.id}/events`, { query: { action: "created" } })).json()) as Json[];
    // The project's own `created` event (no target) comes first.
    expect(created.map((e) => e.target_id)).toEqual([issues[2].id, issues[1].id, issues[0].id, null]);
    const commented = (await (await api.get(`/projects/${project.id}/events`, { query: { target_type: "note" } })).json()) as Json[];
    expect(commented.map((e) => e.action_name)).toEqual(["commented on"]);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect(((await (await api.get(`/projects/${project.id}/events`, { query: { before: today } })).json()) as Json[]).length).toBe(0);
    expect(((await (await api.get(`/projects/${project.id}/events`, { query: { before: tomorrow } })).json()) as Json[]).length).toBe(5);
    expect(((await (await api.get(`/projects/${project.id}/events`, { query: { after: yesterday } })).json()) as Json[]).length).toBe(5);
    expect(((await (await api.get(`/projects/${project.id}/events`, { query: { after: today } })).json()) as Json[]).length).toBe(0);
    const page = await api.get(`/projects/${project.id}/events`, { query: { per_page: 3, page: 2 } });
    expect(page.headers.get("x-total")).toBe("5");
    expect(page.headers.get("x-total-pages")).toBe("2");
    expect(((await page.json()) as Json[]).map((e) => e.target_id)).toEqual([issues[0].id, null]);
  });

  it("hides confidential issues and their notes from those who cannot read them", async () => {
    const w = await world();
    const owner = await w.user();
    const guest = await w.user();
    const project = await w.project({ owner, visibility: "public", guests: [guest] });
    const secret = await openIssue(w, owner, project, { confidential: true });
    await w.as(owner).post(`/projects/${project.id}/issues/${secret.iid}/notes`, { json: { body: "secret note" } });
    const open = await openIssue(w, owner, project);
    for (const viewer of [w.anonymous, w.as(w.stranger), w.as(guest)]) {
      const body = (await (await viewer.get(`/projects/${project.id}/events`)).json()) as Json[];
      expect(body.filter((e) => e.target_type).map((e) => e.target_id)).toEqual([open.id]);
    }
    const ownView = (await (await w.as(owner).get(`/projects/${project.id}/events`)).json()) as Json[];
    expect(ownView.filter((e) => e.target_type).length).toBe(3);
    const admin = (await (await w.root.get(`/projects/${project.id}/events`)).json()) as Json[];
    expect(admin.filter((e) => e.target_type).length).toBe(3);
  });

  it("hides pushes and merge requests of a private project from guests", async () => {
    const w = await world();
    const owner = await w.user();
    const guest = await w.user();
    const project = await w.project({ owner, visibility: "private", guests: [guest] });
    await commitOn(w.as(owner), project, "main", "c", [{ action: "create", file_path: "a", content: "a" }]);
    const issue = await openIssue(w, owner, project);
    const body = (await (await w.as(guest).get(`/projects/${project.id}/events`)).json()) as Json[];
    // The guest sees the issue, the project's creation and their own joining, not the push.
    expect(body.map((e) => e.action_name)).toEqual(["opened", "joined", "created"]);
    expect(body[0].target_id).toBe(issue.id);
    const ownerView = (await (await w.as(owner).get(`/projects/${project.id}/events`)).json()) as Json[];
    expect(ownerView.map((e) => e.action_name)).toEqual(["opened", "pushed new", "joined", "created"]);
  });
});

describe("GET /events", () => {
  requiresAuthentication((w) => w.anonymous.get("/events"));

  it("lists the caller's own events; scope=all adds others' events in the caller's projects", async () => {
    const w = await world();
    const me = await w.user();
    const other = await w.user();
    const project = await w.project({ owner: other, visibility: "private", developers: [me] });
    const mine = await openIssue(w, me, project);
    const theirs = await openIssue(w, other, project);
    const own = (await (await w.as(me).get("/events")).json()) as Json[];
    expect(own.map((e) => [e.action_name, e.target_id])).toEqual([["opened", mine.id], ["joined", null]]);
    const all = (await (await w.as(me).get("/events", { query: { scope: "all" } })).json()) as Json[];
    expect(all.map((e) => e.target_id)).toEqual(expect.arrayContaining([mine.id, theirs.id]));
    expect(all.every((e) => e.project_id === project.id)).toBe(true);
  });
});

describe("GET /users/:id/events", () => {
  it("lists a user's events in projects the caller can read", async () => {
    const w = await world();
    const author = await w.user();
    const pub = await w.project({ visibility: "public", developers: [author] });
    const priv = await w.project({ visibility: "private", developers: [author] });
    const a = await openIssue(w, author, pub);
    const b = await openIssue(w, author, priv);
    const anonymous = (await (await w.anonymous.get(`/users/${author.id}/events`, { query: { action: "created" } })).json()) as Json[];
    expect(anonymous.map((e) => e.target_id)).toEqual([a.id]);
    const self = (await (await w.as(author).get(`/users/${author.id}/events`, { query: { action: "created" } })).json()) as Json[];
    expect(self.map((e) => e.target_id)).toEqual([b.id, a.id]);
    // `:id` is the id or the username (lib/api/events.rb `find_user`).
    const byName = (await (await w.as(author).get(`/users/${author.username}/events`, { query: { action: "created" } })).json()) as Json[];
    expect(byName.map((e) => e.target_id)).toEqual([b.id, a.id]);
  });

  it("answers 404 User Not Found for an unknown user and nothing for a private profile", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/users/2147483600/events"))).toEqual([404, { message: "404 User Not Found" }]);
    const author = await w.user();
    const project = await w.project({ visibility: "public", developers: [author] });
    await openIssue(w, author, project);
    const { users } = await import("../../db/schema");
    await w.db((db) => db.update(users).set({ privateProfile: true }).where(eq(users.id, author.id)));
    const res = await w.anonymous.get(`/users/${author.id}/events`);
    expect(await statusAndBody(res)).toEqual([200, []]);
    expect(res.headers.get("x-total")).toBe("0");
    expect(((await (await w.as(author).get(`/users/${author.id}/events`)).json()) as Json[]).length).toBeGreaterThan(0);
  });
});
