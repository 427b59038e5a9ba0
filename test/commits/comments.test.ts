import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { commitsPath, smallRepo } from "../helpers/commits";

type Json = Record<string, any>;
const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");

describe("POST /projects/:id/repository/commits/:sha/comments", () => {
  it("comments on a commit, and on an added or removed line of its diff (LegacyDiffNote)", async () => {
    const w = await world();
    const { project, api, owner, commits } = await smallRepo(w);
    const [third] = commits; // README.md: "# Hello\n" → "# Hello\nworld\n"
    const path = `${commitsPath(project)}/main/comments`;
    const plain = await api.post(path, { json: { note: "Nice" } });
    expect(await statusAndBody(plain)).toEqual([
      201,
      {
        note: "Nice",
        path: null,
        line: null,
        line_type: null,
        author: expect.objectContaining({ id: owner.id, username: owner.username }),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    const added = (await (await api.post(path, { json: { note: "On world", path: "README.md", line: 2 } })).json()) as Json;
    expect(added).toMatchObject({ note: "On world", path: "README.md", line: 2, line_type: "new" });
    // No such added line: a plain note (GitLab saves it without a line code).
    const missed = (await (await api.post(path, { json: { note: "Miss", path: "README.md", line: 1, line_type: "new" } })).json()) as Json;
    expect(missed).toMatchObject({ path: null, line: null, line_type: null });
    const rows = await w.db((db) => db.execute(`SELECT noteable_type, noteable_id, commit_id, line_code, type FROM notes WHERE project_id = ${project.id} ORDER BY id`));
    expect(rows.rows).toEqual([
      { noteable_type: "Commit", noteable_id: null, commit_id: third.id, line_code: null, type: null },
      { noteable_type: "Commit", noteable_id: null, commit_id: third.id, line_code: `${sha1("README.md")}_2_2`, type: "LegacyDiffNote" },
      { noteable_type: "Commit", noteable_id: null, commit_id: third.id, line_code: null, type: null },
    ]);
  });

  it("matches a removed line on its new position, as GitLab does", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const commit = (await (await api.post(commitsPath(project), {
      json: { branch: "main", commit_message: "Drop", actions: [{ action: "update", file_path: "README.md", content: "world\n" }] },
    })).json()) as Json;
    // "-# Hello" is old line 1, at new position 1.
    const res = await api.post(`${commitsPath(project)}/${commit.id}/comments`, { json: { note: "Why?", path: "README.md", line: 1, line_type: "old" } });
    expect((await res.json()) as Json).toMatchObject({ path: "README.md", line: 1, line_type: "old" });
  });

  it("answers 400 with Grape's messages and for a blank note", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const path = `${commitsPath(project)}/main/comments`;
    expect(await statusAndBody(await api.post(path, { json: {} }))).toEqual([400, { error: "note is missing" }]);
    expect(await statusAndBody(await api.post(path, { json: { note: "x", path: "README.md" } }))).toEqual([400, { error: "line is missing" }]);
    expect(await statusAndBody(await api.post(path, { json: { note: "x", path: "README.md", line: "one" } }))).toEqual([400, { error: "line is invalid" }]);
    expect(await statusAndBody(await api.post(path, { json: { note: "x", path: "README.md", line: 1, line_type: "both" } }))).toEqual([
      400,
      { error: "line_type does not have a valid value" },
    ]);
    expect(await statusAndBody(await api.post(path, { json: { note: " " } }))).toEqual([400, { message: `Failed to save note {:note=>["can't be blank"]}` }]);
  });

  it("answers 404 Commit Not Found, 401 anonymously, 404/403 by project access", async () => {
    const w = await world();
    const guest = await w.user();
    const { project, api } = await smallRepo(w, { guests: [guest] });
    expect(await statusAndBody(await api.post(`${commitsPath(project)}/nope/comments`, { json: { note: "x" } }))).toEqual([404, { message: "404 Commit Not Found" }]);
    const path = `${commitsPath(project)}/main/comments`;
    expect(await statusAndBody(await w.anonymous.post(path, { json: { note: "x" } }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(await w.user()).post(path, { json: { note: "x" } }))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(guest).post(path, { json: { note: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
    // A non-member who reads a public project's code may comment.
    const open = await smallRepo(w, { visibility: "public" });
    expect((await w.as(await w.user()).post(`${commitsPath(open.project)}/main/comments`, { json: { note: "x" } })).status).toBe(201);
  });
});

describe("GET /projects/:id/repository/commits/:sha/comments", () => {
  it("lists the commit's notes oldest first with their diff lines, paginated", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w, { visibility: "public" });
    const [third, second] = commits;
    const path = (sha: string) => `${commitsPath(project)}/${sha}/comments`;
    await api.post(path(third.id), { json: { note: "one" } });
    await api.post(path("main"), { json: { note: "two", path: "README.md", line: 2, line_type: "new" } });
    await api.post(path("main"), { json: { note: "three" } });
    await api.post(path(second.id), { json: { note: "elsewhere" } });
    const list = (await (await w.anonymous.get(path(third.id))).json()) as Json[];
    expect(list.map((n) => [n.note, n.path, n.line, n.line_type])).toEqual([
      ["one", null, null, null],
      ["two", "README.md", 2, "new"],
      ["three", null, null, null],
    ]);
    expect(Object.keys(list[0])).toEqual(["note", "path", "line", "line_type", "author", "created_at"]);
    const page = await w.anonymous.get(path(third.id), { query: { per_page: "2", page: "2" } });
    expect(((await page.json()) as Json[]).map((n) => n.note)).toEqual(["three"]);
    expect(page.headers.get("x-total")).toBe("3");
    expect(page.headers.get("x-total-pages")).toBe("2");
    expect(((await (await api.get(path(second.id.slice(0, 8)))).json()) as Json[]).map((n) => n.note)).toEqual(["elsewhere"]);
  });

  it("answers 400 for bad pagination, 404 for an unknown commit or unreadable project, 403 without download_code", async () => {
    const w = await world();
    const guest = await w.user();
    const { project, api } = await smallRepo(w, { guests: [guest] });
    const path = `${commitsPath(project)}/main/comments`;
    expect(await statusAndBody(await api.get(path, { query: { page: "0" } }))).toEqual([400, { error: "page does not have a valid value" }]);
    expect(await statusAndBody(await api.get(`${commitsPath(project)}/nope/comments`))).toEqual([404, { message: "404 Commit Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get(path))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(guest).get(path))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await api.get(path))).toEqual([200, []]);
  });
});
