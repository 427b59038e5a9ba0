import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { projects, snippets } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world, type World } from "../helpers/world";
import { awardsOf, expectFlat, note, noteRows, snippet, type Json } from "../helpers/noteables";

const SNIPPET_KEYS = [
  "id", "title", "description", "visibility", "author", "updated_at", "created_at", "project_id", "web_url", "raw_url", "file_name", "files",
];

async function snippetRow(w: World, id: number) {
  return w.db(async (db) => (await db.select().from(snippets).where(eq(snippets.id, id)))[0]);
}

describe("GET /projects/:id/snippets", () => {
  it("lists the snippets the caller may see, newest first, paginated", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ visibility: "public", developers: [dev] });
    const priv = await snippet(w, project, { visibility: "private" });
    const internal = await snippet(w, project, { visibility: "internal" });
    const pub = await snippet(w, project, { visibility: "public" });
    const path = `/projects/${project.id}/snippets`;
    const asMember = await w.as(dev).get(path);
    expect(((await asMember.json()) as Json[]).map((s) => s.id)).toEqual([pub.id, internal.id, priv.id]);
    expect(asMember.headers.get("x-total")).toBe("3");
    expect(((await (await w.as(w.stranger).get(path)).json()) as Json[]).map((s) => s.id)).toEqual([pub.id, internal.id]);
    const external = await w.user({ external: true });
    expect(((await (await w.as(external).get(path)).json()) as Json[]).map((s) => s.id)).toEqual([pub.id]);
    await expectFlat(w, dev, path);
  });

  it("lists the public snippets of a public project to anonymous callers, and needs the snippets feature", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ visibility: "public", developers: [dev] });
    const pub = await snippet(w, project, { author: dev, visibility: "public" });
    await snippet(w, project, { author: dev, visibility: "internal" });
    await snippet(w, project, { author: dev, visibility: "private" });
    const anonymous = await w.anonymous.get(`/projects/${project.id}/snippets`);
    expect(anonymous.status).toBe(200);
    expect(((await anonymous.json()) as Json[]).map((s) => s.id)).toEqual([pub.id]);
    await w.db((db) => db.update(projects).set({ snippetsEnabled: false }).where(eq(projects.id, project.id)));
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/snippets`))).toEqual([403, { message: "403 Forbidden" }]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/snippets`));
});

describe("GET /projects/:id/snippets/:snippet_id", () => {
  it("returns a snippet with the project snippet entity", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ visibility: "public", developers: [author] });
    const s = await snippet(w, project, { author, visibility: "public", title: "Hello" });
    const res = await w.anonymous.get(`/projects/${project.id}/snippets/${s.id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(Object.keys(body)).toEqual(SNIPPET_KEYS);
    expect(body).toMatchObject({
      id: s.id,
      title: "Hello",
      visibility: "public",
      author: { id: author.id },
      project_id: project.id,
      web_url: `http://edgeforge.test/${project.fullPath}/-/snippets/${s.id}`,
      raw_url: `http://edgeforge.test/${project.fullPath}/-/snippets/${s.id}/raw`,
      file_name: "a.rb",
      files: [],
    });
  });

  it("answers 404 Not found for a snippet the caller may not see", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const s = await snippet(w, project, { visibility: "private" });
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/snippets/${s.id}`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("POST /projects/:id/snippets", () => {
  it("creates a snippet from content and file_name, or from one file", async () => {
    const w = await world();
    const reporter = await w.user();
    const project = await w.project({ reporters: [reporter] });
    const res = await w.as(reporter).post(`/projects/${project.id}/snippets`, {
      json: { title: "Script", description: "does things", visibility: "internal", file_name: "run.sh", content: "echo hi" },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ title: "Script", description: "does things", visibility: "internal", file_name: "run.sh", author: { id: reporter.id } });
    expect(await snippetRow(w, body.id)).toMatchObject({ projectId: project.id, authorId: reporter.id, content: "echo hi", fileName: "run.sh", visibilityLevel: 10 });
    const files = await w.as(reporter).post(`/projects/${project.id}/snippets`, {
      json: { title: "One file", visibility: "private", files: [{ file_path: "x.txt", content: "x" }] },
    });
    expect(await snippetRow(w, ((await files.json()) as Json).id)).toMatchObject({ fileName: "x.txt", content: "x", visibilityLevel: 0 });
  });

  it("answers Grape's 400s", async () => {
    const w = await world();
    const reporter = await w.user();
    const project = await w.project({ reporters: [reporter] });
    const path = `/projects/${project.id}/snippets`;
    expect(await statusAndBody(await w.as(reporter).post(path, { json: {} }))).toEqual([
      400,
      { error: "title is missing, visibility is missing, files, content are missing, exactly one parameter must be provided" },
    ]);
    expect(await statusAndBody(await w.as(reporter).post(path, { json: { title: " ", visibility: "secret", content: "x", file_name: "a" } }))).toEqual([
      400,
      { error: "title is empty, visibility does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.as(reporter).post(path, { json: { title: "t", visibility: "public", content: "x" } }))).toEqual([
      400,
      { error: "file_name is missing" },
    ]);
  });

  forbidsRoles(["guest"], (w, project, user) =>
    w.as(user).post(`/projects/${project.id}/snippets`, { json: { title: "t", visibility: "private", content: "x", file_name: "a" } }),
  );
  requiresAuthentication((w) => w.anonymous.post(`/projects/1/snippets`, { json: { title: "t" } }));
});

describe("DELETE /projects/:id/snippets/:snippet_id", () => {
  it("deletes the snippet with its notes and award emoji", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ reporters: [author] });
    const s = await snippet(w, project, { author });
    const n = await note(w, "Snippet", s.id, project.id, { author });
    await w.as(author).post(`/projects/${project.id}/snippets/${s.id}/award_emoji`, { json: { name: "tada" } });
    await w.as(author).post(`/projects/${project.id}/snippets/${s.id}/notes/${n.id}/award_emoji`, { json: { name: "tada" } });
    expect(await statusAndBody(await w.as(author).delete(`/projects/${project.id}/snippets/${s.id}`))).toEqual([204, ""]);
    expect(await snippetRow(w, s.id)).toBeUndefined();
    expect(await noteRows(w, "Snippet", s.id)).toEqual([]);
    expect(await awardsOf(w, "Snippet", s.id)).toEqual([]);
    expect(await awardsOf(w, "Note", n.id)).toEqual([]);
    expect(await statusAndBody(await w.as(author).delete(`/projects/${project.id}/snippets/${s.id}`))).toEqual([404, { message: "404 Snippet Not Found" }]);
  });

  it("refuses other reporters and lets maintainers delete", async () => {
    const w = await world();
    const reporter = await w.user();
    const maintainer = await w.user();
    const project = await w.project({ reporters: [reporter], maintainers: [maintainer] });
    const s = await snippet(w, project);
    expect(await statusAndBody(await w.as(reporter).delete(`/projects/${project.id}/snippets/${s.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.as(maintainer).delete(`/projects/${project.id}/snippets/${s.id}`)).status).toBe(204);
  });
});
