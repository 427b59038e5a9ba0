// Pack files, version 2 (gitformat-pack(5)): reading entries from a stream (inflating each with
// pako's zlib, which says where every compressed entry ends), applying OFS_DELTA and REF_DELTA
// deltas, and writing packs of undeltified entries from stored zlib bodies.
import { sha1 } from "@noble/hashes/legacy.js";
import { ZStream, Z_NO_FLUSH, Z_STREAM_END, zlibInflate, zlibInflateEnd, zlibInflateInit } from "pako";
import { ByteReader, TruncatedInput } from "./reader";

export const OBJ_COMMIT = 1;
export const OBJ_TREE = 2;
export const OBJ_BLOB = 3;
export const OBJ_TAG = 4;
export const OBJ_OFS_DELTA = 6;
export const OBJ_REF_DELTA = 7;

export type ObjectTypeName = "commit" | "tree" | "blob" | "tag";
export const TYPE_NAMES: Record<number, ObjectTypeName> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag" };

export class PackError extends Error {}

/**
 * The pack is longer than the `maxBytes` its reader allowed (git's `receive.maxInputSize`, GitLab's
 * `receive_max_input_size`). `objects`: the entry count its header declared.
 */
export class PackTooLarge extends PackError {
  constructor(readonly maxBytes: number, readonly objects: number) {
    super("pack exceeds maximum allowed size");
  }
}

/** Deflate's best ratio is about 1032:1: an entry inflating to `size` bytes needs more than size / 1032. */
const DEFLATE_MAX_RATIO = 1032;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
export function hex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]];
  return out;
}
export function unhex(text: string): Uint8Array {
  const out = new Uint8Array(text.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(i * 2, 2), 16);
  return out;
}

const encoder = new TextEncoder();

/** The object id git gives `body` of `type`: SHA-1 of `<type> <size>\0<body>`. */
export function objectId(type: ObjectTypeName, body: Uint8Array): string {
  return hex(sha1.create().update(encoder.encode(`${type} ${body.length}\0`)).update(body).digest());
}

// ---------------------------------------------------------------------------------------------------
// Reading

export type PackEntry = {
  /** Offset of the entry's header in the pack. */
  offset: number;
  /** 1–4 for whole objects, 6 OFS_DELTA, 7 REF_DELTA. */
  type: number;
  /** Inflated size (of the object, or of the delta). */
  size: number;
  /** OFS_DELTA: the absolute offset of the base entry. */
  baseOffset?: number;
  /** REF_DELTA: the base's id. */
  baseOid?: string;
  /** The inflated object body or delta. */
  data: Uint8Array;
  /** Whole objects, when asked for: the compressed bytes exactly as in the pack (a stored row's zdata). */
  zdata?: Uint8Array;
};

/** Inflates one zlib stream of known size from `reader`, leaving the reader right after its end. */
export async function inflateFrom(reader: ByteReader, size: number, keepCompressed: boolean): Promise<{ data: Uint8Array; zdata?: Uint8Array }> {
  const strm = new ZStream();
  zlibInflateInit(strm);
  // One spare byte: an entry that inflates to more than it declared is caught instead of truncated.
  const out = new Uint8Array(size + 1);
  strm.output = out;
  strm.next_out = 0;
  strm.avail_out = out.length;
  const parts: Uint8Array[] = [];
  try {
    for (;;) {
      const input = await reader.available();
      if (input.length === 0) throw new TruncatedInput();
      strm.input = input;
      strm.next_in = 0;
      strm.avail_in = input.length;
      const status = zlibInflate(strm, Z_NO_FLUSH);
      const used = strm.next_in;
      if (keepCompressed) parts.push(input.slice(0, used));
      reader.consume(used);
      if (status === Z_STREAM_END) break;
      if (status < 0 && !(status === -5 && strm.avail_in === 0)) throw new PackError(`corrupt zlib data (${strm.msg || status})`);
      if (strm.avail_out === 0) throw new PackError("object larger than its header says");
    }
  } finally {
    zlibInflateEnd(strm);
  }
  if (strm.next_out !== size) throw new PackError(`object size mismatch (${strm.next_out} != ${size})`);
  const data = out.subarray(0, size);
  if (!keepCompressed) return { data };
  let zdata: Uint8Array;
  if (parts.length === 1) zdata = parts[0];
  else {
    zdata = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      zdata.set(p, at);
      at += p.length;
    }
  }
  return { data, zdata };
}

/** Reads the 12-byte pack header; returns the entry count. */
export async function readPackHeader(reader: ByteReader): Promise<number> {
  const head = await reader.readExact(12);
  if (head[0] !== 0x50 || head[1] !== 0x41 || head[2] !== 0x43 || head[3] !== 0x4b) throw new PackError("not a pack file");
  const view = new DataView(head.buffer, head.byteOffset, 12);
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) throw new PackError(`unsupported pack version ${version}`);
  return view.getUint32(8);
}

/**
 * The entries of a pack, in pack order, then checks the trailing SHA-1 over everything before it.
 * The reader must be positioned at `PACK`; offsets are relative to it.
 */
export async function* readPack(reader: ByteReader, options: { keepCompressed?: boolean; maxBytes?: number | null } = {}): AsyncGenerator<PackEntry, void, undefined> {
  const hasher = sha1.create();
  const start = reader.offset;
  reader.observer = (bytes) => hasher.update(bytes);
  // `maxBytes`: as git's index-pack and unpack-objects `--max-input-size`, the pack (header, entries
  // and trailer) may be at most that long; reading one byte more throws PackTooLarge.
  const maxBytes = options.maxBytes || null;
  let count = 0;
  if (maxBytes) reader.limit = { end: start + maxBytes, error: () => new PackTooLarge(maxBytes, count) };
  try {
    count = await readPackHeader(reader);
    for (let i = 0; i < count; i++) {
      const offset = reader.offset - start;
      let c = await reader.readByte();
      const type = (c >> 4) & 7;
      let size = c & 15;
      let shift = 4;
      while (c & 0x80) {
        c = await reader.readByte();
        size += (c & 0x7f) * 2 ** shift;
        shift += 7;
      }
      const entry: PackEntry = { offset, type, size, data: new Uint8Array(0) };
      if (type === OBJ_OFS_DELTA) {
        c = await reader.readByte();
        let distance = c & 0x7f;
        while (c & 0x80) {
          c = await reader.readByte();
          distance = (distance + 1) * 128 + (c & 0x7f);
        }
        if (distance <= 0 || distance > offset) throw new PackError(`bad delta base offset at ${offset}`);
        entry.baseOffset = offset - distance;
      } else if (type === OBJ_REF_DELTA) {
        entry.baseOid = hex(await reader.readExact(20));
      } else if (type < 1 || type > 4) {
        throw new PackError(`bad object type ${type} at ${offset}`);
      }
      // An entry that cannot fit in what the limit leaves is refused before its buffer is allocated
      // (its header may declare gigabytes in a few bytes). Differs from git, which refuses it only once
      // the limit's worth has been read; the answer is the same.
      if (maxBytes && size / DEFLATE_MAX_RATIO > start + maxBytes - reader.offset) throw new PackTooLarge(maxBytes, count);
      const whole = type >= 1 && type <= 4;
      const { data, zdata } = await inflateFrom(reader, size, whole && !!options.keepCompressed);
      entry.data = data;
      if (zdata) entry.zdata = zdata;
      yield entry;
    }
    reader.observer = null;
    const expected = hex(hasher.digest());
    const trailer = hex(await reader.readExact(20));
    if (trailer !== expected) throw new PackError("pack checksum mismatch");
  } finally {
    reader.observer = null;
    reader.limit = null;
  }
}

// ---------------------------------------------------------------------------------------------------
// Deltas

function deltaVarint(delta: Uint8Array, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  let c: number;
  do {
    if (at >= delta.length) throw new PackError("truncated delta header");
    c = delta[at++];
    value += (c & 0x7f) * 2 ** shift;
    shift += 7;
  } while (c & 0x80);
  return [value, at];
}

/** Applies a git delta (copy and insert instructions) to `base`. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  let [baseSize, at] = deltaVarint(delta, 0);
  if (baseSize !== base.length) throw new PackError(`delta base size mismatch (${baseSize} != ${base.length})`);
  let resultSize: number;
  [resultSize, at] = deltaVarint(delta, at);
  const out = new Uint8Array(resultSize);
  let written = 0;
  while (at < delta.length) {
    const op = delta[at++];
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      if (op & 0x01) offset |= delta[at++];
      if (op & 0x02) offset |= delta[at++] << 8;
      if (op & 0x04) offset |= delta[at++] << 16;
      if (op & 0x08) offset += delta[at++] * 0x1000000;
      if (op & 0x10) size |= delta[at++];
      if (op & 0x20) size |= delta[at++] << 8;
      if (op & 0x40) size |= delta[at++] << 16;
      if (size === 0) size = 0x10000;
      if (offset + size > base.length || written + size > resultSize) throw new PackError("delta copy out of range");
      out.set(base.subarray(offset, offset + size), written);
      written += size;
    } else if (op !== 0) {
      if (at + op > delta.length || written + op > resultSize) throw new PackError("delta insert out of range");
      out.set(delta.subarray(at, at + op), written);
      at += op;
      written += op;
    } else {
      throw new PackError("delta opcode 0");
    }
  }
  if (written !== resultSize) throw new PackError("delta result size mismatch");
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Resolving a pack into objects

export type ResolvedObject = { oid: string; type: ObjectTypeName; body: Uint8Array; zdata?: Uint8Array };

/** Where bases outside the pack come from (thin packs), and objects resolved earlier but no longer cached. */
export type BaseLoader = (oid: string) => Promise<{ type: ObjectTypeName; body: Uint8Array } | null>;

/**
 * Turns pack entries into objects with their ids, in a bounded memory: bodies of recent entries stay
 * in a cache (deltas usually follow their base closely); older bases come back through `load`, which
 * must also find objects this resolver already emitted. REF_DELTAs whose base has not appeared yet wait
 * until the end of the pack.
 */
export class PackResolver {
  private readonly byOffset = new Map<number, { type: ObjectTypeName; oid: string }>();
  private readonly offsetOf = new Map<string, number>();
  private readonly cache = new Map<string, Uint8Array>();
  private cacheBytes = 0;
  private readonly waiting: PackEntry[] = [];
  count = 0;

  constructor(
    private readonly load: BaseLoader,
    private readonly cacheLimit = 32 * 1024 * 1024,
  ) {}

  private remember(oid: string, body: Uint8Array) {
    if (body.length > this.cacheLimit / 4) return;
    if (this.cache.has(oid)) return;
    this.cache.set(oid, body);
    this.cacheBytes += body.length;
    while (this.cacheBytes > this.cacheLimit) {
      const [oldest, bytes] = this.cache.entries().next().value as [string, Uint8Array];
      this.cache.delete(oldest);
      this.cacheBytes -= bytes.length;
    }
  }

  private async body(oid: string): Promise<{ type: ObjectTypeName; body: Uint8Array } | null> {
    const cached = this.cache.get(oid);
    const offset = this.offsetOf.get(oid);
    if (cached && offset !== undefined) return { type: this.byOffset.get(offset)!.type, body: cached };
    return this.load(oid);
  }

  private emit(entry: PackEntry, type: ObjectTypeName, body: Uint8Array): ResolvedObject {
    const oid = objectId(type, body);
    this.byOffset.set(entry.offset, { type, oid });
    this.offsetOf.set(oid, entry.offset);
    this.remember(oid, body);
    this.count++;
    return entry.zdata ? { oid, type, body, zdata: entry.zdata } : { oid, type, body };
  }

  /** The object of `entry`, or null when its base is not known yet (it is kept for `finish`). */
  async add(entry: PackEntry): Promise<ResolvedObject | null> {
    if (entry.type >= 1 && entry.type <= 4) return this.emit(entry, TYPE_NAMES[entry.type], entry.data);
    const resolved = await this.tryDelta(entry);
    if (!resolved) this.waiting.push(entry);
    return resolved;
  }

  private async tryDelta(entry: PackEntry): Promise<ResolvedObject | null> {
    let base: { type: ObjectTypeName; body: Uint8Array } | null = null;
    if (entry.type === OBJ_OFS_DELTA) {
      const known = this.byOffset.get(entry.baseOffset!);
      if (!known) return null; // its base is a delta still waiting
      base = await this.body(known.oid);
      if (!base) throw new PackError(`base at ${entry.baseOffset} went missing`);
    } else {
      base = await this.body(entry.baseOid!);
      if (!base) return null;
    }
    return this.emit(entry, base.type, applyDelta(base.body, entry.data));
  }

  /** Resolves the deltas that waited for a later base; throws if some base never came. */
  async *finish(): AsyncGenerator<ResolvedObject> {
    while (this.waiting.length) {
      let progress = false;
      for (let i = 0; i < this.waiting.length; ) {
        const resolved = await this.tryDelta(this.waiting[i]);
        if (resolved) {
          this.waiting.splice(i, 1);
          progress = true;
          yield resolved;
        } else i++;
      }
      if (!progress) throw new PackError(`missing delta base ${this.waiting[0].baseOid ?? `at offset ${this.waiting[0].baseOffset}`}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Writing

/** The type-and-size header of a pack entry. */
export function entryHeader(type: number, size: number): Uint8Array {
  const bytes: number[] = [];
  let c = (type << 4) | (size & 15);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(c | 0x80);
    c = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(c);
  return new Uint8Array(bytes);
}

/**
 * Writes a pack of whole (undeltified) objects from their zlib bodies, as a stored row holds them:
 * `header()`, then `entry()` per object, then `trailer()`. Each call returns the bytes to send.
 */
export class PackWriter {
  private readonly hasher = sha1.create();
  written = 0;

  header(count: number): Uint8Array {
    const out = new Uint8Array(12);
    out.set([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2]);
    new DataView(out.buffer).setUint32(8, count);
    return this.track(out);
  }

  entry(type: number, size: number, zdata: Uint8Array): Uint8Array {
    const head = entryHeader(type, size);
    const out = new Uint8Array(head.length + zdata.length);
    out.set(head);
    out.set(zdata, head.length);
    return this.track(out);
  }

  /** The header of an entry whose zlib body follows in pieces (`body()`), streamed from R2. */
  entryHeader(type: number, size: number): Uint8Array {
    return this.track(entryHeader(type, size));
  }

  /** A piece of the zlib body of the entry whose header `entryHeader()` gave. */
  body(piece: Uint8Array): Uint8Array {
    return this.track(piece);
  }

  trailer(): Uint8Array {
    const digest = this.hasher.digest();
    this.written += digest.length;
    return digest;
  }

  private track(bytes: Uint8Array): Uint8Array {
    this.hasher.update(bytes);
    this.written += bytes.length;
    return bytes;
  }
}
