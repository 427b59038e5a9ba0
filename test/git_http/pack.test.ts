// The pack codec against packs the git CLI made (test/git_http/pack-fixtures.ts): every entry kind
// (whole objects, OFS_DELTA, REF_DELTA, thin REF_DELTA on outside bases) resolves to git's own ids and
// bytes, whatever the chunking of the stream; packs we write read back entry for entry.
import { zlibSync } from "fflate";
import { describe, expect, inject, it } from "vitest";
import {
  OBJ_OFS_DELTA,
  OBJ_REF_DELTA,
  PackError,
  PackResolver,
  PackTooLarge,
  PackWriter,
  applyDelta,
  readPack,
  type ObjectTypeName,
  type PackEntry,
  type ResolvedObject,
} from "../../functions/shared/git/pack/pack";
import { DELIM, FLUSH, MAX_PKT, pkt, readPkt, readPktLines, sideband } from "../../functions/shared/git/pack/pktline";
import { ByteReader } from "../../functions/shared/git/pack/reader";
import { humaniseBytes } from "../../functions/shared/git_http/receive_pack";
import "./pack-fixture-types";

const fixtures = inject("packFixtures");

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

const expected = new Map(fixtures.objects.map((o) => [o.oid, { type: o.type as ObjectTypeName, body: fromBase64(o.body) }]));

/** A stream that hands out `bytes` in pieces of `size`. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function resolveAll(source: ReadableStream<Uint8Array> | Uint8Array, outside: Map<string, { type: ObjectTypeName; body: Uint8Array }> = new Map()) {
  const reader = new ByteReader(source);
  const objects = new Map<string, ResolvedObject>();
  const entries: PackEntry[] = [];
  const resolver = new PackResolver(async (oid) => objects.get(oid) ?? outside.get(oid) ?? null, 64 * 1024);
  for await (const entry of readPack(reader, { keepCompressed: true })) {
    entries.push(entry);
    const object = await resolver.add(entry);
    if (object) objects.set(object.oid, object);
  }
  for await (const object of resolver.finish()) objects.set(object.oid, object);
  return { objects, entries };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function expectGitObjects(objects: Map<string, ResolvedObject>, oids: Iterable<string>) {
  const wanted = [...oids].sort();
  expect([...objects.keys()].sort()).toEqual(wanted);
  for (const oid of wanted) {
    const object = objects.get(oid)!;
    expect(object.type).toBe(expected.get(oid)!.type);
    expect(sameBytes(object.body, expected.get(oid)!.body), oid).toBe(true);
  }
}

describe("pack reader", () => {
  it("resolves OFS_DELTA packs made by git pack-objects --delta-base-offset", async () => {
    const { objects, entries } = await resolveAll(fromBase64(fixtures.ofsPack));
    expect(entries.some((e) => e.type === OBJ_OFS_DELTA)).toBe(true);
    expect(entries.some((e) => e.type === OBJ_REF_DELTA)).toBe(false);
    expectGitObjects(objects, expected.keys());
  });

  it("resolves REF_DELTA packs made without --delta-base-offset", async () => {
    const { objects, entries } = await resolveAll(fromBase64(fixtures.refPack));
    expect(entries.some((e) => e.type === OBJ_REF_DELTA)).toBe(true);
    expectGitObjects(objects, expected.keys());
  });

  it("resolves a thin pack against bases outside it", async () => {
    const thin = fromBase64(fixtures.thinPack);
    const { objects, entries } = await resolveAll(thin, expected);
    expect(entries.length).toBe(fixtures.thinOids.length);
    expect(entries.some((e) => e.type === OBJ_REF_DELTA && !fixtures.thinOids.includes(e.baseOid!))).toBe(true);
    expectGitObjects(objects, fixtures.thinOids);
  });

  it("a thin pack without its bases fails with the missing base named", async () => {
    await expect(resolveAll(fromBase64(fixtures.thinPack))).rejects.toThrow(/missing delta base/);
  });

  it("gives the same objects whatever the stream's chunking", async () => {
    const pack = fromBase64(fixtures.ofsPack);
    for (const size of [1, 7, 4096]) {
      const { objects } = await resolveAll(chunked(pack, size));
      expectGitObjects(objects, expected.keys());
    }
  });

  it("keeps whole objects' compressed bytes exactly as in the pack", async () => {
    const pack = fromBase64(fixtures.ofsPack);
    const { entries } = await resolveAll(pack);
    const whole = entries.filter((e) => e.type < 5);
    expect(whole.length).toBeGreaterThan(0);
    for (const entry of whole) {
      const at = pack.indexOf(entry.zdata![0], entry.offset + 1);
      expect(sameBytes(pack.subarray(at, at + entry.zdata!.length), entry.zdata!)).toBe(true);
    }
  });

  it("rejects a pack whose checksum does not match", async () => {
    const pack = fromBase64(fixtures.ofsPack).slice();
    pack[pack.length - 1] ^= 1;
    await expect(resolveAll(pack)).rejects.toThrow(PackError);
  });

  it("rejects a truncated pack", async () => {
    const pack = fromBase64(fixtures.ofsPack);
    await expect(resolveAll(pack.subarray(0, pack.length >> 1))).rejects.toThrow(/unexpected end/);
  });

  /** Every entry of `pack` read with `maxBytes` from a stream of 512-byte chunks; the bytes it pulled. */
  async function readLimited(pack: Uint8Array, maxBytes: number) {
    let pulled = 0;
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= pack.length) return controller.close();
        const piece = pack.slice(at, at + 512);
        at += piece.length;
        pulled += piece.length;
        controller.enqueue(piece);
      },
    });
    const entries: PackEntry[] = [];
    try {
      for await (const entry of readPack(new ByteReader(stream), { maxBytes })) entries.push(entry);
      return { entries, pulled, error: null };
    } catch (error) {
      return { entries, pulled, error };
    }
  }

  it("reads a pack of exactly maxBytes, and refuses one byte less as it streams (git's receive.maxInputSize)", async () => {
    const pack = fromBase64(fixtures.ofsPack);
    expect(pack.length).toBeGreaterThan(4096);
    const whole = await readLimited(pack, pack.length);
    expect(whole.error).toBeNull();
    const refused = await readLimited(pack, pack.length - 1);
    expect(refused.error).toBeInstanceOf(PackTooLarge);
    expect(refused.error).toMatchObject({ maxBytes: pack.length - 1, objects: new DataView(pack.buffer, pack.byteOffset).getUint32(8) });
    const small = await readLimited(pack, 1024);
    expect(small.error).toBeInstanceOf(PackTooLarge);
    // Refused within a chunk of the limit, not after the whole body was read.
    expect(small.pulled).toBeLessThanOrEqual(1024 + 512);
  });

  it("refuses an entry whose declared size cannot fit in what the limit leaves, before inflating it", async () => {
    // A header declaring a 2 GiB blob (more than deflate can fit in 1 MiB), in a pack limited to 1 MiB:
    // no 2 GiB buffer is allocated.
    const writer = new PackWriter();
    const pack = new Uint8Array([...writer.header(1), ...writer.entry(3, 2 ** 31, zlibSync(new Uint8Array(16))), ...new Uint8Array(20)]);
    const { error } = await readLimited(pack, 2 ** 20);
    expect(error).toBeInstanceOf(PackTooLarge);
  });

  it("words limits as git's strbuf_humanise_bytes does", () => {
    expect(humaniseBytes(2 ** 20)).toBe("1024.00 KiB");
    expect(humaniseBytes(10 * 2 ** 20)).toBe("10.00 MiB");
    expect(humaniseBytes(2 * 2 ** 30)).toBe("2.00 GiB");
    expect(humaniseBytes(1536)).toBe("1.50 KiB");
    expect(humaniseBytes(1000)).toBe("1000 bytes");
  });
});

describe("pack writer", () => {
  it("writes undeltified packs that read back to the same objects and ids", async () => {
    const writer = new PackWriter();
    const parts: Uint8Array[] = [writer.header(expected.size)];
    const code = { commit: 1, tree: 2, blob: 3, tag: 4 };
    for (const { type, body } of expected.values()) parts.push(writer.entry(code[type], body.length, zlibSync(body)));
    parts.push(writer.trailer());
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    expect(writer.written).toBe(bytes.length);
    const { objects } = await resolveAll(chunked(bytes, 1000));
    expectGitObjects(objects, expected.keys());
  });
});

describe("delta", () => {
  it("copies and inserts", () => {
    const base = new TextEncoder().encode("hello world");
    // base size 11, result size 11: copy offset 0 size 6 ("hello "), insert "there"
    const delta = new Uint8Array([11, 11, 0x90, 6, 5, ...new TextEncoder().encode("there")]);
    expect(new TextDecoder().decode(applyDelta(base, delta))).toBe("hello there");
    expect(() => applyDelta(base, new Uint8Array([12, 1, 1, 65]))).toThrow(PackError);
  });
});

describe("pkt-line", () => {
  it("frames lines, flush and delimiter, and reads them back", async () => {
    const bytes = new Uint8Array([...pkt("command=ls-refs\n"), ...DELIM, ...pkt("peel\n"), ...FLUSH]);
    expect(new TextDecoder().decode(bytes)).toBe("0014command=ls-refs\n00010009peel\n0000");
    const reader = new ByteReader(bytes);
    expect(await readPktLines(reader, true)).toEqual({ lines: ["command=ls-refs"], end: "delim" });
    expect(await readPktLines(reader)).toEqual({ lines: ["peel"], end: "flush" });
    expect(await readPkt(reader)).toBeNull();
  });

  it("splits side-band data at the 64k limit", () => {
    const frames = sideband(1, new Uint8Array(150_000));
    expect(frames.map((f) => f.length)).toEqual([MAX_PKT, MAX_PKT, 150_000 - 2 * (MAX_PKT - 5) + 5]);
    expect(frames.every((f) => f[4] === 1)).toBe(true);
  });
});
