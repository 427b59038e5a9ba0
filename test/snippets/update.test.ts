import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world, type TestUser, type World } from "../helpers/world";
import { snippet, type Json } from "../helpers/noteables";

async function created(w: World, user: TestUser, projectId: number, files: { file_path: string; content: string }[]) {
  const res = await w.as(user).post(`/projects/${projectId}/snippets`, { json: { title: "t", visibility: "private", files } });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}

const filesOf = (body: Json) => (body.files as Json[]).map((f) => f.path);

describe("PUT /projects/:id/snippets/:snippet_id", () => {
  it("updates columns and applies file actions create, update, move, delete", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ reporters: [author] });
    const s = await created(w, author, project.id, [{ file_path: "b.rb", content: "b" }, { file_path: "a.rb", content: "a" }]);
    expect(filesOf(s)).toEqual(["a.rb", "b.rb"]);
    expect(s.file_name).toBe("a.rb");
    expect((s.files as Json[])[0].raw_url).toBe(`http://edgeforge.test/${project.fullPath}/-/snippets/${s.id}/raw/main/a.rb`);
    const path = `/projects/${project.id}/snippets/${s.id}`;
    const res = await w.as(author).put(path, {
      json: {
        title: "New",
        visibility: "public",
        files: [
          { action: "create", file_path: "c.rb", content: "c" },
          { action: "update", file_path: "a.rb", content: "A" },
          { action: "move", previous_path: "b.rb", file_path: "d.rb" },
          { action: "delete", file_path: "c.rb" },
          { action: "create", content: "generated" },
        ],
      },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ title: "New", visibility: "public" });
    expect(filesOf(body)).toEqual(["a.rb", "d.rb", "snippetfile1.txt"]);
    expect(await (await w.as(author).get(`${path}/files/main/d.rb/raw`)).text()).toBe("b");
    expect(await (await w.as(author).get(`${path}/files/main/a.rb/raw`)).text()).toBe("A");
  });

  it("changes the one file with content and file_name", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ reporters: [author] });
    const s = await created(w, author, project.id, [{ file_path: "a.rb", content: "a" }]);
    const path = `/projects/${project.id}/snippets/${s.id}`;
    const body = (await (await w.as(author).put(path, { json: { file_name: "z.rb", content: "zz" } })).json()) as Json;
    expect(body.file_name).toBe("z.rb");
    expect(filesOf(body)).toEqual(["z.rb"]);
    expect(await (await w.as(author).get(`${path}/raw`)).text()).toBe("zz");
    // A snippet without files (GitLab's snippet without a repository) gets its first one.
    const legacy = await snippet(w, project, { author });
    const moved = (await (await w.as(author).put(`/projects/${project.id}/snippets/${legacy.id}`, { json: { content: "new" } })).json()) as Json;
    expect(filesOf(moved)).toEqual(["a.rb"]);
  });

  it("answers GitLab's errors", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ reporters: [author] });
    const s = await created(w, author, project.id, [{ file_path: "a.rb", content: "a" }, { file_path: "b.rb", content: "b" }]);
    const path = `/projects/${project.id}/snippets/${s.id}`;
    const put = (json: unknown) => w.as(author).put(path, { json }).then(statusAndBody);
    expect(await put({})).toEqual([400, { error: "content, description, files, file_name, title, visibility are missing, at least one parameter must be provided" }]);
    expect(await put({ title: "" })).toEqual([400, { error: "title is empty" }]);
    expect((await put({ files: [{ action: "rename", file_path: "a" }] }))[0]).toBe(400);
    expect((await put({ files: [{ action: "create", file_path: "../x", content: "x" }] }))[0]).toBe(400);
    expect(await put({ content: "x" })).toEqual([400, { message: { error: "To update Snippets with multiple files, you must use the `files` parameter" } }]);
    expect(await put({ files: [{ action: "update", file_path: "a.rb" }] })).toEqual([403, { message: { error: "Snippet files have invalid data" } }]);
    expect(await put({ files: [{ action: "move", previous_path: "a.rb", file_path: "a.rb" }] })).toEqual([403, { message: { error: "Snippet files have invalid data" } }]);
    expect(await put({ files: [{ action: "create", file_path: "a.rb", content: "again" }] })).toEqual([400, { message: { error: "Repository Error updating the snippet" } }]);
    expect(await put({ files: [{ action: "delete", file_path: "zz.rb" }] })).toEqual([400, { message: { error: "Repository Error updating the snippet" } }]);
    expect(await put({ files: [{ action: "delete", file_path: "a.rb" }, { action: "delete", file_path: "b.rb" }] })).toEqual([
      400,
      { message: { error: "Repository Error updating the snippet" } },
    ]);
    // Nothing was applied by the refused requests.
    expect(filesOf((await (await w.as(author).get(path)).json()) as Json)).toEqual(["a.rb", "b.rb"]);
  });

  it("lets the author and maintainers update; other reporters get 403, strangers 404", async () => {
    const w = await world();
    const author = await w.user();
    const reporter = await w.user();
    const maintainer = await w.user();
    const project = await w.project({ reporters: [author, reporter], maintainers: [maintainer] });
    const s = await created(w, author, project.id, [{ file_path: "a.rb", content: "a" }]);
    const path = `/projects/${project.id}/snippets/${s.id}`;
    expect(await statusAndBody(await w.as(reporter).put(path, { json: { title: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.as(maintainer).put(path, { json: { title: "m" } })).status).toBe(200);
    expect((await w.as(author).put(path, { json: { title: "a" } })).status).toBe(200);
    const publicProject = await w.project({ visibility: "public", reporters: [author] });
    const hidden = await created(w, author, publicProject.id, [{ file_path: "a.rb", content: "a" }]);
    expect(await statusAndBody(await w.as(w.stranger).put(`/projects/${publicProject.id}/snippets/${hidden.id}`, { json: { title: "x" } }))).toEqual([
      404,
      { message: "404 Snippet Not Found" },
    ]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).put(`/projects/${project.id}/snippets/1`, { json: { title: "x" } }));
  requiresAuthentication((w) => w.anonymous.put(`/projects/1/snippets/1`, { json: { title: "x" } }));
});
