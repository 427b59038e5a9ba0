import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { epic, expectFlat, HEX40, issue, issueRow, mergeRequest, note, noteRows, snippet, type Json } from "../helpers/noteables";

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);
const DISCUSSION = "a".repeat(40);

describe("GET /projects/:id/issues/:issue_iid/discussions", () => {
  it("lists single comments and threads in creation order, paginated by discussion", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const single = await note(w, "Issue", i.id, project.id, { author: dev, createdAt: ago(30) });
    const first = await note(w, "Issue", i.id, project.id, { author: dev, type: "DiscussionNote", createdAt: ago(20) });
    const sys = await note(w, "Issue", i.id, project.id, { author: dev, system: true, createdAt: ago(15) });
    const reply = await note(w, "Issue", i.id, project.id, { author: dev, type: "DiscussionNote", discussionId: first.discussionId, createdAt: ago(10) });
    const path = `/projects/${project.id}/issues/${i.iid}/discussions`;
    const res = await w.as(dev).get(path);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((d) => [d.id, d.individual_note, d.notes.map((n: Json) => n.id)])).toEqual([
      [single.discussionId, true, [single.id]],
      [first.discussionId, false, [first.id, reply.id]],
      [sys.discussionId, true, [sys.id]],
    ]);
    expect(Object.keys(body[1])).toEqual(["id", "individual_note", "notes"]);
    expect(body[1].notes[1]).toMatchObject({ id: reply.id, type: "DiscussionNote", noteable_iid: i.iid, author: { id: dev.id } });
    expect(res.headers.get("x-total")).toBe("3");
    const second = await w.as(dev).get(path, { query: { per_page: 1, page: 2 } });
    expect(((await second.json()) as Json[]).map((d) => d.id)).toEqual([first.discussionId]);
    expect([second.headers.get("x-total-pages"), second.headers.get("x-next-page")]).toEqual(["3", "3"]);
    await expectFlat(w, dev, path);
  });

  it("leaves out confidential discussions for who may not read them", async () => {
    const w = await world();
    const guest = await w.user();
    const reporter = await w.user();
    const project = await w.project({ guests: [guest], reporters: [reporter] });
    const i = await issue(w, project);
    const open = await note(w, "Issue", i.id, project.id, { author: reporter });
    await note(w, "Issue", i.id, project.id, { author: reporter, confidential: true });
    const res = await w.as(guest).get(`/projects/${project.id}/issues/${i.iid}/discussions`);
    expect(((await res.json()) as Json[]).map((d) => d.id)).toEqual([open.discussionId]);
    expect(res.headers.get("x-total")).toBe("1");
    expect(((await (await w.as(reporter).get(`/projects/${project.id}/issues/${i.iid}/discussions`)).json()) as Json[]).length).toBe(2);
  });

  it("answers 404 Not found for an issue that is missing or not an id", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    for (const key of ["123456", "abc"])
      expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/issues/${key}/discussions`))).toEqual([404, { message: "404 Not found" }]);
  });

  requiresAuthentication((w) => w.anonymous.get(`/projects/1/issues/1/discussions`));
  hidesPrivateProject(async (w, project) => {
    const i = await issue(w, project);
    return w.as(w.stranger).get(`/projects/${project.id}/issues/${i.iid}/discussions`);
  });
});

describe("GET /projects/:id/issues/:issue_iid/discussions/:discussion_id", () => {
  it("returns one discussion, or 404 Discussion Not Found", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const n = await note(w, "Issue", i.id, project.id, { author: dev, type: "DiscussionNote" });
    const base = `/projects/${project.id}/issues/${i.iid}/discussions`;
    expect(await (await w.as(dev).get(`${base}/${n.discussionId}`)).json()).toMatchObject({ id: n.discussionId, individual_note: false, notes: [{ id: n.id }] });
    expect(await statusAndBody(await w.as(dev).get(`${base}/${DISCUSSION}`))).toEqual([404, { message: "404 Discussion Not Found" }]);
    // A discussion of another issue is not this issue's.
    const other = await issue(w, project);
    expect((await w.as(dev).get(`/projects/${project.id}/issues/${other.iid}/discussions/${n.discussionId}`)).status).toBe(404);
  });
});

describe("POST /projects/:id/issues/:issue_iid/discussions", () => {
  it("starts a thread: a DiscussionNote in a new 40-hex discussion", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ guests: [guest] });
    const i = await issue(w, project);
    const res = await w.as(guest).post(`/projects/${project.id}/issues/${i.iid}/discussions`, { json: { body: "Let us talk" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body.id).toMatch(HEX40);
    expect(body).toMatchObject({ individual_note: false, notes: [{ type: "DiscussionNote", body: "Let us talk", author: { id: guest.id } }] });
    const [row] = await noteRows(w, "Issue", i.id);
    expect([row.discussionId, row.type, row.id]).toEqual([body.id, "DiscussionNote", body.notes[0].id]);
    expect((await issueRow(w, i.id)).userNotesCount).toBe(1);
  });

  it("answers 400 for a missing or too long body, 403 on an archived project", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const path = `/projects/${project.id}/issues/${i.iid}/discussions`;
    expect(await statusAndBody(await w.as(dev).post(path, { json: {} }))).toEqual([400, { error: "body is missing" }]);
    expect(await statusAndBody(await w.as(dev).post(path, { json: { body: "x".repeat(1_000_001) } }))).toEqual([
      400,
      { message: `400 Bad request - Note {:note=>["is too long (maximum is 1000000 characters)"]}` },
    ]);
    const archived = await w.project({ archived: true, developers: [dev] });
    const j = await issue(w, archived);
    expect(await statusAndBody(await w.as(dev).post(`/projects/${archived.id}/issues/${j.iid}/discussions`, { json: { body: "x" } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
  });

  requiresAuthentication((w) => w.anonymous.post(`/projects/1/issues/1/discussions`, { json: { body: "x" } }));
});

describe("POST /projects/:id/issues/:issue_iid/discussions/:discussion_id/notes", () => {
  it("replies to a single comment, which turns it into a thread", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const single = await note(w, "Issue", i.id, project.id, { author: dev });
    const base = `/projects/${project.id}/issues/${i.iid}/discussions/${single.discussionId}`;
    const res = await w.as(dev).post(`${base}/notes`, { json: { body: "reply" } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ type: "DiscussionNote", body: "reply", noteable_iid: i.iid });
    const rows = await noteRows(w, "Issue", i.id);
    expect(rows.map((r) => [r.discussionId, r.type])).toEqual([
      [single.discussionId, "DiscussionNote"],
      [single.discussionId, "DiscussionNote"],
    ]);
    expect(await (await w.as(dev).get(base)).json()).toMatchObject({ individual_note: false, notes: [{ id: single.id, type: "DiscussionNote" }, { body: "reply" }] });
  });

  it("turns a system note into a thread and keeps a confidential discussion confidential", async () => {
    const w = await world();
    const reporter = await w.user();
    const project = await w.project({ reporters: [reporter] });
    const i = await issue(w, project);
    const sys = await note(w, "Issue", i.id, project.id, { author: reporter, system: true });
    const base = `/projects/${project.id}/issues/${i.iid}/discussions`;
    expect((await w.as(reporter).post(`${base}/${sys.discussionId}/notes`, { json: { body: "about that" } })).status).toBe(201);
    const secret = await note(w, "Issue", i.id, project.id, { author: reporter, confidential: true, type: "DiscussionNote" });
    const reply = (await (await w.as(reporter).post(`${base}/${secret.discussionId}/notes`, { json: { body: "hush" } })).json()) as Json;
    expect(reply.confidential).toBe(true);
  });

  it("answers 404 Discussion Not Found for an unknown or unreadable discussion", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ guests: [guest] });
    const i = await issue(w, project);
    const secret = await note(w, "Issue", i.id, project.id, { author: { id: 1 }, confidential: true });
    const base = `/projects/${project.id}/issues/${i.iid}/discussions`;
    for (const id of [DISCUSSION, secret.discussionId])
      expect(await statusAndBody(await w.as(guest).post(`${base}/${id}/notes`, { json: { body: "x" } }))).toEqual([404, { message: "404 Discussion Not Found" }]);
  });
});

describe("POST /projects/:id/snippets/:snippet_id/discussions/:discussion_id/notes", () => {
  it("replies to snippet threads, not to single snippet comments", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const s = await snippet(w, project, { author: dev });
    const base = `/projects/${project.id}/snippets/${s.id}/discussions`;
    const thread = (await (await w.as(dev).post(base, { json: { body: "thread" } })).json()) as Json;
    expect(thread).toMatchObject({ individual_note: false, notes: [{ noteable_type: "Snippet", noteable_iid: null }] });
    expect((await w.as(dev).post(`${base}/${thread.id}/notes`, { json: { body: "reply" } })).status).toBe(201);
    const single = await note(w, "Snippet", s.id, project.id, { author: dev });
    expect(await statusAndBody(await w.as(dev).post(`${base}/${single.discussionId}/notes`, { json: { body: "reply" } }))).toEqual([
      400,
      { message: "400 Bad request - Discussion can not be replied to." },
    ]);
    const list = (await (await w.as(dev).get(base)).json()) as Json[];
    expect(list.map((d) => [d.individual_note, d.notes.length])).toEqual([[false, 2], [true, 1]]);
  });
});

describe("GET /projects/:id/issues/:issue_iid/discussions/:discussion_id/notes[/:note_id]", () => {
  it("lists a discussion's notes and returns one of them", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const i = await issue(w, project);
    const first = await note(w, "Issue", i.id, project.id, { author: dev, type: "DiscussionNote", createdAt: ago(2) });
    const reply = await note(w, "Issue", i.id, project.id, { author: dev, type: "DiscussionNote", discussionId: first.discussionId, createdAt: ago(1) });
    const base = `/projects/${project.id}/issues/${i.iid}/discussions`;
    expect(((await (await w.as(dev).get(`${base}/${first.discussionId}/notes`)).json()) as Json[]).map((n) => n.id)).toEqual([first.id, reply.id]);
    expect(await statusAndBody(await w.as(dev).get(`${base}/${DISCUSSION}/notes`))).toEqual([404, { message: "404 Notes Not Found" }]);
    expect(await (await w.as(dev).get(`${base}/${first.discussionId}/notes/${reply.id}`)).json()).toMatchObject({ id: reply.id });
  });
});

describe("PUT /projects/:id/issues/:issue_iid/discussions/:discussion_id/notes/:note_id", () => {
  it("changes the body of the author's thread note", async () => {
    const w = await world();
    const author = await w.user();
    const other = await w.user();
    const project = await w.project({ developers: [author, other] });
    const i = await issue(w, project);
    const n = await note(w, "Issue", i.id, project.id, { author, type: "DiscussionNote" });
    const path = `/projects/${project.id}/issues/${i.iid}/discussions/${n.discussionId}/notes/${n.id}`;
    const res = await w.as(author).put(path, { json: { body: "edited" } });
    expect(await res.json()).toMatchObject({ id: n.id, body: "edited", type: "DiscussionNote" });
    expect((await noteRows(w, "Issue", i.id))[0].note).toBe("edited");
    expect(await statusAndBody(await w.as(other).put(path, { json: { body: "mine" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("takes exactly one of body and resolved; issue notes are not resolvable", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ developers: [author] });
    const i = await issue(w, project);
    const n = await note(w, "Issue", i.id, project.id, { author, type: "DiscussionNote" });
    const path = `/projects/${project.id}/issues/${i.iid}/discussions/${n.discussionId}/notes/${n.id}`;
    expect(await statusAndBody(await w.as(author).put(path))).toEqual([400, { error: "body, resolved are missing, exactly one parameter must be provided" }]);
    expect(await statusAndBody(await w.as(author).put(path, { json: { body: "x", resolved: true } }))).toEqual([
      400,
      { error: "body, resolved are mutually exclusive" },
    ]);
    expect(await statusAndBody(await w.as(author).put(path, { json: { resolved: true } }))).toEqual([400, { message: "400 Bad request - Note is not resolvable" }]);
  });
});

describe("PUT /projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id[/notes/:note_id]", () => {
  it("resolves and unresolves merge request threads and their notes", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const mr = await mergeRequest(w, project);
    const thread = (await (await w.as(dev).post(`/projects/${project.id}/merge_requests/${mr.iid}/discussions`, { json: { body: "fix this" } })).json()) as Json;
    const base = `/projects/${project.id}/merge_requests/${mr.iid}/discussions/${thread.id}`;
    const resolved = (await (await w.as(dev).put(base, { json: { resolved: true } })).json()) as Json;
    expect(resolved.notes[0]).toMatchObject({ resolvable: true, resolved: true, resolved_by: { id: dev.id } });
    expect((await noteRows(w, "MergeRequest", mr.id))[0].resolvedById).toBe(dev.id);
    const note = (await (await w.as(dev).put(`${base}/notes/${thread.notes[0].id}`, { json: { resolved: false } })).json()) as Json;
    expect(note).toMatchObject({ resolved: false, resolved_by: null, resolved_at: null });
    expect((await noteRows(w, "MergeRequest", mr.id))[0].resolvedAt).toBeNull();
  });
});

describe("DELETE /projects/:id/issues/:issue_iid/discussions/:discussion_id/notes/:note_id", () => {
  it("deletes the author's thread note and uncounts it", async () => {
    const w = await world();
    const author = await w.user();
    const other = await w.user();
    const project = await w.project({ developers: [author, other] });
    const i = await issue(w, project);
    const thread = (await (await w.as(author).post(`/projects/${project.id}/issues/${i.iid}/discussions`, { json: { body: "x" } })).json()) as Json;
    const path = `/projects/${project.id}/issues/${i.iid}/discussions/${thread.id}/notes/${thread.notes[0].id}`;
    expect(await statusAndBody(await w.as(other).delete(path))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(author).delete(path))).toEqual([204, ""]);
    expect(await noteRows(w, "Issue", i.id)).toEqual([]);
    expect((await issueRow(w, i.id)).userNotesCount).toBe(0);
    expect(await statusAndBody(await w.as(author).delete(path))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("GET /groups/:id/epics/:epic_id/discussions", () => {
  it("lists an epic's discussions by the epic's global id", async () => {
    const w = await world();
    const member = await w.user();
    const group = await w.group({ reporters: [member] });
    const e = await epic(w, group);
    const n = await note(w, "Epic", e.id, null, { author: member });
    const res = await w.as(member).get(`/groups/${group.id}/epics/${e.id}/discussions`);
    expect(await res.json()).toEqual([{ id: n.discussionId, individual_note: true, notes: [expect.objectContaining({ id: n.id, noteable_type: "Epic" })] }]);
    await expectFlat(w, member, `/groups/${group.id}/epics/${e.id}/discussions`);
  });
});
