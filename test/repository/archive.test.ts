import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { Bzip2Encoder } from "../../functions/shared/git/pure/bzip2";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { commitTo, smallRepo } from "../helpers/git";

const archivePath = (project: { id: number }, suffix = "") => `/projects/${project.id}/repository/archive${suffix}`;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

/** A minimal tar reader: entries with pax `path` records applied; checks every header's checksum. */
function readTar(bytes: Uint8Array) {
  const entries: { name: string; type: string; mode: number; mtime: number; body: string; link: string }[] = [];
  const field = (h: Uint8Array, at: number, len: number) => text(h.subarray(at, at + len)).replace(/\0.*$/s, "");
  let paxPath: string | null = null;
  let comment: string | null = null;
  for (let at = 0; at + 512 <= bytes.length; ) {
    const h = bytes.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i];
    expect(parseInt(field(h, 148, 8), 8)).toBe(sum);
    const size = parseInt(field(h, 124, 12), 8);
    const type = field(h, 156, 1);
    const body = bytes.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === "g") comment = /comment=([0-9a-f]+)/.exec(text(body))![1];
    else if (type === "x") paxPath = /\d+ path=(.*)\n/.exec(text(body))![1];
    else {
      entries.push({ name: paxPath ?? field(h, 0, 100), type, mode: parseInt(field(h, 100, 8), 8), mtime: parseInt(field(h, 136, 12), 8), body: text(body), link: field(h, 157, 100) });
      paxPath = null;
    }
  }
  return { comment, entries };
}

async function gunzip(res: Response) {
  return new Uint8Array(await new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
}

describe("GET /projects/:id/repository/archive[.format]", () => {
  it("streams a tar.gz of the default branch under <path>-<ref>-<sha>/, as git archive lays it out", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const long = `${"deep/".repeat(22)}file.txt`;
    const head = await commitTo(project, "main", [{ action: "create", filePath: long, content: "x\n" }]);
    const res = await api.get(archivePath(project));
    expect(res.status).toBe(200);
    const prefix = `${project.path}-main-${head}`;
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${prefix}.tar.gz"`);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    const tar = readTar(await gunzip(res));
    expect(tar.comment).toBe(head);
    const names = tar.entries.map((e) => e.name);
    expect(names.slice(0, 6)).toEqual([`${prefix}/`, `${prefix}/README.md`, `${prefix}/bin/`, `${prefix}/bin/run.sh`, `${prefix}/deep/`, `${prefix}/deep/deep/`]);
    expect(names).toContain(`${prefix}/${long}`);
    expect(names).toContain(`${prefix}/src/app.js`);
    const script = tar.entries.find((e) => e.name.endsWith("bin/run.sh"))!;
    expect([script.type, script.mode, script.body]).toEqual(["0", 0o775, "#!/bin/sh\n"]);
    const readme = tar.entries.find((e) => e.name.endsWith("README.md"))!;
    expect([readme.mode, readme.body]).toEqual([0o664, "# Hello\nworld\n"]);
    expect(tar.entries.find((e) => e.name === `${prefix}/`)!.type).toBe("5");
    expect(commits.third).not.toBe(head);
  });

  it("takes sha and path, and the format from the extension or the parameter (tar, zip)", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const res = await api.get(archivePath(project, ".tar"), { query: { sha: commits.second, path: "docs" } });
    const prefix = `${project.path}-${commits.second}-${commits.second}-docs`;
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${prefix}.tar"`);
    const tar = readTar(new Uint8Array(await res.arrayBuffer()));
    expect(tar.entries.map((e) => e.name)).toEqual([`${prefix}/`, `${prefix}/docs/`, `${prefix}/docs/guide/`, `${prefix}/docs/guide/intro.md`]);

    const zip = await api.get(archivePath(project), { query: { format: "zip", sha: "main" } });
    expect(zip.headers.get("content-type")).toBe("application/zip");
    const zprefix = `${project.path}-main-${commits.third}`;
    expect(zip.headers.get("content-disposition")).toBe(`attachment; filename="${zprefix}.zip"`);
    const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    expect(text(files[`${zprefix}/src/app.js`])).toBe("one\ntwo\n");
    expect(Object.keys(files)).toContain(`${zprefix}/docs/guide/`);
    // tgz is tar.gz
    const tgz = await api.get(archivePath(project, ".tgz"));
    expect(tgz.headers.get("content-disposition")).toBe(`attachment; filename="${zprefix}.tar.gz"`);
    expect(readTar(await gunzip(tgz)).entries.length).toBeGreaterThan(5);
  });

  it("streams a tar.bz2: the tar, bzip2-compressed block by block (900 kB blocks), holding what the tar.gz holds", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    // Over one block (900 kB after bzip2's run-length step): digits of a pseudo-random sequence.
    let seed = 7;
    const digits = Array.from({ length: 1_200_000 }, () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) >> 16) % 10).join("");
    const head = await commitTo(project, "main", [{ action: "create", filePath: "data/digits.txt", content: digits }]);
    const prefix = `${project.path}-main-${head}`;
    const res = await api.get(archivePath(project, ".tar.bz2"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${prefix}.tar.bz2"`);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-transfer-encoding")).toBe("binary");
    const bz2 = new Uint8Array(await res.arrayBuffer());
    expect(text(bz2.subarray(0, 4))).toBe("BZh9");
    // The same tar as format=tar, compressed by the encoder (test/node/bzip2.test.mjs decodes the
    // encoder's output with the system's `bzip2 -d`); the tar holds what the tar.gz holds.
    const tar = new Uint8Array(await (await api.get(archivePath(project, ".tar"))).arrayBuffer());
    const encoder = new Bzip2Encoder();
    const firstBlocks = encoder.push(tar);
    // More than the header came out before the end: a full block was compressed on its own.
    expect(firstBlocks.length).toBeGreaterThan(100_000);
    expect(bz2).toEqual(concat(firstBlocks, encoder.finish()));
    const members = readTar(tar).entries.map((e) => e.name);
    expect(members).toEqual(readTar(await gunzip(await api.get(archivePath(project, ".tar.gz")))).entries.map((e) => e.name));
    expect(readTar(tar).entries.find((e) => e.name === `${prefix}/data/digits.txt`)!.body).toBe(digits);
  });

  it("takes tar.bz2 as tbz, tbz2, tb2, bz2 or format=tar.bz2, with sha and path", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const bz2Of = (tar: Uint8Array) => {
      const encoder = new Bzip2Encoder();
      return concat(encoder.push(tar), encoder.finish());
    };
    const prefix = `${project.path}-main-${commits.third}`;
    const tar = new Uint8Array(await (await api.get(archivePath(project, ".tar"))).arrayBuffer());
    for (const suffix of [".tbz", ".tbz2", ".tb2", ".bz2"]) {
      const res = await api.get(archivePath(project, suffix));
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${prefix}.tar.bz2"`);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(bz2Of(tar));
    }
    const query = { format: "tar.bz2", sha: commits.second, path: "docs" };
    const res = await api.get(archivePath(project), { query });
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${project.path}-${commits.second}-${commits.second}-docs.tar.bz2"`);
    const docsTar = new Uint8Array(await (await api.get(archivePath(project), { query: { ...query, format: "tar" } })).arrayBuffer());
    expect(readTar(docsTar).entries.length).toBe(4);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bz2Of(docsTar));
  });

  it("answers 404 File Not Found for an unknown sha or path, or an empty repository", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    expect(await statusAndBody(await api.get(archivePath(project), { query: { sha: "nope" } }))).toEqual([404, { message: "404 File Not Found" }]);
    expect(await statusAndBody(await api.get(archivePath(project), { query: { path: "no/such" } }))).toEqual([404, { message: "404 File Not Found" }]);
    expect(await statusAndBody(await api.get(archivePath(project, ".tar.bz2"), { query: { sha: "nope" } }))).toEqual([404, { message: "404 File Not Found" }]);
    expect(await statusAndBody(await api.get(archivePath(project, ".rar")))).toEqual([404, { error: "404 Not Found" }]);
    const owner = await w.user();
    const empty = await w.project({ owner });
    expect(await statusAndBody(await w.as(owner).get(archivePath(empty)))).toEqual([404, { message: "404 File Not Found" }]);
  });

  it("lets anyone download a public project's archive", async () => {
    const w = await world();
    const { project } = await smallRepo(w, { visibility: "public" });
    const res = await w.anonymous.get(archivePath(project, ".zip"));
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  hidesPrivateProject(async (w, project) => w.as(await w.user()).get(archivePath(project)));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(archivePath(project)));
});
