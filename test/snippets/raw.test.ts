import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { snippet, type Json } from "../helpers/noteables";

describe("GET /projects/:id/snippets/:snippet_id/raw", () => {
  it("answers the first file as plain text, and a snippet without files its content", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ visibility: "public", reporters: [author] });
    const res = await w.as(author).post(`/projects/${project.id}/snippets`, {
      json: { title: "t", visibility: "public", files: [{ file_path: "z.rb", content: "zed" }, { file_path: "b.rb", content: "bee" }] },
    });
    const s = (await res.json()) as Json;
    const raw = await w.anonymous.get(`/projects/${project.id}/snippets/${s.id}/raw`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(raw.headers.get("content-disposition")).toMatch(/^inline; filename="b.rb"/);
    expect(await raw.text()).toBe("bee");
    const legacy = await snippet(w, project, { author, visibility: "public" });
    const old = await w.anonymous.get(`/projects/${project.id}/snippets/${legacy.id}/raw`);
    expect(old.headers.get("content-disposition")).toBe("attachment");
    expect(await old.text()).toBe("puts 1");
  });

  it("answers 404 Snippet Not Found for a snippet the caller may not read", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const s = await snippet(w, project, { visibility: "private" });
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/snippets/${s.id}/raw`))).toEqual([404, { message: "404 Snippet Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/snippets/abc/raw`))).toEqual([400, { error: "snippet_id is invalid" }]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/snippets/1/raw`));
});

describe("GET /projects/:id/snippets/:snippet_id/files/:ref/:file_path/raw", () => {
  it("answers one file at the snippet's ref; other refs, files and repository-less snippets are 404", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ reporters: [author] });
    const s = (await (
      await w.as(author).post(`/projects/${project.id}/snippets`, {
        json: { title: "t", visibility: "private", files: [{ file_path: "lib/a.rb", content: "nested" }] },
      })
    ).json()) as Json;
    const base = `/projects/${project.id}/snippets/${s.id}/files`;
    const res = await w.as(author).get(`${base}/main/lib%2Fa.rb/raw`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("nested");
    expect(await statusAndBody(await w.as(author).get(`${base}/other/lib%2Fa.rb/raw`))).toEqual([404, { message: "404 Reference Not Found" }]);
    expect(await statusAndBody(await w.as(author).get(`${base}/main/nope.rb/raw`))).toEqual([404, { message: "404 File Not Found" }]);
    const legacy = await snippet(w, project, { author });
    expect(await statusAndBody(await w.as(author).get(`/projects/${project.id}/snippets/${legacy.id}/files/main/a.rb/raw`))).toEqual([
      404,
      { message: "404 Snippet Not Found" },
    ]);
    expect((await w.as(w.stranger).get(`${base}/main/lib%2Fa.rb/raw`)).status).toBe(404);
  });
});
