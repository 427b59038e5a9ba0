import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Bindings } from "../../functions/kernel/env";
import { statusAndBody, worker } from "../helpers/client";
import { world } from "../helpers/world";
import { bytesOf, digestHex } from "../helpers/bytes";

// Package files larger than the 10 MiB the parameter reader buffers stream into R2 (docs/uploads.md).

const bindings = env as unknown as Bindings;
const MiB = 1024 * 1024;
const BOUNDARY = "----edgeforge-pypi-boundary-d41d8cd98f";

const hex = digestHex;
const text = (s: string) => new TextEncoder().encode(s);

/** `bytes` as a stream of 1 MiB chunks (no Content-Length), optionally broken after `breakAfter` chunks. */
function streamOf(pieces: Uint8Array[], breakAfter = Infinity): ReadableStream<Uint8Array> {
  const chunks = pieces.flatMap((p) => Array.from({ length: Math.ceil(p.length / MiB) || 1 }, (_, i) => p.subarray(i * MiB, (i + 1) * MiB)));
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === breakAfter) return controller.error(new Error("connection lost"));
      const next = chunks[sent++];
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

async function setup() {
  const w = await world();
  const dev = await w.user();
  const project = await w.project({ developers: [dev] });
  return { w, dev, project };
}

const objectsOf = async (projectId: number) => (await bindings.BLOBS.list({ prefix: `packages/${projectId}/` })).objects;

describe("PUT /projects/:id/packages/generic/:package_name/:package_version/:file_name (streamed)", () => {
  it("stores a 12 MiB body sent without a length, with its digests, and serves it byte for byte", async () => {
    const { w, dev, project } = await setup();
    const bytes = bytesOf(12 * MiB, 5);
    const path = `/projects/${project.id}/packages/generic/tool/1.0.0/tool.bin`;
    const res = await worker.fetch(new Request(`http://edgeforge.test/api/v4${path}?select=package_file`, { method: "PUT", headers: { "PRIVATE-TOKEN": dev.token }, body: streamOf([bytes]) }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ size: 12 * MiB, file_md5: await hex("MD5", bytes), file_sha1: await hex("SHA-1", bytes), file_sha256: await hex("SHA-256", bytes) });
    const got = await w.as(dev).get(path);
    expect(got.headers.get("content-length")).toBe(String(12 * MiB));
    expect(await hex("SHA-256", await got.arrayBuffer())).toBe(await hex("SHA-256", bytes));
  });

  it("leaves no package and no object when the body ends before its Content-Length", async () => {
    const { w, dev, project } = await setup();
    const body = streamOf([bytesOf(7 * MiB, 6)]);
    const headers = { "PRIVATE-TOKEN": dev.token, "Content-Length": String(8 * MiB) };
    const res = await worker.fetch(new Request(`http://edgeforge.test/api/v4/projects/${project.id}/packages/generic/tool/1.0.0/tool.bin`, { method: "PUT", headers, body })).catch(() => null);
    // workerd may refuse the short body itself; either way nothing is kept.
    if (res) expect(await statusAndBody(res)).toEqual([400, { message: "400 Bad request - the body could not be read to its end" }]);
    expect(await (await w.as(dev).get(`/projects/${project.id}/packages`)).json()).toEqual([]);
    expect(await objectsOf(project.id)).toEqual([]);
  });
});

describe("POST /projects/:id/packages/pypi (streamed)", () => {
  const field = (name: string, value: string) => text(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  const fileHead = (name: string) => text(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="content"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const upload = (projectId: number, token: string, pieces: Uint8Array[]) =>
    worker.fetch(
      new Request(`http://edgeforge.test/api/v4/projects/${projectId}/packages/pypi`, {
        method: "POST",
        headers: { Authorization: `Basic ${btoa(`__token__:${token}`)}`, "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
        body: streamOf(pieces),
      }),
    );

  it("takes a 12 MiB wheel (over the 10 MiB the parameter reader buffers), fields after the file included", async () => {
    const { dev, project } = await setup();
    const wheel = bytesOf(12 * MiB, 8);
    const sha = await hex("SHA-256", wheel);
    const res = await upload(project.id, dev.token, [field(":action", "file_upload"), field("name", "big"), fileHead("big-1.0-py3-none-any.whl"), wheel, text("\r\n"), field("version", "1.0"), field("sha256_digest", sha), text(`--${BOUNDARY}--\r\n`)]);
    expect(await statusAndBody(res)).toEqual([201, { message: "201 Created" }]);
    const got = await worker.fetch(new Request(`http://edgeforge.test/api/v4/projects/${project.id}/packages/pypi/files/${sha}/big-1.0-py3-none-any.whl`, { headers: { Authorization: `Basic ${btoa(`__token__:${dev.token}`)}` } }));
    expect(got.status).toBe(200);
    expect(await hex("SHA-256", await got.arrayBuffer())).toBe(sha);
  });

  it("keeps nothing when the digest does not match or a field is missing", async () => {
    const { dev, project } = await setup();
    const wheel = bytesOf(6 * MiB, 9);
    const wrong = await upload(project.id, dev.token, [field("name", "big"), field("version", "1.0"), field("sha256_digest", "0".repeat(64)), fileHead("big-1.0.whl"), wheel, text(`\r\n--${BOUNDARY}--\r\n`)]);
    expect(await statusAndBody(wrong)).toEqual([400, { message: "400 Bad request - sha256_digest does not match the file" }]);
    const missing = await upload(project.id, dev.token, [field("name", "big"), fileHead("big-1.0.whl"), wheel, text(`\r\n--${BOUNDARY}--\r\n`)]);
    expect(await statusAndBody(missing)).toEqual([400, { error: "version is missing" }]);
    expect(await objectsOf(project.id)).toEqual([]);
  });
});
