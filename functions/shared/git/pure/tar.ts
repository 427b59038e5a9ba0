// Tar as `git archive --format=tar` writes it (archive-tar.c): ustar headers, a pax global header with
// the commit id first (`git get-tar-commit-id` reads it back), pax `path`/`linkpath` records for names
// over 100 bytes, permissions under git's default `tar.umask` 0002, owner root, the commit's time.
import { concatBytes, utf8 } from "./bytes";

const BLOCK = 512;
/** Two empty blocks end the archive (git pads the whole archive to 10 KiB records; readers do not care). */
export const TAR_END = new Uint8Array(BLOCK * 2);

export type TarEntry = { path: string; kind: "file" | "dir" | "symlink"; executable?: boolean; size: number; linkTarget?: string };

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0");
}

function writeField(header: Uint8Array, offset: number, width: number, text: string | Uint8Array) {
  const bytes = typeof text === "string" ? utf8.encode(text) : text;
  header.set(bytes.subarray(0, width), offset);
}

function header(name: Uint8Array, typeflag: string, mode: number, size: number, mtime: number, linkname: Uint8Array = new Uint8Array()): Uint8Array {
  const h = new Uint8Array(BLOCK);
  writeField(h, 0, 100, name);
  writeField(h, 100, 8, octal(mode & 0o7777, 8));
  writeField(h, 108, 8, octal(0, 8));
  writeField(h, 116, 8, octal(0, 8));
  writeField(h, 124, 12, octal(size, 12));
  writeField(h, 136, 12, octal(mtime, 12));
  writeField(h, 148, 8, "        ");
  writeField(h, 156, 1, typeflag);
  writeField(h, 157, 100, linkname);
  writeField(h, 257, 6, "ustar\0");
  writeField(h, 263, 2, "00");
  writeField(h, 265, 32, "root");
  writeField(h, 297, 32, "root");
  writeField(h, 329, 8, octal(0, 8));
  writeField(h, 337, 8, octal(0, 8));
  let sum = 0;
  for (const b of h) sum += b;
  writeField(h, 148, 8, `${octal(sum, 8)}\0`);
  return h;
}

/** A pax record `"<len> <key>=<value>\n"`, whose length counts itself. */
function paxRecord(key: string, value: Uint8Array): Uint8Array {
  const body = value.length + key.length + 3; // space, '=', newline
  let len = body + String(body).length;
  if (String(len).length !== String(body).length) len = body + String(len).length;
  const out = new Uint8Array(len);
  out.set(utf8.encode(`${len} ${key}=`), 0);
  out.set(value, len - value.length - 1);
  out[len - 1] = 10;
  return out;
}

function withPadding(parts: Uint8Array[]): Uint8Array {
  return concatBytes(parts, BLOCK);
}

/** The pax global header git writes first: `comment=<commit id>`. */
export function tarGlobalHeader(commitId: string, mtime: number): Uint8Array {
  const record = paxRecord("comment", utf8.encode(commitId));
  return withPadding([header(utf8.encode("pax_global_header"), "g", 0o666, record.length, mtime), record]);
}

/** The header block(s) of one entry; a file's body follows, then `tarPadding(size)`. */
export function tarEntryHeader(entry: TarEntry, mtime: number): Uint8Array {
  const name = utf8.encode(entry.kind === "dir" ? `${entry.path}/` : entry.path);
  const link = utf8.encode(entry.linkTarget ?? "");
  const records: Uint8Array[] = [];
  if (name.length > 100) records.push(paxRecord("path", name));
  if (link.length > 100) records.push(paxRecord("linkpath", link));
  const mode = entry.kind === "dir" ? 0o775 : entry.kind === "symlink" ? 0o777 : entry.executable ? 0o775 : 0o664;
  const typeflag = entry.kind === "dir" ? "5" : entry.kind === "symlink" ? "2" : "0";
  // As git: an extended header named after the entry (truncated), then the entry with a short name.
  const shortName = name.length > 100 ? name.subarray(0, 100) : name;
  const main = header(shortName, typeflag, mode, entry.kind === "file" ? entry.size : 0, mtime, link.length > 100 ? link.subarray(0, 100) : link);
  if (!records.length) return main;
  const pax = records.reduce((n, r) => n + r.length, 0);
  return withPadding([withPadding([header(utf8.encode("pax_header"), "x", 0o666, pax, mtime), ...records]), main]);
}

/** Zero bytes that complete a body of `size` bytes to a block. */
export function tarPadding(size: number): Uint8Array {
  const rest = size % BLOCK;
  return new Uint8Array(rest === 0 ? 0 : BLOCK - rest);
}
