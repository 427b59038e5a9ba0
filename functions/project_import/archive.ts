// Reading an export archive (GitLab's layout, Gitlab::ImportExport): a gzipped tar holding `VERSION`,
// `tree/project.json`, `tree/project/<relation>.ndjson` and `project.bundle`. fflate inflates; the tar
// members are read here (no tar reader library runs in a Worker without Node's streams).
import { gunzipSync, strFromU8 } from "fflate";

const BLOCK = 512;

export class ArchiveError extends Error {}

function field(header: Uint8Array, offset: number, width: number): string {
  const bytes = header.subarray(offset, offset + width);
  const end = bytes.indexOf(0);
  return strFromU8(end < 0 ? bytes : bytes.subarray(0, end));
}

/** pax extended header records (`<len> key=value\n`): the `path` record names the next member. */
function paxPath(body: Uint8Array): string | null {
  const text = strFromU8(body);
  for (const match of text.matchAll(/\d+ ([^=\n]+)=([^\n]*)\n/g)) if (match[1] === "path") return match[2];
  return null;
}

/**
 * The regular files of a tar (ustar, pax `path` records, GNU long names), by path without a leading
 * `./` (GitLab's archives are made with `tar -C dir -czf archive .`).
 */
export function untar(tar: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  let at = 0;
  let longName: string | null = null;
  while (at + BLOCK <= tar.length) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    const sizeText = field(header, 124, 12).trim();
    const size = sizeText === "" ? 0 : parseInt(sizeText, 8);
    if (!Number.isFinite(size) || size < 0) throw new ArchiveError("The archive is not a valid tar file");
    const type = String.fromCharCode(header[156]);
    const start = at + BLOCK;
    if (start + size > tar.length) throw new ArchiveError("The archive is truncated");
    const body = tar.subarray(start, start + size);
    at = start + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "x") {
      longName = paxPath(body) ?? longName;
      continue;
    }
    if (type === "L") {
      longName = field(body, 0, body.length);
      continue;
    }
    if (type === "g") continue;
    const prefix = field(header, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longName = null;
    if (type === "0" || type === "\0") files.set(name.replace(/^(\.\/)+/, ""), body);
  }
  return files;
}

/** The archive's members, or an ArchiveError worded for `import_error`. */
export function readArchive(gz: Uint8Array): Map<string, Uint8Array> {
  let tar: Uint8Array;
  try {
    tar = gunzipSync(gz);
  } catch {
    throw new ArchiveError("Unable to decompress the import file: it is not a gzip archive");
  }
  return untar(tar);
}

export type ImportRecord = Record<string, unknown>;

/** One relation file's records (`tree/project/<name>.ndjson`), empty when the archive has none. */
export function relation(files: Map<string, Uint8Array>, name: string): ImportRecord[] {
  const bytes = files.get(`tree/project/${name}.ndjson`);
  if (!bytes) return [];
  const out: ImportRecord[] = [];
  for (const line of strFromU8(bytes).split("\n")) {
    if (line.trim() === "") continue;
    const value = JSON.parse(line) as unknown;
    if (value && typeof value === "object" && !Array.isArray(value)) out.push(value as ImportRecord);
  }
  return out;
}

export type Bundle = { head: string | null; refs: { name: string; target: string }[]; pack: Uint8Array };

/**
 * A git bundle (git-bundle(5), v2 or v3): the signature, capabilities (v3), prerequisites (refused: an
 * export bundle is complete), `<oid> <ref>` lines, an empty line, then a pack.
 */
export function parseBundle(bytes: Uint8Array): Bundle {
  let split = -1;
  for (let i = 0; i + 1 < bytes.length; i++) {
    if (bytes[i] === 10 && bytes[i + 1] === 10) {
      split = i;
      break;
    }
  }
  if (split < 0) throw new ArchiveError("project.bundle is not a git bundle");
  const [signature, ...lines] = strFromU8(bytes.subarray(0, split)).split("\n");
  if (signature !== "# v2 git bundle" && signature !== "# v3 git bundle") throw new ArchiveError("project.bundle is not a git bundle");
  let head: string | null = null;
  const refs: { name: string; target: string }[] = [];
  for (const line of lines) {
    if (line.startsWith("@")) {
      if (line !== "@object-format=sha1" && !line.startsWith("@filter")) throw new ArchiveError(`project.bundle: unsupported capability ${line.slice(1)}`);
      continue;
    }
    if (line.startsWith("-")) throw new ArchiveError("project.bundle needs prerequisite commits");
    const match = /^([0-9a-f]{40}) (\S+)$/.exec(line);
    if (!match) throw new ArchiveError("project.bundle has a malformed ref line");
    if (match[2] === "HEAD") head = match[1];
    else refs.push({ name: match[2], target: match[1] });
  }
  return { head, refs, pack: bytes.subarray(split + 2) };
}
