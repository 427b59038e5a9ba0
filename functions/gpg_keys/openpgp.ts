// The primary key of an armored OpenPGP public key, read by hand (RFC 9580 §6 armor, §4.2 packet
// framing, §5.5.2 key packets, §5.5.4 fingerprints). GitLab asks GPGME for two things only, the primary
// key's fingerprint and key id (lib/gitlab/gpg.rb `fingerprints_from_key`, `primary_keyids_from_key`);
// OpenPGP.js did the same job at a third of the Worker bundle (337 KiB minified), so these 100 lines
// replace it, as commits/signature.ts reads signature packets. OpenPGP.js stays a test dependency: the
// tests make their keys with it and compare its fingerprints with ours.
import { fromBase64 } from "../shared/git/pure/bytes";

export type PrimaryKey = { fingerprint: string; keyid: string };

const PUBLIC_KEY_TAG = 6;
const SECRET_KEY_TAG = 5;

/** The primary key's fingerprint and key id, upper-case hex; null when `armored` is not one readable public key. */
export async function primaryKeyOf(armored: string): Promise<PrimaryKey | null> {
  const data = dearmor(armored);
  if (!data) return null;
  const packets = readPackets(data);
  if (!packets || packets.length === 0) return null;
  const [first] = packets;
  if (first.tag === SECRET_KEY_TAG || first.tag !== PUBLIC_KEY_TAG) return null;
  return fingerprintOf(first.body);
}

/** The binary of a `PUBLIC KEY BLOCK` armor; its CRC-24 checksum, optional since RFC 9580, must match when present. */
function dearmor(armored: string): Uint8Array | null {
  const lines = armored.replace(/\r/g, "").split("\n").map((line) => line.trim());
  const begin = lines.indexOf("-----BEGIN PGP PUBLIC KEY BLOCK-----");
  const end = lines.indexOf("-----END PGP PUBLIC KEY BLOCK-----");
  if (begin < 0 || end < begin) return null;
  const blank = lines.indexOf("", begin);
  if (blank < 0 || blank > end) return null;
  const body = lines.slice(blank + 1, end).filter(Boolean);
  const checksum = body.length > 0 && body[body.length - 1].startsWith("=") ? body.pop()!.slice(1) : null;
  let data: Uint8Array;
  try {
    data = fromBase64(body.join(""));
  } catch {
    return null;
  }
  if (checksum !== null) {
    let expected: Uint8Array;
    try {
      expected = fromBase64(checksum);
    } catch {
      return null;
    }
    const crc = crc24(data);
    if (expected.length !== 3 || ((expected[0] << 16) | (expected[1] << 8) | expected[2]) !== crc) return null;
  }
  return data;
}

function crc24(data: Uint8Array): number {
  let crc = 0xb704ce;
  for (const byte of data) {
    crc ^= byte << 16;
    for (let i = 0; i < 8; i++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

/** Every packet's tag and body; null when a header or length runs past the data (a truncated or foreign block). */
function readPackets(data: Uint8Array): { tag: number; body: Uint8Array }[] | null {
  const packets: { tag: number; body: Uint8Array }[] = [];
  let at = 0;
  while (at < data.length) {
    const header = data[at++];
    if (!(header & 0x80)) return null;
    let tag: number;
    let length: number;
    if (header & 0x40) {
      tag = header & 0x3f;
      const first = data[at];
      if (first === undefined) return null;
      if (first < 192) [length, at] = [first, at + 1];
      else if (first < 224) [length, at] = [((first - 192) << 8) + data[at + 1] + 192, at + 2];
      else if (first === 255) [length, at] = [((data[at + 1] << 24) | (data[at + 2] << 16) | (data[at + 3] << 8) | data[at + 4]) >>> 0, at + 5];
      else return null; // partial body lengths never frame a key packet
    } else {
      tag = (header >> 2) & 0x0f;
      const size = [1, 2, 4][header & 3];
      if (size === undefined) return null; // indeterminate length
      length = 0;
      for (let i = 0; i < size; i++) length = length * 256 + data[at + i];
      at += size;
    }
    if (!Number.isFinite(length) || at + length > data.length) return null;
    packets.push({ tag, body: data.subarray(at, at + length) });
    at += length;
  }
  return packets;
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("").toUpperCase();

/**
 * Version 4: SHA-1 over 0x99, the body's two-octet length and the body; the key id is its last eight
 * octets. Versions 5 and 6: SHA-256 over 0x9A / 0x9B, a four-octet length and the body; the key id is
 * its first eight. A body too short to hold its version, creation time and algorithm is not a key.
 */
async function fingerprintOf(body: Uint8Array): Promise<PrimaryKey | null> {
  const version = body[0];
  if (version === 4 && body.length > 6 && body.length <= 0xffff) {
    const framed = new Uint8Array(3 + body.length);
    framed.set([0x99, body.length >> 8, body.length & 0xff]);
    framed.set(body, 3);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", framed));
    return { fingerprint: hex(digest), keyid: hex(digest.subarray(12)) };
  }
  if ((version === 5 || version === 6) && body.length > 10) {
    const framed = new Uint8Array(5 + body.length);
    framed.set([version === 5 ? 0x9a : 0x9b, body.length >>> 24, (body.length >> 16) & 0xff, (body.length >> 8) & 0xff, body.length & 0xff]);
    framed.set(body, 5);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", framed));
    return { fingerprint: hex(digest), keyid: hex(digest.subarray(0, 8)) };
  }
  return null;
}
