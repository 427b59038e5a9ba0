// pkt-line framing (gitprotocol-common(5)): four hex digits of length (the prefix included), then the
// payload; `0000` flush, `0001` delimiter (protocol v2), `0002` response end. Side-band frames put a
// band byte (1 data, 2 progress, 3 fatal error) before the payload.
import type { ByteReader } from "./reader";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Largest pkt-line, prefix included (LARGE_PACKET_MAX). */
export const MAX_PKT = 65520;
/** Largest side-band-64k payload: the pkt-line limit less its prefix and the band byte. */
export const MAX_SIDEBAND_DATA = MAX_PKT - 5;

export const FLUSH = encoder.encode("0000");
export const DELIM = encoder.encode("0001");
export const RESPONSE_END = encoder.encode("0002");

const HEX = "0123456789abcdef";

function lengthPrefix(length: number, out: Uint8Array, at: number) {
  out[at] = HEX.charCodeAt((length >> 12) & 15);
  out[at + 1] = HEX.charCodeAt((length >> 8) & 15);
  out[at + 2] = HEX.charCodeAt((length >> 4) & 15);
  out[at + 3] = HEX.charCodeAt(length & 15);
}

/** One pkt-line around `payload` (a string is UTF-8). */
export function pkt(payload: string | Uint8Array): Uint8Array {
  const bytes = typeof payload === "string" ? encoder.encode(payload) : payload;
  if (bytes.length + 4 > MAX_PKT) throw new Error(`pkt-line too long (${bytes.length} bytes)`);
  const out = new Uint8Array(bytes.length + 4);
  lengthPrefix(out.length, out, 0);
  out.set(bytes, 4);
  return out;
}

/** Side-band frames for `data` on `band`, split at the side-band-64k limit. */
export function sideband(band: 1 | 2 | 3, data: Uint8Array, max = MAX_SIDEBAND_DATA): Uint8Array[] {
  const frames: Uint8Array[] = [];
  for (let i = 0; i < data.length; i += max) {
    const part = data.subarray(i, Math.min(data.length, i + max));
    const out = new Uint8Array(part.length + 5);
    lengthPrefix(out.length, out, 0);
    out[4] = band;
    out.set(part, 5);
    frames.push(out);
  }
  return frames;
}

export type Pkt =
  | { kind: "data"; payload: Uint8Array }
  | { kind: "flush" }
  | { kind: "delim" }
  | { kind: "end" };

export class PktError extends Error {}

function parseLength(head: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < 4; i++) {
    const c = head[i];
    const v = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (v < 0) throw new PktError(`bad pkt-line length ${JSON.stringify(decoder.decode(head))}`);
    n = (n << 4) | v;
  }
  return n;
}

/** Reads one pkt-line; null at the end of input (before any byte of a new line). */
export async function readPkt(reader: ByteReader): Promise<Pkt | null> {
  const head = await reader.readUpTo(4);
  if (head.length === 0) return null;
  if (head.length < 4) throw new PktError("truncated pkt-line");
  const length = parseLength(head);
  if (length === 0) return { kind: "flush" };
  if (length === 1) return { kind: "delim" };
  if (length === 2) return { kind: "end" };
  if (length < 4 || length > MAX_PKT) throw new PktError(`bad pkt-line length ${length}`);
  const payload = await reader.readExact(length - 4);
  return { kind: "data", payload };
}

/** A data line as text without its trailing LF (git's `packet_read` with PACKET_READ_CHOMP_NEWLINE). */
export function pktText(payload: Uint8Array): string {
  const end = payload.length && payload[payload.length - 1] === 10 ? payload.length - 1 : payload.length;
  return decoder.decode(payload.subarray(0, end));
}

/**
 * The data lines up to the next flush (or delimiter, when `stopAtDelim`), as text. Returns the lines
 * and what ended them (`null` = end of input).
 */
export async function readPktLines(reader: ByteReader, stopAtDelim = false): Promise<{ lines: string[]; end: Pkt["kind"] | null }> {
  const lines: string[] = [];
  for (;;) {
    const line = await readPkt(reader);
    if (line === null) return { lines, end: null };
    if (line.kind === "data") lines.push(pktText(line.payload));
    else if (line.kind === "delim" && !stopAtDelim) continue;
    else return { lines, end: line.kind };
  }
}
