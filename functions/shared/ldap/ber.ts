/**
 * The slice of BER (X.690) that LDAPv3 (RFC 4511) needs: definite lengths, tags below 31, integers,
 * octet strings, booleans and constructed values. Hand-written: the LDAP client sends a bind, a search and
 * an unbind and reads entries, which is about this much code, where a general LDAP library (ldapts and its
 * BER, asn1 and TLS dependencies) would add a large share of the Worker bundle for the same four messages.
 */

export type Ber = { tag: number; bytes: Uint8Array; children?: Ber[] };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function lengthBytes(n: number): number[] {
  if (n < 0x80) return [n];
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff);
  return [0x80 | out.length, ...out];
}

/** One TLV: `tag` with `content` (the concatenated encodings of the children when constructed). */
export function tlv(tag: number, content: Uint8Array | Uint8Array[]): Uint8Array {
  const body = Array.isArray(content) ? concat(content) : content;
  const head = [tag, ...lengthBytes(body.length)];
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** INTEGER (and ENUMERATED with tag 0x0a): two's complement, shortest form. */
export function int(value: number, tag = 0x02): Uint8Array {
  const bytes: number[] = [];
  let v = value;
  do {
    bytes.unshift(v & 0xff);
    v = Math.floor(v / 256);
  } while (v > 0);
  if (bytes[0] & 0x80) bytes.unshift(0);
  return tlv(tag, new Uint8Array(bytes));
}

export const str = (value: string | Uint8Array, tag = 0x04) => tlv(tag, typeof value === "string" ? encoder.encode(value) : value);
export const bool = (value: boolean) => tlv(0x01, new Uint8Array([value ? 0xff : 0]));
export const seq = (children: Uint8Array[], tag = 0x30) => tlv(tag, children);

/**
 * Reads one TLV at `at`; null when `buf` does not hold all of it yet (the caller reads more bytes).
 * Constructed values (bit 0x20) are read into `children`.
 */
export function readTlv(buf: Uint8Array, at = 0): { node: Ber; end: number } | null {
  if (buf.length < at + 2) return null;
  const tag = buf[at];
  let len = buf[at + 1];
  let pos = at + 2;
  if (len & 0x80) {
    const count = len & 0x7f;
    if (count === 0 || count > 4) throw new Error("LDAP: unsupported BER length");
    if (buf.length < pos + count) return null;
    len = 0;
    for (let i = 0; i < count; i++) len = len * 256 + buf[pos + i];
    pos += count;
  }
  if (buf.length < pos + len) return null;
  const bytes = buf.subarray(pos, pos + len);
  const node: Ber = { tag, bytes };
  if (tag & 0x20) {
    node.children = [];
    let p = 0;
    while (p < bytes.length) {
      const child = readTlv(bytes, p);
      if (!child) throw new Error("LDAP: truncated BER value");
      node.children.push(child.node);
      p = child.end;
    }
  }
  return { node, end: pos + len };
}

export const text = (node: Ber | undefined) => (node ? decoder.decode(node.bytes) : "");
export function intValue(node: Ber | undefined): number {
  if (!node || node.bytes.length === 0) return 0;
  let v = node.bytes[0] & 0x80 ? -1 : 0;
  for (const b of node.bytes) v = v * 256 + b;
  return v;
}
export { encoder as utf8 };
