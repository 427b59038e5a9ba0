// Blobs over 1 MiB live in R2 (docs/git.md, "Principles", "Limits"): a push through receive-pack and an
// API commit store them as a row without inline data plus an R2 object `git/<pool>/<oid>` holding the
// zlib body; every reader (upload-pack's pack, blobs, files, raw, archive) gives back the exact bytes
// under the exact id. The git CLI side (push, clone, `git fsck --full`) is test/e2e/git_http.test.mjs.
import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { gunzipSync, unzlibSync } from "fflate";
import { describe, expect, it } from "vitest";
import { PackWriter, readPack, PackResolver } from "../../functions/shared/git/pack/pack";
import { FLUSH, pkt, readPkt, pktText } from "../../functions/shared/git/pack/pktline";
import { ByteReader } from "../../functions/shared/git/pack/reader";
import { blobObject, commitObject, deflate, treeObject, TYPE_CODE, type RawObject } from "../../functions/shared/git/pure/objects";
import { BASE, worker } from "../helpers/client";
import { world, type TestProject, type TestUser, type World } from "../helpers/world";

const MiB = 1024 * 1024;
const blobs = (env as unknown as { BLOBS: R2Bucket }).BLOBS;

/** Incompressible, deterministic bytes (xorshift32): the zlib body stays over 1 MiB too. */
function noise(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const basic = (u: TestUser) => `Basic ${btoa(`anyone:${u.token}`)}`;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A pack of whole objects, as `git pack-objects` would send them without deltas. */
function packOf(objects: RawObject[]): Uint8Array {
  const writer = new PackWriter();
  return concat([writer.header(objects.length), ...objects.map((o) => writer.entry(TYPE_CODE[o.type], o.body.length, deflate(o.body))), writer.trailer()]);
}

/** One commit on `refs/heads/main` holding `files`, pushed as a new branch; the report-status text. */
async function push(user: TestUser, project: TestProject, objects: RawObject[], commit: string) {
  const command = pkt(`${"0".repeat(40)} ${commit} refs/heads/main\0report-status\n`);
  const res = await worker.fetch(
    new Request(`${BASE}/${project.fullPath}.git/git-receive-pack`, {
      method: "POST",
      headers: { Authorization: basic(user), "Content-Type": "application/x-git-receive-pack-request" },
      body: concat([command, FLUSH, packOf(objects)]),
    }),
  );
  expect(res.status).toBe(200);
  return new TextDecoder().decode(await res.arrayBuffer());
}

async function storedRow(w: World, projectId: number, oid: string) {
  const result = await w.db((db) =>
    db.execute<{ size: number; inline: boolean; r2_key: string | null }>(
      sql`SELECT o.size, o.zdata IS NOT NULL AS inline, o.r2_key FROM git_objects o JOIN projects p ON o.pool_id = COALESCE(p.pool_id, p.id)
          WHERE p.id = ${projectId} AND o.oid = decode(${oid}, 'hex')`,
    ),
  );
  return result.rows[0] ?? null;
}

/** `git fetch` of `want` over protocol v2: every object of the pack, resolved, by id. */
async function fetchObjects(user: TestUser, project: TestProject, want: string): Promise<Map<string, RawObject>> {
  const body = concat([pkt("command=fetch\n"), pkt("agent=git/2.39\n"), pkt("object-format=sha1\n"), new TextEncoder().encode("0001"), pkt(`want ${want}\n`), pkt("no-progress\n"), pkt("done\n"), FLUSH]);
  const res = await worker.fetch(
    new Request(`${BASE}/${project.fullPath}.git/git-upload-pack`, {
      method: "POST",
      headers: { Authorization: basic(user), "Git-Protocol": "version=2", "Content-Type": "application/x-git-upload-pack-request" },
      body,
    }),
  );
  expect(res.status).toBe(200);
  const reader = new ByteReader(new Uint8Array(await res.arrayBuffer()));
  const pack: Uint8Array[] = [];
  let inPack = false;
  for (;;) {
    const line = await readPkt(reader);
    if (!line || line.kind === "flush") break;
    if (line.kind !== "data") continue;
    if (!inPack) {
      inPack = pktText(line.payload) === "packfile";
      continue;
    }
    if (line.payload[0] === 1) pack.push(line.payload.subarray(1));
    else if (line.payload[0] === 3) throw new Error(new TextDecoder().decode(line.payload.subarray(1)));
  }
  const out = new Map<string, RawObject>();
  const resolver = new PackResolver(async () => null);
  for await (const entry of readPack(new ByteReader(concat(pack)))) {
    const object = await resolver.add(entry);
    if (object) out.set(object.oid, { oid: object.oid, type: object.type, body: object.body });
  }
  return out;
}

/** The members of a tar archive by name. */
function untar(tar: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  let at = 0;
  let longName: string | null = null;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const name = new TextDecoder().decode(header.subarray(0, 100)).replace(/\0.*$/s, "");
    const prefix = new TextDecoder().decode(header.subarray(345, 500)).replace(/\0.*$/s, "");
    const size = parseInt(new TextDecoder().decode(header.subarray(124, 136)).replace(/\0.*$/s, "").trim(), 8);
    const type = String.fromCharCode(header[156]);
    const data = tar.subarray(at + 512, at + 512 + size);
    if (type === "x" || type === "g") {
      // A pax header may carry the long path of the next member.
      const path = /\d+ path=(.*)\n/.exec(new TextDecoder().decode(data));
      if (path && type === "x") longName = path[1];
    } else if (type === "0" || type === "\0") {
      files.set(longName ?? (prefix ? `${prefix}/${name}` : name), data);
      longName = null;
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

describe("blobs over 1 MiB in R2", () => {
  it("a push stores a 3 MiB blob in R2 (no inline data) and every read path gives back its exact bytes", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const big = noise(3 * MiB, 7);
    const blob = await blobObject(big);
    const small = await blobObject(new TextEncoder().encode("small\n"));
    const tree = await treeObject([
      { mode: "100644", name: "big.bin", oid: blob.oid },
      { mode: "100644", name: "small.txt", oid: small.oid },
    ]);
    const ident = { name: "Pusher", email: "pusher@example.com", time: 1_700_000_000, tz: "+0000" };
    const commit = await commitObject({ tree: tree.oid, parents: [], author: ident, committer: ident, message: "big\n", extraHeaders: [] });
    const report = await push(owner, project, [commit, tree, blob, small], commit.oid);
    expect(report).toContain("unpack ok");
    expect(report).toContain("ok refs/heads/main");

    // The row keeps type and size, R2 the zlib body; small objects stay inline.
    const row = await storedRow(w, project.id, blob.oid);
    expect(row).toEqual({ size: 3 * MiB, inline: false, r2_key: `git/${project.id}/${blob.oid}` });
    expect((await storedRow(w, project.id, small.oid))?.inline).toBe(true);
    const r2 = await blobs.get(row!.r2_key!);
    expect(r2).not.toBeNull();
    expect(equalBytes(unzlibSync(new Uint8Array(await r2!.arrayBuffer())), big)).toBe(true);

    const api = w.as(owner);
    const raw = await api.get(`/projects/${project.id}/repository/blobs/${blob.oid}/raw`);
    expect(raw.status).toBe(200);
    expect(equalBytes(new Uint8Array(await raw.arrayBuffer()), big)).toBe(true);
    const json = await api.get(`/projects/${project.id}/repository/blobs/${blob.oid}`);
    expect(json.status).toBe(200);
    const entity = (await json.json()) as { size: number; sha: string; encoding: string; content: string };
    expect([entity.size, entity.sha, entity.encoding]).toEqual([3 * MiB, blob.oid, "base64"]);
    const fileRaw = await api.get(`/projects/${project.id}/repository/files/big.bin/raw`, { query: { ref: "main" } });
    expect(fileRaw.status).toBe(200);
    expect(equalBytes(new Uint8Array(await fileRaw.arrayBuffer()), big)).toBe(true);
    const file = await api.get(`/projects/${project.id}/repository/files/big.bin`, { query: { ref: "main" } });
    expect(file.status).toBe(200);
    expect(((await file.json()) as { blob_id: string; size: number })).toMatchObject({ blob_id: blob.oid, size: 3 * MiB });

    // A fetch streams the R2 body into the pack: the object resolves to the same id and bytes.
    const fetched = await fetchObjects(owner, project, commit.oid);
    expect([...fetched.keys()].sort()).toEqual([commit.oid, tree.oid, blob.oid, small.oid].sort());
    expect(equalBytes(fetched.get(blob.oid)!.body, big)).toBe(true);

    // The archive reads blobs through the same store.
    const archive = await api.get(`/projects/${project.id}/repository/archive.tar.gz`, { query: { sha: "main" } });
    expect(archive.status).toBe(200);
    const members = untar(gunzipSync(new Uint8Array(await archive.arrayBuffer())));
    const member = [...members.entries()].find(([name]) => name.endsWith("/big.bin"));
    expect(member && equalBytes(member[1], big)).toBe(true);

    // The commit's diff sees a binary file added.
    const diff = await api.get(`/projects/${project.id}/repository/commits/${commit.oid}/diff`);
    expect(diff.status).toBe(200);
    expect(((await diff.json()) as { new_path: string; new_file: boolean }[]).find((d) => d.new_path === "big.bin")).toMatchObject({ new_file: true });
  });

  it("an API commit with a 2 MiB file writes it to R2 before its row; it reads back byte for byte", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const content = noise(2 * MiB, 11);
    const api = w.as(owner);
    const created = await api.post(`/projects/${project.id}/repository/commits`, {
      json: {
        branch: "main",
        commit_message: "add a large file",
        actions: [{ action: "create", file_path: "data/large.bin", content: toBase64(content), encoding: "base64" }],
      },
    });
    expect(created.status).toBe(201);
    const oid = (await blobObject(content)).oid;
    const row = await storedRow(w, project.id, oid);
    expect(row).toEqual({ size: 2 * MiB, inline: false, r2_key: `git/${project.id}/${oid}` });
    expect(await blobs.head(row!.r2_key!)).not.toBeNull();
    const raw = await api.get(`/projects/${project.id}/repository/files/${encodeURIComponent("data/large.bin")}/raw`, { query: { ref: "main" } });
    expect(raw.status).toBe(200);
    expect(equalBytes(new Uint8Array(await raw.arrayBuffer()), content)).toBe(true);
    // A second commit that moves the file keeps the blob (same id, same R2 object).
    const moved = await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "main", commit_message: "move", actions: [{ action: "move", previous_path: "data/large.bin", file_path: "large.bin" }] },
    });
    expect(moved.status).toBe(201);
    const again = await api.get(`/projects/${project.id}/repository/blobs/${oid}/raw`);
    expect(equalBytes(new Uint8Array(await again.arrayBuffer()), content)).toBe(true);
  });
});

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}
