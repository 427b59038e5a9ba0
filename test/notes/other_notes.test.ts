import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { awardsOf, epic, expectFlat, mergeRequest, mergeRequestRow, note, noteRows, snippet, todosOf, type Json } from "../helpers/noteables";

describe("GET /projects/:id/snippets/:snippet_id/notes", () => {
  it("lists a readable snippet's notes without noteable_iid", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const s = await snippet(w, project, { author: dev });
    const n = await note(w, "Snippet", s.id, project.id, { author: dev, body: "nice" });
    const res = await w.as(dev).get(`/projects/${project.id}/snippets/${s.id}/notes`);
    expect(await res.json()).toEqual([expect.objectContaining({ id: n.id, body: "nice", noteable_type: "Snippet", noteable_id: s.id, noteable_iid: null })]);
    await expectFlat(w, dev, `/projects/${project.id}/snippets/${s.id}/notes`);
  });

  it("answers 404 Not found for a private snippet a non-member may not read", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const hidden = await snippet(w, project, { visibility: "private" });
    const shown = await snippet(w, project, { visibility: "public" });
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/snippets/${hidden.id}/notes`))).toEqual([404, { message: "404 Not found" }]);
    expect((await w.as(w.stranger).get(`/projects/${project.id}/snippets/${shown.id}/notes`)).status).toBe(200);
  });
});

describe("POST /projects/:id/snippets/:snippet_id/notes", () => {
  it("creates a note on the snippet and creates no to-dos (snippet notes take none)", async () => {
    const w = await world();
    const dev = await w.user();
    const mentioned = await w.user();
    const project = await w.project({ developers: [dev, mentioned] });
    const s = await snippet(w, project, { author: dev });
    const res = await w.as(dev).post(`/projects/${project.id}/snippets/${s.id}/notes`, { json: { body: `see @${mentioned.username}` } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ noteable_type: "Snippet", noteable_id: s.id, noteable_iid: null, confidential: false });
    expect((await noteRows(w, "Snippet", s.id)).length).toBe(1);
    expect(await todosOf(w, mentioned.id, "Snippet", s.id)).toEqual([]);
    // Confidentiality is for issue notes only.
    const c = (await (await w.as(dev).post(`/projects/${project.id}/snippets/${s.id}/notes`, { json: { body: "x", confidential: true } })).json()) as Json;
    expect(c.confidential).toBe(false);
  });
});

describe("PUT /projects/:id/snippets/:snippet_id/notes/:note_id", () => {
  it("requires a body on snippet notes", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const s = await snippet(w, project);
    const n = await note(w, "Snippet", s.id, project.id, { author: dev });
    const path = `/projects/${project.id}/snippets/${s.id}/notes/${n.id}`;
    expect(await statusAndBody(await w.as(dev).put(path))).toEqual([400, { error: "body is missing" }]);
    expect(((await (await w.as(dev).put(path, { json: { body: "edited" } })).json()) as Json).body).toBe("edited");
  });
});

describe("DELETE /projects/:id/snippets/:snippet_id/notes/:note_id", () => {
  it("deletes the author's note", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const s = await snippet(w, project);
    const n = await note(w, "Snippet", s.id, project.id, { author: dev });
    expect((await w.as(dev).delete(`/projects/${project.id}/snippets/${s.id}/notes/${n.id}`)).status).toBe(204);
    expect(await noteRows(w, "Snippet", s.id)).toEqual([]);
  });
});

describe("POST /projects/:id/merge_requests/:merge_request_iid/notes", () => {
  it("creates a note on the merge request by iid and counts it", async () => {
    const w = await world();
    const dev = await w.user();
    const reviewer = await w.user();
    const project = await w.project({ developers: [dev, reviewer] });
    const mr = await mergeRequest(w, project, { author: dev });
    const res = await w.as(dev).post(`/projects/${project.id}/merge_requests/${mr.iid}/notes`, { json: { body: `@${reviewer.username} LGTM?` } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ noteable_type: "MergeRequest", noteable_id: mr.id, noteable_iid: mr.iid, resolvable: false });
    expect((await mergeRequestRow(w, mr.id)).userNotesCount).toBe(1);
    expect((await todosOf(w, reviewer.id, "MergeRequest", mr.id)).map((t) => [t.action, t.noteId])).toEqual([[7, body.id]]);
    const award = await w.as(dev).post(`/projects/${project.id}/merge_requests/${mr.iid}/notes`, { json: { body: ":thumbsdown:" } });
    expect(((await award.json()) as Json).awardable_type).toBe("MergeRequest");
    expect((await mergeRequestRow(w, mr.id)).downvotes).toBe(1);
  });

  it("answers 404 Not found for a missing merge request", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    expect(await statusAndBody(await w.as(dev).post(`/projects/${project.id}/merge_requests/4242/notes`, { json: { body: "x" } }))).toEqual([
      404,
      { message: "404 Not found" },
    ]);
  });
});

describe("GET /projects/:id/merge_requests/:merge_request_iid/notes", () => {
  it("lists the merge request's notes with resolvable thread notes", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const mr = await mergeRequest(w, project);
    const thread = await note(w, "MergeRequest", mr.id, project.id, { author: dev, type: "DiscussionNote" });
    const res = await w.as(dev).get(`/projects/${project.id}/merge_requests/${mr.iid}/notes`);
    const [body] = (await res.json()) as Json[];
    expect(body).toMatchObject({ id: thread.id, type: "DiscussionNote", resolvable: true, resolved: false, resolved_by: null, resolved_at: null, noteable_iid: mr.iid });
    await expectFlat(w, dev, `/projects/${project.id}/merge_requests/${mr.iid}/notes`);
  });
});

describe("GET /groups/:id/epics/:epic_id/notes", () => {
  it("addresses the epic by its global id and lists its notes", async () => {
    const w = await world();
    const member = await w.user();
    const group = await w.group({ guests: [member] });
    const e = await epic(w, group);
    const n = await note(w, "Epic", e.id, null, { author: member, body: "epic talk" });
    const res = await w.as(member).get(`/groups/${group.id}/epics/${e.id}/notes`);
    expect(await res.json()).toEqual([expect.objectContaining({ id: n.id, noteable_type: "Epic", noteable_id: e.id, noteable_iid: null })]);
    await expectFlat(w, member, `/groups/${group.id}/epics/${e.id}/notes`);
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/epics/${e.id}/notes`))).toEqual([404, { message: "404 Group Not Found" }]);
  });

  it("hides a confidential epic from guests (404 Not found)", async () => {
    const w = await world();
    const guest = await w.user();
    const reporter = await w.user();
    const group = await w.group({ guests: [guest], reporters: [reporter] });
    const e = await epic(w, group, { confidential: true });
    expect(await statusAndBody(await w.as(guest).get(`/groups/${group.id}/epics/${e.id}/notes`))).toEqual([404, { message: "404 Not found" }]);
    expect((await w.as(reporter).get(`/groups/${group.id}/epics/${e.id}/notes`)).status).toBe(200);
  });
});

describe("POST /groups/:id/epics/:epic_id/notes", () => {
  it("creates a note on the epic, with created_at for group owners, and mention to-dos", async () => {
    const w = await world();
    const owner = await w.user();
    const reader = await w.user();
    const group = await w.group({ owners: [owner], guests: [reader] });
    const e = await epic(w, group);
    const when = "2021-05-06T07:08:09.000Z";
    const res = await w.as(owner).post(`/groups/${group.id}/epics/${e.id}/notes`, { json: { body: `cc @${reader.username}`, created_at: when } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ noteable_type: "Epic", noteable_id: e.id, created_at: when, author: { id: owner.id } });
    expect((await todosOf(w, reader.id, "Epic", e.id)).map((t) => [t.action, t.groupId, t.projectId])).toEqual([[2, group.id, null]]);
    const award = (await (await w.as(reader).post(`/groups/${group.id}/epics/${e.id}/notes`, { json: { body: ":tada:" } })).json()) as Json;
    expect(award).toMatchObject({ name: "tada", awardable_type: "Epic", awardable_id: e.id });
    expect((await awardsOf(w, "Epic", e.id)).length).toBe(1);
  });

  it("answers 404 Not found for an epic iid of another group", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const other = await w.group({ owners: [owner] });
    const e = await epic(w, other);
    expect(await statusAndBody(await w.as(owner).post(`/groups/${group.id}/epics/${e.id}/notes`, { json: { body: "x" } }))).toEqual([
      404,
      { message: "404 Not found" },
    ]);
  });
});
