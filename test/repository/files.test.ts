import { describe, expect, it } from "vitest";
import { toBase64 } from "../../functions/shared/git/pure/bytes";
import { hashObject } from "../../functions/shared/git/pure/objects";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { commitTo, smallRepo } from "../helpers/git";
import { type Json } from "../helpers/api";

const filesPath = (project: { id: number }, path: string) => `/projects/${project.id}/repository/files/${encodeURIComponent(path)}`;

const utf8 = (text: string) => new TextEncoder().encode(text);

async function sha256(bytes: Uint8Array) {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("GET /projects/:id/repository/files/:file_path", () => {
  it("returns the file with its metadata, as JSON and as X-Gitlab-* headers", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const content = utf8("# Hello\nworld\n");
    const res = await api.get(filesPath(project, "README.md"), { query: { ref: "main" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const expected = {
      file_name: "README.md",
      file_path: "README.md",
      size: content.length,
      encoding: "base64",
      content_sha256: await sha256(content),
      ref: "main",
      blob_id: await hashObject("blob", content),
      commit_id: commits.third,
      last_commit_id: commits.third,
      execute_filemode: false,
      content: toBase64(content),
    };
    expect(await res.json()).toEqual(expected);
    expect(res.headers.get("x-gitlab-file-name")).toBe("README.md");
    expect(res.headers.get("x-gitlab-file-path")).toBe("README.md");
    expect(res.headers.get("x-gitlab-size")).toBe(String(content.length));
    expect(res.headers.get("x-gitlab-encoding")).toBe("base64");
    expect(res.headers.get("x-gitlab-content-sha256")).toBe(expected.content_sha256);
    expect(res.headers.get("x-gitlab-ref")).toBe("main");
    expect(res.headers.get("x-gitlab-blob-id")).toBe(expected.blob_id);
    expect(res.headers.get("x-gitlab-commit-id")).toBe(commits.third);
    expect(res.headers.get("x-gitlab-last-commit-id")).toBe(commits.third);
    expect(res.headers.get("x-gitlab-execute-filemode")).toBe("false");
  });

  it("reads nested and executable files at any ref, with the last commit that touched them, in few statements", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const nested = await api.get(filesPath(project, "docs/guide/intro.md"), { query: { ref: commits.third } });
    expect(await nested.json()).toMatchObject({
      file_name: "intro.md",
      file_path: "docs/guide/intro.md",
      ref: commits.third,
      commit_id: commits.third,
      last_commit_id: commits.second,
      content: toBase64(utf8("intro\n")),
    });
    expect(Number(nested.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    const script = (await (await api.get(filesPath(project, "bin/run.sh"), { query: { ref: "main" } })).json()) as Json;
    expect(script).toMatchObject({ execute_filemode: true, last_commit_id: commits.second });
    const old = (await (await api.get(filesPath(project, "README.md"), { query: { ref: commits.first.slice(0, 8) } })).json()) as Json;
    expect(old).toMatchObject({ commit_id: commits.first, last_commit_id: commits.first, content: toBase64(utf8("# Hello\n")) });
    // A .txt file is still answered as JSON.
    await commitTo(project, "main", [{ action: "create", filePath: "notes.txt", content: "n\n" }]);
    const txt = await api.get(filesPath(project, "notes.txt"), { query: { ref: "main" } });
    expect(txt.headers.get("content-type")).toBe("application/json");
  });

  it("follows renames, deletions and files replaced by directories", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const moved = await commitTo(project, "main", [{ action: "move", previousPath: "src/app.js", filePath: "lib/app.js" }]);
    const get = async (path: string) => statusAndBody(await api.get(filesPath(project, path), { query: { ref: "main" } }));
    expect((await get("lib/app.js"))[1]).toMatchObject({ last_commit_id: moved, content: toBase64(utf8("one\ntwo\n")) });
    expect(await get("src/app.js")).toEqual([404, { message: "404 File Not Found" }]);
    await commitTo(project, "main", [{ action: "delete", filePath: "bin/run.sh" }]);
    expect(await get("bin/run.sh")).toEqual([404, { message: "404 File Not Found" }]);
    const readd = await commitTo(project, "main", [{ action: "create", filePath: "bin/run.sh/inner", content: "x\n" }]);
    expect(await get("bin/run.sh")).toEqual([404, { message: "404 File Not Found" }]);
    expect((await get("bin/run.sh/inner"))[1]).toMatchObject({ last_commit_id: readd });
  });

  it("answers GitLab's errors: parameters, paths, unknown ref and missing file", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const base = `/projects/${project.id}/repository/files`;
    expect(await statusAndBody(await api.get(`${base}/README.md`))).toEqual([400, { error: "ref is missing" }]);
    expect(await statusAndBody(await api.get(`${base}/README.md`, { query: { ref: "" } }))).toEqual([400, { error: "ref is empty" }]);
    expect(await statusAndBody(await api.get(`${base}/%2e%2e%2f`, { query: { ref: "main" } }))).toEqual([400, { error: "file_path should be a valid file path" }]);
    expect(await statusAndBody(await api.get(`${base}/%2Fetc%2Fpasswd.rb`))).toEqual([400, { error: "file_path should be a valid file path, ref is missing" }]);
    expect(await statusAndBody(await api.get(`${base}/a%25252Fb`, { query: { ref: "main" } }))).toEqual([400, { error: "file_path should be a valid file path" }]);
    expect(await statusAndBody(await api.get(`${base}/README.md`, { query: { ref: "nope" } }))).toEqual([404, { message: "404 Commit Not Found" }]);
    expect(await statusAndBody(await api.get(`${base}/app%2Fmodels%2Fapplication%2Erb`, { query: { ref: "main" } }))).toEqual([404, { message: "404 File Not Found" }]);
    expect(await statusAndBody(await api.get(`${base}/docs`, { query: { ref: "main" } }))).toEqual([404, { message: "404 File Not Found" }]);
    // Not URL-encoded: the path has several segments and no route matches (GitLab's NO_SLASH_URL_PART_REGEX).
    expect(await statusAndBody(await api.get(`${base}/docs/guide/intro.md`, { query: { ref: "main" } }))).toEqual([404, { error: "404 Not Found" }]);
  });

  it("answers HEAD with the headers only", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const res = await api.head(filesPath(project, "src/app.js"), { query: { ref: "main" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    expect(res.headers.get("x-gitlab-file-name")).toBe("app.js");
    expect(res.headers.get("x-gitlab-last-commit-id")).toBe(commits.first);
    expect((await api.head(filesPath(project, "nope.md"), { query: { ref: "main" } })).status).toBe(404);
    expect((await api.head(filesPath(project, "nope.md"))).status).toBe(400);
  });

  it("is readable anonymously on a public project, and by reporters of a private one", async () => {
    const w = await world();
    const reporter = await w.user();
    const open = await smallRepo(w, { visibility: "public" });
    expect((await w.anonymous.get(filesPath(open.project, "README.md"), { query: { ref: "main" } })).status).toBe(200);
    const closed = await smallRepo(w, { reporters: [reporter] });
    expect((await w.as(reporter).get(filesPath(closed.project, "README.md"), { query: { ref: "main" } })).status).toBe(200);
    expect(await statusAndBody(await w.anonymous.get(filesPath(closed.project, "README.md"), { query: { ref: "main" } }))).toEqual([
      404,
      { message: "404 Project Not Found" },
    ]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(filesPath(project, "README.md"), { query: { ref: "main" } }));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(filesPath(project, "README.md"), { query: { ref: "main" } }));
});

describe("GET /projects/:id/repository/files/:file_path/raw", () => {
  it("sends the bytes as plain text, inline, with the metadata headers; ref defaults to the default branch", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const res = await api.get(`${filesPath(project, "docs/guide/intro.md")}/raw`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("intro\n");
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`inline; filename="intro.md"; filename*=UTF-8''intro.md`);
    expect(res.headers.get("cache-control")).toBe("max-age=0, private, must-revalidate, no-store, no-cache");
    expect(res.headers.get("pragma")).toBe("no-cache");
    expect(res.headers.get("expires")).toBe("Fri, 01 Jan 1990 00:00:00 GMT");
    expect(res.headers.get("x-gitlab-ref")).toBe("");
    expect(res.headers.get("x-gitlab-commit-id")).toBe(commits.third);
    expect(res.headers.get("x-gitlab-last-commit-id")).toBe(commits.second);
    const old = await api.get(`${filesPath(project, "README.md")}/raw`, { query: { ref: commits.first } });
    expect([await old.text(), old.headers.get("x-gitlab-ref")]).toEqual(["# Hello\n", commits.first]);
  });

  it("types binary and image content as Workhorse does", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);
    const binary = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00]);
    await commitTo(project, "main", [
      { action: "create", filePath: "logo.png", content: toBase64(png), encoding: "base64" },
      { action: "create", filePath: "tool bin", content: toBase64(binary), encoding: "base64" },
      { action: "create", filePath: "naïve.txt", content: "é\n" },
    ]);
    const image = await api.get(`${filesPath(project, "logo.png")}/raw`);
    expect([image.headers.get("content-type"), image.headers.get("content-disposition")]).toEqual([
      "image/png",
      `inline; filename="logo.png"; filename*=UTF-8''logo.png`,
    ]);
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(png);
    const elf = await api.get(`${filesPath(project, "tool bin")}/raw`);
    expect([elf.headers.get("content-type"), elf.headers.get("content-disposition")]).toEqual([
      "application/octet-stream",
      `attachment; filename="tool bin"; filename*=UTF-8''tool%20bin`,
    ]);
    expect(new Uint8Array(await elf.arrayBuffer())).toEqual(binary);
    const accented = await api.get(`${filesPath(project, "naïve.txt")}/raw`);
    expect(accented.headers.get("content-disposition")).toBe(`inline; filename="na%3Fve.txt"; filename*=UTF-8''na%C3%AFve.txt`);
  });

  it("answers 404 Commit Not Found on an empty repository, and Grape's errors", async () => {
    const w = await world();
    const owner = await w.user();
    const empty = await w.project({ owner });
    expect(await statusAndBody(await w.as(owner).get(`${filesPath(empty, "README.md")}/raw`))).toEqual([404, { message: "404 Commit Not Found" }]);
    expect(await statusAndBody(await w.as(owner).get(`${filesPath(empty, "README.md")}/raw`, { query: { ref: "" } }))).toEqual([
      400,
      { error: "ref is empty" },
    ]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(`${filesPath(project, "README.md")}/raw`));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(`${filesPath(project, "README.md")}/raw`));
});
