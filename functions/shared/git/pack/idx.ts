// Pack index files, version 2 (gitformat-pack(5), "Version 2 pack-*.idx files"): what `git
// index-pack` writes beside a pack so git can find an object in it without reading the pack. Written
// from what the pack writer saw: each object's id, offset, and the CRC-32 of its packed bytes.
import { sha1 } from "@noble/hashes/legacy.js";
import { unhex } from "./pack";

/** zlib's CRC-32 table (reflected polynomial 0xEDB88320), which the index's CRC column uses. */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** Continues a CRC-32 over `bytes` (start with 0). */
export function crc32(crc: number, bytes: Uint8Array): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

export type IndexedObject = { oid: string; offset: number; crc: number };

/** The byte length of the index of `count` objects, `large` of them at offsets of 2 GiB or more. */
export function packIndexLength(count: number, large: number): number {
  return 8 + 256 * 4 + count * (20 + 4 + 4) + large * 8 + 20 + 20;
}

/**
 * The `.idx` of a pack holding `objects`, whose trailing checksum is `packChecksum`: header, fan-out
 * table, sorted ids, CRCs, 31-bit offsets (an offset of 2 GiB or more goes to the 64-bit table), the
 * pack's checksum, and the index's own SHA-1.
 */
export function packIndex(objects: IndexedObject[], packChecksum: Uint8Array): Uint8Array {
  const sorted = [...objects].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
  const large = sorted.filter((o) => o.offset >= 0x80000000);
  const out = new Uint8Array(packIndexLength(sorted.length, large.length));
  const view = new DataView(out.buffer);
  out.set([0xff, 0x74, 0x4f, 0x63]);
  view.setUint32(4, 2);
  let at = 8;
  const fanout = new Uint32Array(256);
  for (const o of sorted) fanout[parseInt(o.oid.slice(0, 2), 16)]++;
  let running = 0;
  for (let i = 0; i < 256; i++) {
    running += fanout[i];
    view.setUint32(at, running);
    at += 4;
  }
  for (const o of sorted) {
    out.set(unhex(o.oid), at);
    at += 20;
  }
  for (const o of sorted) {
    view.setUint32(at, o.crc);
    at += 4;
  }
  let nextLarge = 0;
  for (const o of sorted) {
    view.setUint32(at, o.offset >= 0x80000000 ? (0x80000000 | nextLarge++) >>> 0 : o.offset);
    at += 4;
  }
  for (const o of large) {
    view.setUint32(at, Math.floor(o.offset / 2 ** 32));
    view.setUint32(at + 4, o.offset >>> 0);
    at += 8;
  }
  out.set(packChecksum, at);
  at += 20;
  out.set(sha1(out.subarray(0, at)), at);
  return out;
}
