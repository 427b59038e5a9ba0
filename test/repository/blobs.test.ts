import { describe, expect, it } from "vitest";
import { toBase64 } from "../../functions/shared/git/pure/bytes";
import { hashObject } from "../../functions/shared/git/pure/objects";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { commitTo, smallRepo } from "../helpers/git";
import { type Json } from "../helpers/api";

const utf8 = (text: string) => new TextEncoder().encode(text);
const blobPath = (project: { id: number }, sha: string) => `/projects/${project.id}/repository/blobs/${sha}`;
const contributorsPath = (project: { id: number }) => `/projects/${project.id}/repository/contributors`;

describe("GET /projects/:id/repository/blobs/:sha", () => {
  it("returns the blob base64-encoded with its size and id", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const content = utf8("# Hello\nworld\n");
    const sha = await hashObject("blob", content);
    expect(await statusAndBody(await api.get(blobPath(project, sha)))).toEqual([200, { size: content.length, encoding: "base64", content: toBase64(content), sha }]);
  });

  it("answers 404 Blob Not Found for unknown ids, trees and commits", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    for (const sha of ["0".repeat(40), commits.third, "main", "abc"]) {
      expect(await statusAndBody(await api.get(blobPath(project, sha)))).toEqual([404, { message: "404 Blob Not Found" }]);
    }
  });

  hidesPrivateProject(async (w, project) => w.as(await w.user()).get(blobPath(project, "0".repeat(40))));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(blobPath(project, "0".repeat(40))));
});

describe("GET /projects/:id/repository/blobs/:sha/raw", () => {
  it("returns the bytes as text/plain without caching, binary as an attachment", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const sha = await hashObject("blob", utf8("one\ntwo\n"));
    const res = await api.get(`${blobPath(project, sha)}/raw`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe("inline");
    expect(res.headers.get("cache-control")).toContain("no-store");
    expect(await res.text()).toBe("one\ntwo\n");
    await commitTo(project, "main", [{ action: "create", filePath: "b.bin", content: "AAEC/w==", encoding: "base64" }]);
    const bin = await api.get(`${blobPath(project, await hashObject("blob", new Uint8Array([0, 1, 2, 255])))}/raw`);
    expect([bin.status, bin.headers.get("content-type"), bin.headers.get("content-disposition")]).toEqual([200, "application/octet-stream", "attachment"]);
    expect(new Uint8Array(await bin.arrayBuffer())).toEqual(new Uint8Array([0, 1, 2, 255]));
    expect(await statusAndBody(await api.get(`${blobPath(project, "f".repeat(40))}/raw`))).toEqual([404, { message: "404 Blob Not Found" }]);
  });

  it("lets anyone read a public project's blob", async () => {
    const w = await world();
    const { project } = await smallRepo(w, { visibility: "public" });
    const sha = await hashObject("blob", utf8("one\ntwo\n"));
    expect((await w.anonymous.get(`${blobPath(project, sha)}/raw`)).status).toBe(200);
  });

  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(`${blobPath(project, "0".repeat(40))}/raw`));
});

describe("GET /projects/:id/repository/contributors", () => {
  it("groups non-merge commits by author email, ordered by commits ascending by default", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const bob = { name: "Bob", email: "bob@example.com" };
    await commitTo(project, "main", [{ action: "create", filePath: "b1", content: "1" }], { author: bob });
    const [status, body] = await statusAndBody(await api.get(contributorsPath(project)));
    expect(status).toBe(200);
    expect(body).toEqual([
      { name: "Bob", email: "bob@example.com", commits: 1, additions: 0, deletions: 0 },
      { name: "Alice", email: "alice@example.com", commits: 3, additions: 0, deletions: 0 },
    ]);
    const byName = (await (await api.get(contributorsPath(project), { query: { order_by: "name", sort: "desc" } })).json()) as Json[];
    expect(byName.map((x) => x.name)).toEqual(["Bob", "Alice"]);
    const page = await api.get(contributorsPath(project), { query: { order_by: "email", per_page: 1, page: 2 } });
    expect(((await page.json()) as Json[]).map((x) => x.email)).toEqual(["bob@example.com"]);
    expect([page.headers.get("x-total"), page.headers.get("x-total-pages")]).toEqual(["2", "2"]);
  });

  it("validates order_by and sort, lists nothing for an empty repository", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    expect(await statusAndBody(await api.get(contributorsPath(project), { query: { order_by: "size", sort: "up" } }))).toEqual([
      400,
      { error: "order_by does not have a valid value, sort does not have a valid value" },
    ]);
    const owner = await w.user();
    const empty = await w.project({ owner });
    expect(await statusAndBody(await w.as(owner).get(contributorsPath(empty)))).toEqual([200, []]);
  });

  hidesPrivateProject(async (w, project) => w.as(await w.user()).get(contributorsPath(project)));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(contributorsPath(project)));
});
