import { describe, expect, it } from "vitest";
import { world } from "../helpers/world";
import { commitOn } from "../helpers/commits";
import { getObject, lfsContent, pointerFile, putObject } from "../helpers/lfs";

describe("PUT /<full_path>.git/gitlab-lfs/objects/:oid/:size", () => {
  it("stores an object whose SHA-256 and size match, and refuses one that does not", async () => {
    const w = await world();
    const developer = await w.user();
    const project = await w.project({ developers: [developer] });
    const a = await lfsContent();
    const b = await lfsContent();
    const wrongHash = await putObject(project, developer, a.oid, b.size, b.bytes);
    expect([wrongHash.status, await wrongHash.text()]).toEqual([400, "SHA256 or size mismatch"]);
    const wrongSize = await putObject(project, developer, a.oid, a.size + 1, a.bytes);
    expect([wrongSize.status, await wrongSize.text()]).toEqual([400, "SHA256 or size mismatch"]);
    expect((await getObject(project, developer, a.oid)).status).toBe(404);
    const ok = await putObject(project, developer, a.oid, a.size, a.bytes);
    expect([ok.status, await ok.text()]).toEqual([200, ""]);
    // A second upload of a stored object is accepted and changes nothing.
    expect((await putObject(project, developer, a.oid, a.size, a.bytes)).status).toBe(200);
  });

  it("is for those who may push: reporters 403, anonymous 401", async () => {
    const w = await world();
    const reporter = await w.user();
    const project = await w.project({ reporters: [reporter], visibility: "public" });
    const a = await lfsContent();
    expect((await putObject(project, reporter, a.oid, a.size, a.bytes)).status).toBe(403);
    expect((await putObject(project, null, a.oid, a.size, a.bytes)).status).toBe(401);
  });
});

describe("GET /<full_path>.git/gitlab-lfs/objects/:oid", () => {
  it("sends the bytes to readers of the project, 404 elsewhere", async () => {
    const w = await world();
    const developer = await w.user();
    const reporter = await w.user();
    const project = await w.project({ developers: [developer], reporters: [reporter] });
    const other = await w.project({ developers: [developer] });
    const a = await lfsContent("x".repeat(70_000));
    await putObject(project, developer, a.oid, a.size, a.bytes);
    const res = await getObject(project, reporter, a.oid);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(a.bytes);
    expect((await getObject(other, developer, a.oid)).status).toBe(404);
    expect((await getObject(project, w.stranger, a.oid)).status).toBe(404);
    expect((await getObject(project, null, a.oid)).status).toBe(401);
  });
});

describe("GET /projects/:id/repository/files/:file_path/raw?lfs=true", () => {
  it("answers the LFS object's content for a pointer, the pointer without lfs, and 404 for an object the project lacks", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const api = w.as(owner);
    const a = await lfsContent("binary\u0000content");
    const missing = await lfsContent();
    await putObject(project, owner, a.oid, a.size, a.bytes);
    await commitOn(api, project, "main", "lfs", [
      { action: "create", file_path: "big.bin", content: pointerFile(a.oid, a.size) },
      { action: "create", file_path: "gone.bin", content: pointerFile(missing.oid, missing.size) },
      { action: "create", file_path: "plain.txt", content: "plain\n" },
    ]);
    const raw = (file: string, query: Record<string, string>) => api.get(`/projects/${project.id}/repository/files/${file}/raw`, { query });
    const lfs = await raw("big.bin", { ref: "main", lfs: "true" });
    expect(lfs.status).toBe(200);
    expect(lfs.headers.get("content-type")).toBe("application/octet-stream");
    expect(lfs.headers.get("content-disposition")).toMatch(/^attachment; filename="big.bin"/);
    expect(new Uint8Array(await lfs.arrayBuffer())).toEqual(a.bytes);
    expect(await (await raw("big.bin", { ref: "main" })).text()).toBe(pointerFile(a.oid, a.size));
    expect(await (await raw("big.bin", { ref: "main", lfs: "false" })).text()).toBe(pointerFile(a.oid, a.size));
    expect(await (await raw("plain.txt", { ref: "main", lfs: "true" })).text()).toBe("plain\n");
    const gone = await raw("gone.bin", { ref: "main", lfs: "true" });
    expect([gone.status, await gone.json()]).toEqual([404, { message: "404 Not found" }]);
    const bad = await raw("big.bin", { ref: "main", lfs: "maybe" });
    expect([bad.status, await bad.json()]).toEqual([400, { error: "lfs is invalid" }]);
  });
});
