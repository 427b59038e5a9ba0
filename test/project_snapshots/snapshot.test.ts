import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { rows } from "../helpers/db";
import { statusAndBody } from "../helpers/client";
import { smallRepo, tagAt } from "../helpers/git";
import { world } from "../helpers/world";

const snapshotPath = (id: number | string, query = "") => `/projects/${id}/snapshot${query}`;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The members of a plain ustar archive: name, type flag and body. */
function readTar(bytes: Uint8Array) {
  const entries: { name: string; type: string; body: Uint8Array }[] = [];
  const field = (h: Uint8Array, at: number, len: number) => text(h.subarray(at, at + len)).replace(/\0.*$/s, "");
  let at = 0;
  for (; at + 512 <= bytes.length; ) {
    const h = bytes.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const size = parseInt(field(h, 124, 12), 8);
    entries.push({ name: field(h, 0, 100), type: field(h, 156, 1), body: bytes.subarray(at + 512, at + 512 + size) });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  expect(bytes.subarray(at, at + 1024).every((b) => b === 0)).toBe(true);
  return entries;
}

const HEADERS = {
  "content-disposition": 'attachment; filename="snapshot.tar"',
  "content-type": "application/x-tar",
  "content-transfer-encoding": "binary",
  "cache-control": "private",
};

function expectSnapshotHeaders(res: Response) {
  for (const [name, value] of Object.entries(HEADERS)) expect(res.headers.get(name)).toBe(value);
}

describe("GET /projects/:id/snapshot", () => {
  it("answers 401 to an anonymous caller and 403 to a non-administrator, the project's owner included, before looking the project up", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const stranger = await w.user();
    expect(await statusAndBody(await w.anonymous.get(snapshotPath(project.id)))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await api.get(snapshotPath(project.id)))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(stranger).get(snapshotPath(project.id)))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(stranger).get(snapshotPath(999_999_999)))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("answers an administrator 404 for an unknown project and 400 for a `wiki` that is not a Boolean (validated first)", async () => {
    const w = await world();
    const { project } = await smallRepo(w);
    expect(await statusAndBody(await w.root.get(snapshotPath(999_999_999)))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.root.get(snapshotPath(project.id, "?wiki=maybe")))).toEqual([400, { error: "wiki is invalid" }]);
    expect(await statusAndBody(await w.root.get(snapshotPath(999_999_999, "?wiki=maybe")))).toEqual([400, { error: "wiki is invalid" }]);
  });

  it("streams the bare repository as a tar: HEAD, packed-refs, the folders git expects, one pack and its index", async () => {
    const w = await world();
    const { project, commits } = await smallRepo(w);
    await tagAt(project, "v1.0", commits.second, "Release 1.0");
    await tagAt(project, "light", commits.first);
    const tag = ((await (await w.root.get(`/projects/${project.id}/repository/tags/v1.0`)).json()) as { target: string }).target;
    expect(tag).not.toBe(commits.second);
    for (const query of ["", "?wiki=0", "?wiki=false"]) {
      const res = await w.root.get(snapshotPath(project.id, query));
      expect(res.status).toBe(200);
      expectSnapshotHeaders(res);
      const entries = readTar(new Uint8Array(await res.arrayBuffer()));
      const names = entries.map((e) => e.name);
      const pack = names.find((n) => /^objects\/pack\/pack-[0-9a-f]{40}\.pack$/.test(n))!;
      expect(names).toEqual(["HEAD", "packed-refs", "refs/", "refs/heads/", "refs/tags/", "objects/", "objects/info/", "objects/pack/", pack, pack.replace(/\.pack$/, ".idx")]);
      const body = (name: string) => entries.find((e) => e.name === name)!.body;
      expect(text(body("HEAD"))).toBe("ref: refs/heads/main\n");
      expect(text(body("packed-refs"))).toBe(
        `# pack-refs with: sorted \n${commits.third} refs/heads/main\n${commits.first} refs/tags/light\n${tag} refs/tags/v1.0\n^${commits.second}\n`,
      );
      // Three commits, a tag, and their trees and blobs: the pack's count is the index's last fan-out entry.
      const packBytes = body(pack);
      expect(text(packBytes.subarray(0, 4))).toBe("PACK");
      const count = new DataView(packBytes.buffer, packBytes.byteOffset + 8, 4).getUint32(0);
      const idx = body(pack.replace(/\.pack$/, ".idx"));
      expect([...idx.subarray(0, 8)]).toEqual([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]);
      expect(new DataView(idx.buffer, idx.byteOffset + 8 + 255 * 4, 4).getUint32(0)).toBe(count);
      // 3 commits, 1 tag, 7 trees (three roots, src, docs, docs/guide, bin), 5 blobs (README twice, app.js, intro.md, run.sh).
      expect(count).toBe(16);
      // The index names the pack's checksum (its last 20 bytes).
      expect([...idx.subarray(idx.length - 40, idx.length - 20)]).toEqual([...packBytes.subarray(packBytes.length - 20)]);
    }
  });

  it("answers `wiki=true` as GitLab does for a wiki repository that does not exist: 200, the tar headers, an empty body", async () => {
    const w = await world();
    const { project } = await smallRepo(w);
    const res = await w.root.get(snapshotPath(project.id, "?wiki=true"));
    expect(res.status).toBe(200);
    expectSnapshotHeaders(res);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it("`wiki=true` of a written wiki: the wiki's own repository (its branch and commit), not the project's", async () => {
    const w = await world();
    const { project } = await smallRepo(w);
    const created = await w.root.post(`/projects/${project.id}/wikis`, { json: { title: "home", content: "hi" } });
    expect(created.status).toBe(201);
    const [{ target }] = await rows<{ target: string }>(
      w,
      sql`SELECT r.target FROM git_refs r JOIN wikis k ON r.project_id = -k.id WHERE k.project_id = ${project.id}`,
    );
    const res = await w.root.get(snapshotPath(project.id, "?wiki=true"));
    expect(res.status).toBe(200);
    expectSnapshotHeaders(res);
    const entries = readTar(new Uint8Array(await res.arrayBuffer()));
    const body = (name: string) => text(entries.find((e) => e.name === name)!.body);
    expect(body("HEAD")).toBe("ref: refs/heads/main\n");
    expect(body("packed-refs")).toBe(`# pack-refs with: sorted \n${target.trim()} refs/heads/main\n`);
  });

  it("an empty repository: HEAD and the folders, no packed-refs and no pack", async () => {
    const w = await world();
    const project = await w.project();
    const res = await w.root.get(snapshotPath(project.id));
    expect(res.status).toBe(200);
    const names = readTar(new Uint8Array(await res.arrayBuffer())).map((e) => e.name);
    expect(names).toEqual(["HEAD", "refs/", "refs/heads/", "refs/tags/", "objects/", "objects/info/", "objects/pack/"]);
  });
});
