import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { snippets } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world, type TestUser, type World } from "../helpers/world";
import { snippet, type Json } from "../helpers/noteables";

async function personal(w: World, author: TestUser, visibility: "private" | "internal" | "public", files = [{ file_path: "a.txt", content: "hello" }]) {
  const res = await w.as(author).post("/snippets", { json: { title: `t-${visibility}`, visibility, files } });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}

const ids = async (res: Response) => ((await res.json()) as Json[]).map((s) => s.id);

describe("POST /snippets", () => {
  it("creates a personal snippet, internal by default", async () => {
    const w = await world();
    const author = await w.user();
    const res = await w.as(author).post("/snippets", { json: { title: "Mine", file_name: "x.py", content: "print(1)" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      title: "Mine",
      visibility: "internal",
      project_id: null,
      file_name: "x.py",
      author: { id: author.id },
      web_url: `http://edgeforge.test/-/snippets/${body.id}`,
      raw_url: `http://edgeforge.test/-/snippets/${body.id}/raw`,
      files: [{ path: "x.py", raw_url: `http://edgeforge.test/-/snippets/${body.id}/raw/main/x.py` }],
    });
    const [row] = await w.db((db) => db.select().from(snippets).where(eq(snippets.id, body.id as number)));
    expect(row).toMatchObject({ projectId: null, fileName: "x.py", content: "print(1)" });
  });

  it("answers Grape's 400s, refuses external users and duplicate paths", async () => {
    const w = await world();
    const author = await w.user();
    expect(await statusAndBody(await w.as(author).post("/snippets", { json: { title: "t" } }))).toEqual([
      400,
      { error: "files, content are missing, exactly one parameter must be provided" },
    ]);
    expect(await statusAndBody(await w.as(author).post("/snippets", { json: { title: "t", content: "x" } }))).toEqual([400, { error: "file_name is missing" }]);
    expect(
      await statusAndBody(
        await w.as(author).post("/snippets", { json: { title: "t", files: [{ file_path: "a", content: "1" }, { file_path: "a", content: "2" }] } }),
      ),
    ).toEqual([400, { message: { error: "Repository Error creating the snippet" } }]);
    const external = await w.user({ external: true });
    expect(await statusAndBody(await w.as(external).post("/snippets", { json: { title: "t", file_name: "a", content: "x" } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
  });

  requiresAuthentication((w) => w.anonymous.post("/snippets", { json: { title: "t", file_name: "a", content: "x" } }));
});

describe("GET /snippets, /snippets/public, /snippets/all", () => {
  it("lists the caller's own, the public personal ones, and all readable ones", async () => {
    const w = await world();
    const author = await w.user();
    const other = await w.user();
    const mine = await personal(w, author, "private");
    const theirsPublic = await personal(w, other, "public");
    const theirsPrivate = await personal(w, other, "private");
    const theirsInternal = await personal(w, other, "internal");
    const project = await w.project({ visibility: "private", reporters: [author] });
    const inProject = await snippet(w, project, { author, visibility: "private" });
    const own = await w.as(author).get("/snippets", { query: { per_page: 100 } });
    expect(own.headers.get("x-total")).toBe("2");
    expect(await ids(own)).toEqual([inProject.id, mine.id]);
    const pub = await ids(await w.as(author).get("/snippets/public", { query: { per_page: 100 } }));
    expect(pub).toContain(theirsPublic.id);
    expect(pub).not.toContain(theirsInternal.id);
    expect(pub).not.toContain(inProject.id);
    const all = await ids(await w.as(author).get("/snippets/all", { query: { per_page: 100 } }));
    expect(all).toEqual(expect.arrayContaining([mine.id, theirsPublic.id, theirsInternal.id, inProject.id]));
    expect(all).not.toContain(theirsPrivate.id);
    const stranger = await ids(await w.as(w.stranger).get("/snippets/all", { query: { per_page: 100 } }));
    expect(stranger).not.toContain(inProject.id);
    expect(stranger).not.toContain(mine.id);
    const asAdmin = await ids(await w.root.get("/snippets/all", { query: { per_page: 100 } }));
    expect(asAdmin).toEqual(expect.arrayContaining([theirsPrivate.id, inProject.id]));
  });

  requiresAuthentication((w) => w.anonymous.get("/snippets"));
  requiresAuthentication((w) => w.anonymous.get("/snippets/public"));
  requiresAuthentication((w) => w.anonymous.get("/snippets/all"));
});

describe("GET /snippets/:id", () => {
  it("shows a snippet by the rules of its visibility", async () => {
    const w = await world();
    const author = await w.user();
    const pub = await personal(w, author, "public");
    const internal = await personal(w, author, "internal");
    const priv = await personal(w, author, "private");
    expect((await w.anonymous.get(`/snippets/${pub.id}`)).status).toBe(200);
    expect(await statusAndBody(await w.anonymous.get(`/snippets/${internal.id}`))).toEqual([404, { message: "404 Snippet Not Found" }]);
    expect((await w.as(w.stranger).get(`/snippets/${internal.id}`)).status).toBe(200);
    const external = await w.user({ external: true });
    expect((await w.as(external).get(`/snippets/${internal.id}`)).status).toBe(404);
    expect((await w.as(w.stranger).get(`/snippets/${priv.id}`)).status).toBe(404);
    expect((await w.as(author).get(`/snippets/${priv.id}`)).status).toBe(200);
    expect((await w.root.get(`/snippets/${priv.id}`)).status).toBe(200);
    const project = await w.project({ visibility: "private" });
    const projectSnippet = await snippet(w, project, { visibility: "public" });
    expect((await w.as(w.stranger).get(`/snippets/${projectSnippet.id}`)).status).toBe(404);
    expect(await statusAndBody(await w.as(author).get("/snippets/abc"))).toEqual([400, { error: "id is invalid" }]);
  });
});

describe("PUT /snippets/:id", () => {
  it("updates the caller's own snippet; others' are 404", async () => {
    const w = await world();
    const author = await w.user();
    const s = await personal(w, author, "public", [{ file_path: "a.txt", content: "1" }]);
    const res = await w.as(author).put(`/snippets/${s.id}`, { json: { title: "Renamed", files: [{ action: "update", file_path: "a.txt", content: "2" }] } });
    expect(res.status).toBe(200);
    expect((await res.json()) as Json).toMatchObject({ title: "Renamed" });
    expect(await (await w.as(author).get(`/snippets/${s.id}/raw`)).text()).toBe("2");
    expect(await statusAndBody(await w.as(w.stranger).put(`/snippets/${s.id}`, { json: { title: "x" } }))).toEqual([404, { message: "404 Snippet Not Found" }]);
    expect(await statusAndBody(await w.as(author).put(`/snippets/${s.id}`, { json: {} }))).toEqual([
      400,
      { error: "content, description, files, file_name, title, visibility are missing, at least one parameter must be provided" },
    ]);
  });

  requiresAuthentication((w) => w.anonymous.put("/snippets/1", { json: { title: "x" } }));
});

describe("DELETE /snippets/:id", () => {
  it("deletes the caller's own snippet; others' are 404", async () => {
    const w = await world();
    const author = await w.user();
    const s = await personal(w, author, "public");
    expect(await statusAndBody(await w.as(w.stranger).delete(`/snippets/${s.id}`))).toEqual([404, { message: "404 Snippet Not Found" }]);
    expect(await statusAndBody(await w.as(author).delete(`/snippets/${s.id}`))).toEqual([204, ""]);
    expect((await w.as(author).get(`/snippets/${s.id}`)).status).toBe(404);
  });

  requiresAuthentication((w) => w.anonymous.delete("/snippets/1"));
});

describe("GET /snippets/:id/raw and /snippets/:id/files/:ref/:file_path/raw", () => {
  it("answers the content to whoever may read the snippet", async () => {
    const w = await world();
    const author = await w.user();
    const s = await personal(w, author, "private", [{ file_path: "b.txt", content: "bee" }, { file_path: "a.txt", content: "ay" }]);
    expect(await (await w.as(author).get(`/snippets/${s.id}/raw`)).text()).toBe("ay");
    expect(await (await w.as(author).get(`/snippets/${s.id}/files/main/b.txt/raw`)).text()).toBe("bee");
    expect(await statusAndBody(await w.as(w.stranger).get(`/snippets/${s.id}/raw`))).toEqual([404, { message: "404 Snippet Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/snippets/${s.id}/files/main/b.txt/raw`))).toEqual([404, { message: "404 Snippet Not Found" }]);
  });
});
