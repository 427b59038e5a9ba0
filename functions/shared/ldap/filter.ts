import { concat, seq, str, tlv, utf8 } from "./ber";

/**
 * LDAP search filters: the string form (RFC 4515) parsed into the BER form a SearchRequest carries
 * (RFC 4511 §4.5.1.7). `and`, `or`, `not`, equality, substrings, `>=`, `<=`, `~=` and presence; the
 * extensible match (`:dn:=`, `:1.2.3:=`) is not read and makes the filter invalid.
 */
export class FilterError extends Error {}

/** `Net::LDAP::Filter.escape`: the characters a value may not hold as they are. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[\\*()\0]/g, (ch) => `\\${ch.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** Parses `source` (with or without its outer parentheses) into its BER encoding; throws FilterError. */
export function encodeFilter(source: string): Uint8Array {
  const s = source.trim();
  const input = s.startsWith("(") ? s : `(${s})`;
  const parser = { s: input, i: 0 };
  const out = parseFilter(parser);
  if (parser.i !== input.length) throw new FilterError("trailing characters");
  return out;
}

/** True when `source` is a filter this client can send. */
export function validFilter(source: string): boolean {
  // A filter nested deeper than a stack allows is no filter a directory takes either.
  if (source.length > MAX_FILTER_LENGTH) return false;
  try {
    encodeFilter(source);
    return true;
  } catch (error) {
    if (error instanceof FilterError) return false;
    throw error;
  }
}

const MAX_FILTER_LENGTH = 8192;

type Parser = { s: string; i: number };

function expect(p: Parser, ch: string) {
  if (p.s[p.i] !== ch) throw new FilterError(`expected ${ch}`);
  p.i++;
}

function parseFilter(p: Parser): Uint8Array {
  expect(p, "(");
  let out: Uint8Array;
  const op = p.s[p.i];
  if (op === "&" || op === "|") {
    p.i++;
    const parts: Uint8Array[] = [];
    while (p.s[p.i] === "(") parts.push(parseFilter(p));
    if (parts.length === 0) throw new FilterError("empty set");
    out = tlv(op === "&" ? 0xa0 : 0xa1, parts);
  } else if (op === "!") {
    p.i++;
    out = tlv(0xa2, parseFilter(p));
  } else {
    out = parseItem(p);
  }
  expect(p, ")");
  return out;
}

function parseItem(p: Parser): Uint8Array {
  const close = p.s.indexOf(")", p.i);
  if (close < 0) throw new FilterError("unclosed item");
  const item = p.s.slice(p.i, close);
  p.i = close;
  const m = /^([A-Za-z0-9][A-Za-z0-9;.-]*)(~=|>=|<=|=)(.*)$/s.exec(item);
  if (!m) throw new FilterError("invalid item");
  const [, attr, operator, raw] = m;
  if (operator === "=" && raw === "*") return str(attr, 0x87);
  if (operator === "=" && raw.includes("*")) {
    const pieces = raw.split("*");
    const subs: Uint8Array[] = [];
    pieces.forEach((piece, index) => {
      if (piece === "") return;
      const tag = index === 0 ? 0x80 : index === pieces.length - 1 ? 0x82 : 0x81;
      subs.push(str(unescape(piece), tag));
    });
    return seq([str(attr), seq(subs)], 0xa4);
  }
  const tag = { "=": 0xa3, ">=": 0xa5, "<=": 0xa6, "~=": 0xa8 }[operator]!;
  return seq([str(attr), str(unescape(raw))], tag);
}

/** `\XX` escapes to bytes (RFC 4515 §3); anything else is UTF-8. */
function unescape(value: string): Uint8Array {
  if (/[()]/.test(value)) throw new FilterError("unescaped parenthesis");
  const parts: Uint8Array[] = [];
  let plain = "";
  for (let i = 0; i < value.length; i++) {
    if (value[i] !== "\\") {
      plain += value[i];
      continue;
    }
    const hex = value.slice(i + 1, i + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new FilterError("invalid escape");
    parts.push(utf8.encode(plain), new Uint8Array([parseInt(hex, 16)]));
    plain = "";
    i += 2;
  }
  parts.push(utf8.encode(plain));
  return concat(parts);
}
