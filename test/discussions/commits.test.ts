import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world, type World } from "../helpers/world";
import { commitsPath, smallRepo } from "../helpers/commits";

type Json = Record<string, any>;

const discussionsPath = (project: { id: number }, sha: string) => `${commitsPath(project)}/${sha}/discussions`;

/** A private project with a history, a guest and a developer. */
async function setUp(w: World) {
  const guest = await w.user();
  const dev = await w.user();
  const repo = await smallRepo(w, { guests: [guest], developers: [dev] });
  return { ...repo, guest, dev, sha: repo.commits[0].id, base: discussionsPath(repo.project, repo.commits[0].id) };
}

describe("GET /projects/:id/repository/commits/:sha/discussions", () => {
  it("shows commit comments (single and diff-line) and threads as discussions, paginated", async () => {
    const w = await world();
    const { project, api, owner, sha, base } = await setUp(w);
    const comments = `${commitsPath(project)}/${sha}/comments`;
    expect((await api.post(comments, { json: { note: "Plain" } })).status).toBe(201);
    expect((await api.post(comments, { json: { note: "On world", path: "README.md", line: 2 } })).status).toBe(201);
    const thread = (await (await api.post(base, { json: { body: "A thread" } })).json()) as Json;
    // A note on another commit is not this commit's.
    expect((await api.post(`${commitsPath(project)}/main~1/comments`, { json: { note: "Elsewhere" } })).status).toBe(201);

    const res = await api.get(base);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((d) => [d.individual_note, d.notes.map((n: Json) => [n.type, n.body])])).toEqual([
      [true, [[null, "Plain"]]],
      [false, [["LegacyDiffNote", "On world"]]],
      [false, [["DiscussionNote", "A thread"]]],
    ]);
    expect(body[2].id).toBe(thread.id);
    expect(body[0].notes[0]).toMatchObject({
      noteable_type: "Commit",
      noteable_id: null,
      noteable_iid: null,
      resolvable: false,
      system: false,
      confidential: false,
      author: { id: owner.id },
    });
    expect(body[0].notes[0]).not.toHaveProperty("resolved");
    expect(res.headers.get("x-total")).toBe("3");

    const second = await api.get(base, { query: { per_page: 2, page: 2 } });
    expect(((await second.json()) as Json[]).map((d) => d.id)).toEqual([thread.id]);
    expect([second.headers.get("x-total-pages"), second.headers.get("x-page"), second.headers.get("x-next-page")]).toEqual(["2", "2", ""]);
    // A branch name names the same commit.
    expect(((await (await api.get(discussionsPath(project, "main"))).json()) as Json[]).length).toBe(3);
  });

  it("answers 404 Commit Not Found for a missing commit and for who may not read the repository", async () => {
    const w = await world();
    const { project, guest, dev, base } = await setUp(w);
    expect(await statusAndBody(await w.as(dev).get(discussionsPath(project, "f".repeat(40))))).toEqual([404, { message: "404 Commit Not Found" }]);
    expect(await statusAndBody(await w.as(dev).get(discussionsPath(project, "nope")))).toEqual([404, { message: "404 Commit Not Found" }]);
    // Guests of a private project have no `download_code`.
    expect(await statusAndBody(await w.as(guest).get(base))).toEqual([404, { message: "404 Commit Not Found" }]);
    expect((await w.as(dev).get(base)).status).toBe(200);
  });

  it("lets any signed-in user read a public project's commit discussions", async () => {
    const w = await world();
    const { project, commits } = await smallRepo(w, { visibility: "public" });
    const sha = commits[0].id;
    expect(await statusAndBody(await w.as(w.stranger).get(discussionsPath(project, sha)))).toEqual([200, []]);
  });

  requiresAuthentication((w) => w.anonymous.get(`/projects/1/repository/commits/main/discussions`));
  hidesPrivateProject((w, project) => w.as(w.stranger).get(discussionsPath(project, "main")));
});

describe("GET /projects/:id/repository/commits/:sha/discussions/:discussion_id", () => {
  it("returns a commit comment as its discussion, or 404 Discussion Not Found", async () => {
    const w = await world();
    const { project, api, dev, sha, base } = await setUp(w);
    await api.post(`${commitsPath(project)}/${sha}/comments`, { json: { note: "Plain" } });
    const [only] = (await (await api.get(base)).json()) as Json[];
    expect(await statusAndBody(await w.as(dev).get(`${base}/${only.id}`))).toEqual([200, only]);
    expect(await statusAndBody(await w.as(dev).get(`${base}/${"a".repeat(40)}`))).toEqual([404, { message: "404 Discussion Not Found" }]);
    // The discussion of one commit is not another commit's.
    expect((await w.as(dev).get(`${discussionsPath(project, "main~1")}/${only.id}`)).status).toBe(404);
  });
});

describe("POST /projects/:id/repository/commits/:sha/discussions", () => {
  it("starts a thread (DiscussionNote on the commit)", async () => {
    const w = await world();
    const { project, dev, sha, base } = await setUp(w);
    const res = await w.as(dev).post(base, { json: { body: "Why?" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(Object.keys(body)).toEqual(["id", "individual_note", "notes"]);
    expect(body).toMatchObject({ individual_note: false, notes: [{ type: "DiscussionNote", body: "Why?", noteable_type: "Commit", noteable_id: null, author: { id: dev.id } }] });
    const rows = await w.db((db) => db.execute(`SELECT noteable_type, noteable_id, commit_id, type, discussion_id FROM notes WHERE project_id = ${project.id}`));
    expect(rows.rows).toEqual([{ noteable_type: "Commit", noteable_id: null, commit_id: sha, type: "DiscussionNote", discussion_id: body.id }]);
    // It is a commit comment too.
    expect(((await (await w.as(dev).get(`${commitsPath(project)}/${sha}/comments`)).json()) as Json[]).map((n) => n.note)).toEqual(["Why?"]);
  });

  it("answers 400 for a missing or blank body and an invalid or unsupported position", async () => {
    const w = await world();
    const { dev, base } = await setUp(w);
    const api = w.as(dev);
    expect(await statusAndBody(await api.post(base, { json: {} }))).toEqual([400, { error: "body is missing" }]);
    expect(await statusAndBody(await api.post(base, { json: { body: "  " } }))).toEqual([400, { message: `400 Bad request - Note {:note=>["can't be blank"]}` }]);
    expect(await statusAndBody(await api.post(base, { json: { body: "x", position: "here" } }))).toEqual([400, { error: "position is invalid" }]);
    expect(await statusAndBody(await api.post(base, { json: { body: "x", position: { base_sha: "a" } } }))).toEqual([
      400,
      { error: "position[start_sha] is missing, position[head_sha] is missing, position[position_type] is missing" },
    ]);
    expect(await statusAndBody(await api.post(base, { json: { body: "x", position: { base_sha: "a", start_sha: "b", head_sha: "c", position_type: "video" } } }))).toEqual([
      400,
      { error: "position[position_type] does not have a valid value" },
    ]);
    // Differs from GitLab: diff notes are not built; a well-formed position is refused.
    expect(await statusAndBody(await api.post(base, { json: { body: "x", position: { base_sha: "a", start_sha: "b", head_sha: "c", position_type: "text" } } }))).toEqual([
      400,
      { message: `400 Bad request - Note {:position=>["is not supported"]}` },
    ]);
    expect(((await (await api.get(base)).json()) as Json[]).length).toBe(0);
  });

  it("answers 404 Commit Not Found to a guest of a private project, 401 to anonymous", async () => {
    const w = await world();
    const { guest, base } = await setUp(w);
    expect(await statusAndBody(await w.as(guest).post(base, { json: { body: "x" } }))).toEqual([404, { message: "404 Commit Not Found" }]);
    expect(await statusAndBody(await w.anonymous.post(base, { json: { body: "x" } }))).toEqual([401, { message: "401 Unauthorized" }]);
  });

  it("lets any signed-in user comment on a public project's commit, as commit comments do", async () => {
    const w = await world();
    const { project, commits } = await smallRepo(w, { visibility: "public" });
    const sha = commits[0].id;
    expect((await w.as(w.stranger).post(discussionsPath(project, sha), { json: { body: "Hi" } })).status).toBe(201);
  });
});

describe("POST /projects/:id/repository/commits/:sha/discussions/:discussion_id/notes", () => {
  it("replies to a thread and to a diff-line discussion with its type and line", async () => {
    const w = await world();
    const { project, api, dev, sha, base } = await setUp(w);
    const thread = (await (await api.post(base, { json: { body: "Thread" } })).json()) as Json;
    const reply = await w.as(dev).post(`${base}/${thread.id}/notes`, { json: { body: "Reply" } });
    expect(reply.status).toBe(201);
    expect((await reply.json()) as Json).toMatchObject({ type: "DiscussionNote", body: "Reply", noteable_type: "Commit", author: { id: dev.id } });

    await api.post(`${commitsPath(project)}/${sha}/comments`, { json: { note: "On world", path: "README.md", line: 2 } });
    const line = ((await (await api.get(base)).json()) as Json[]).find((d) => d.notes[0].type === "LegacyDiffNote")!;
    const lineReply = (await (await w.as(dev).post(`${base}/${line.id}/notes`, { json: { body: "Indeed" } })).json()) as Json;
    expect(lineReply).toMatchObject({ type: "LegacyDiffNote", body: "Indeed" });
    // The reply is on the same diff line: the commit comments show its path and line.
    const comments = (await (await api.get(`${commitsPath(project)}/${sha}/comments`)).json()) as Json[];
    expect(comments.find((n) => n.note === "Indeed")).toMatchObject({ path: "README.md", line: 2, line_type: "new" });

    const listed = (await (await api.get(`${base}/${thread.id}`)).json()) as Json;
    expect(listed.notes.map((n: Json) => n.body)).toEqual(["Thread", "Reply"]);
  });

  it("answers 400 for a single comment (commits are not replyable) and a missing body, 404 for an unknown discussion", async () => {
    const w = await world();
    const { project, api, sha, base } = await setUp(w);
    await api.post(`${commitsPath(project)}/${sha}/comments`, { json: { note: "Plain" } });
    const [single] = (await (await api.get(base)).json()) as Json[];
    expect(await statusAndBody(await api.post(`${base}/${single.id}/notes`, { json: { body: "x" } }))).toEqual([400, { message: "400 Bad request - Discussion can not be replied to." }]);
    expect(await statusAndBody(await api.post(`${base}/${single.id}/notes`, { json: {} }))).toEqual([400, { error: "body is missing" }]);
    expect(await statusAndBody(await api.post(`${base}/${"b".repeat(40)}/notes`, { json: { body: "x" } }))).toEqual([404, { message: "404 Discussion Not Found" }]);
  });
});

describe("PUT /projects/:id/repository/commits/:sha/discussions/:discussion_id/notes/:note_id", () => {
  it("edits a note's body; only its author or a maintainer may", async () => {
    const w = await world();
    const { api, dev, base } = await setUp(w);
    const other = await w.user();
    const thread = (await (await w.as(dev).post(base, { json: { body: "Typo" } })).json()) as Json;
    const noteId = thread.notes[0].id;
    const path = `${base}/${thread.id}/notes/${noteId}`;
    const res = await w.as(dev).put(path, { json: { body: "Fixed" } });
    expect(res.status).toBe(200);
    expect((await res.json()) as Json).toMatchObject({ id: noteId, body: "Fixed", type: "DiscussionNote" });
    expect(((await (await api.put(path, { json: { body: "By owner" } })).json()) as Json).body).toBe("By owner");
    expect(await statusAndBody(await api.put(path, { json: {} }))).toEqual([400, { error: "body, resolved are missing, exactly one parameter must be provided" }]);
    // Commit notes are never resolvable.
    expect(await statusAndBody(await w.as(dev).put(path, { json: { resolved: true } }))).toEqual([400, { message: "400 Bad request - Note is not resolvable" }]);
    expect(await statusAndBody(await api.put(`${base}/${thread.id}/notes/999999`, { json: { body: "x" } }))).toEqual([404, { message: "404 Not found" }]);
    expect((await w.as(other).put(path, { json: { body: "x" } })).status).toBe(404);
  });

  it("answers 403 to a developer editing someone else's commit comment", async () => {
    const w = await world();
    const { project, api, dev, sha, base } = await setUp(w);
    await api.post(`${commitsPath(project)}/${sha}/comments`, { json: { note: "Mine" } });
    const [d] = (await (await api.get(base)).json()) as Json[];
    expect(await statusAndBody(await w.as(dev).put(`${base}/${d.id}/notes/${d.notes[0].id}`, { json: { body: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("DELETE /projects/:id/repository/commits/:sha/discussions/:discussion_id/notes/:note_id", () => {
  it("deletes a note: its author or a maintainer, 403 for others, 404 for a missing note", async () => {
    const w = await world();
    const { api, dev, base } = await setUp(w);
    const thread = (await (await api.post(base, { json: { body: "Gone soon" } })).json()) as Json;
    const path = `${base}/${thread.id}/notes/${thread.notes[0].id}`;
    expect(await statusAndBody(await w.as(dev).delete(path))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await api.delete(path)).status).toBe(204);
    expect(await statusAndBody(await api.delete(path))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await api.get(base))).toEqual([200, []]);
  });
});
