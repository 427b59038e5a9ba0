// Git object encoding (docs/git.md, "Object encoding"): bodies byte-for-byte as git writes them, so every id is the SHA-1
// the git CLI computes for the same content.
import { unzlibSync, zlibSync } from "fflate";
import { compareBytes, concatBytes, decodeUtf8, fromHex, sha1Hex, toHex, utf8 } from "./bytes";

export type ObjectType = "commit" | "tree" | "blob" | "tag";
/** Pack type numbers, also the `git_objects.type` column. */
export const TYPE_CODE: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
export const TYPE_NAME: Record<number, ObjectType> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag" };

export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
export const EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
export const ZERO_OID = "0000000000000000000000000000000000000000";

/** An object as stored: its id, type and body (without the `<type> <size>\0` header). */
export type RawObject = { oid: string; type: ObjectType; body: Uint8Array };

export const MODE = {
  file: "100644",
  executable: "100755",
  symlink: "120000",
  submodule: "160000",
  tree: "40000",
} as const;

export type TreeEntry = { mode: string; name: string; oid: string };

/** A non-tree entry of a flattened tree, by full path. */
export type FileEntry = { path: string; mode: string; oid: string };

/** Where algorithms read objects from: the store, with an optional overlay of objects not written yet. */
export type ObjectSource = {
  trees(oids: Iterable<string>): Promise<Map<string, TreeEntry[]>>;
  blobs(oids: Iterable<string>): Promise<Map<string, Uint8Array>>;
};

/** `name <email> <unix seconds> <±hhmm>`; `tz` keeps git's text so re-encoding is exact. */
export type Ident = { name: string; email: string; time: number; tz: string };

export type Commit = {
  tree: string;
  parents: string[];
  author: Ident;
  committer: Ident;
  /** Headers after `committer` (encoding, gpgsig, mergetag…), kept verbatim as `key value` lines. */
  extraHeaders: string[];
  message: string;
};

export type Tag = { object: string; type: ObjectType; tag: string; tagger: Ident | null; message: string };

// ---------------------------------------------------------------------------------------------------
// Ids and compression

export function objectHeader(type: ObjectType, size: number): Uint8Array {
  return utf8.encode(`${type} ${size}\0`);
}

export async function hashObject(type: ObjectType, body: Uint8Array): Promise<string> {
  return sha1Hex(concatBytes([objectHeader(type, body.length), body]));
}

export async function makeObject(type: ObjectType, body: Uint8Array): Promise<RawObject> {
  return { oid: await hashObject(type, body), type, body };
}

/** The zlib stream a pack entry carries after its type-and-size header (docs/git.md, "Principles"). */
export const deflate = (body: Uint8Array) => zlibSync(body, { level: 6 });
export const inflate = (zdata: Uint8Array) => unzlibSync(zdata);

// ---------------------------------------------------------------------------------------------------
// Modes

export const isTreeMode = (mode: string) => mode === "40000" || mode === "040000";
export const isBlobMode = (mode: string) => mode === "100644" || mode === "100755" || mode === "120000" || mode === "100664";
export const isRegularMode = (mode: string) => mode === "100644" || mode === "100755" || mode === "100664";
export const modeNumber = (mode: string) => parseInt(mode, 8);
export const modeText = (mode: number) => mode.toString(8);

// ---------------------------------------------------------------------------------------------------
// Trees

/** Names git refuses in a tree (docs/git.md, "Object encoding"). */
export function isValidEntryName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && name.toLowerCase() !== ".git" && !name.includes("/") && !name.includes("\0");
}

/** Git's tree order: bytewise by name, a tree's name comparing as if it ended in `/`. */
export function compareTreeEntries(a: TreeEntry, b: TreeEntry): number {
  return compareBytes(sortKey(a), sortKey(b));
}

function sortKey(entry: TreeEntry): Uint8Array {
  return utf8.encode(isTreeMode(entry.mode) ? `${entry.name}/` : entry.name);
}

export function encodeTree(entries: TreeEntry[]): Uint8Array {
  const sorted = entries.map((e) => ({ e, key: sortKey(e) })).sort((x, y) => compareBytes(x.key, y.key));
  const parts: Uint8Array[] = [];
  for (const { e } of sorted) {
    parts.push(utf8.encode(`${e.mode} ${e.name}\0`), fromHex(e.oid));
  }
  return concatBytes(parts);
}

export function decodeTree(body: Uint8Array): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let i = 0;
  while (i < body.length) {
    const space = body.indexOf(0x20, i);
    const nul = body.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > body.length) throw new Error("corrupt tree");
    const mode = decodeUtf8(body.subarray(i, space));
    const name = decodeUtf8(body.subarray(space + 1, nul));
    const oid = toHex(body.subarray(nul + 1, nul + 21));
    entries.push({ mode, name, oid });
    i = nul + 21;
  }
  return entries;
}

// ---------------------------------------------------------------------------------------------------
// Identities

export function formatIdent(ident: Ident): string {
  return `${ident.name} <${ident.email}> ${ident.time} ${ident.tz}`;
}

export function parseIdent(text: string): Ident {
  const lt = text.indexOf("<");
  const gt = text.lastIndexOf(">");
  if (lt < 0 || gt < lt) return { name: text.trim(), email: "", time: 0, tz: "+0000" };
  const name = text.slice(0, lt).replace(/ +$/, "");
  const email = text.slice(lt + 1, gt);
  const [time, tz] = text.slice(gt + 1).trim().split(/\s+/);
  return { name, email, time: Number(time) || 0, tz: tz ?? "+0000" };
}

/** `+0530` → 330 minutes east of UTC. */
export function tzMinutes(tz: string): number {
  const m = /^([+-])(\d\d)(\d\d)$/.exec(tz);
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === "-" ? -minutes : minutes;
}

/** 330 → `+0530`. */
export function tzText(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
}

// ---------------------------------------------------------------------------------------------------
// Commits and tags

export function encodeCommit(commit: Commit): Uint8Array {
  let text = `tree ${commit.tree}\n`;
  for (const parent of commit.parents) text += `parent ${parent}\n`;
  text += `author ${formatIdent(commit.author)}\n`;
  text += `committer ${formatIdent(commit.committer)}\n`;
  for (const header of commit.extraHeaders) text += `${header}\n`;
  text += `\n${commit.message}`;
  return utf8.encode(text);
}

/** Splits `key value` header lines (with continuation lines starting with a space) from the message. */
function splitHeaders(text: string): { headers: string[]; message: string } {
  const end = text.indexOf("\n\n");
  const head = end < 0 ? text : text.slice(0, end);
  const message = end < 0 ? "" : text.slice(end + 2);
  const headers: string[] = [];
  for (const line of head.split("\n")) {
    if (line.startsWith(" ") && headers.length) headers[headers.length - 1] += `\n${line}`;
    else if (line !== "") headers.push(line);
  }
  return { headers, message };
}

export function decodeCommit(body: Uint8Array): Commit {
  const { headers, message } = splitHeaders(decodeUtf8(body));
  const commit: Commit = {
    tree: "",
    parents: [],
    author: parseIdent(""),
    committer: parseIdent(""),
    extraHeaders: [],
    message,
  };
  for (const header of headers) {
    const space = header.indexOf(" ");
    const key = header.slice(0, space);
    const value = header.slice(space + 1);
    if (key === "tree" && !commit.tree) commit.tree = value;
    else if (key === "parent" && commit.extraHeaders.length === 0) commit.parents.push(value);
    else if (key === "author") commit.author = parseIdent(value);
    else if (key === "committer") commit.committer = parseIdent(value);
    else commit.extraHeaders.push(header);
  }
  return commit;
}

export function encodeTag(tag: Tag): Uint8Array {
  let text = `object ${tag.object}\ntype ${tag.type}\ntag ${tag.tag}\n`;
  if (tag.tagger) text += `tagger ${formatIdent(tag.tagger)}\n`;
  text += `\n${tag.message}`;
  return utf8.encode(text);
}

export function decodeTag(body: Uint8Array): Tag {
  const { headers, message } = splitHeaders(decodeUtf8(body));
  const tag: Tag = { object: "", type: "commit", tag: "", tagger: null, message };
  for (const header of headers) {
    const space = header.indexOf(" ");
    const key = header.slice(0, space);
    const value = header.slice(space + 1);
    if (key === "object") tag.object = value;
    else if (key === "type") tag.type = value as ObjectType;
    else if (key === "tag") tag.tag = value;
    else if (key === "tagger") tag.tagger = parseIdent(value);
  }
  return tag;
}

// ---------------------------------------------------------------------------------------------------
// Builders

export const blobObject = (content: Uint8Array) => makeObject("blob", content);
export const treeObject = (entries: TreeEntry[]) => makeObject("tree", encodeTree(entries));
export const commitObject = (commit: Commit) => makeObject("commit", encodeCommit(commit));
export const tagObject = (tag: Tag) => makeObject("tag", encodeTag(tag));

/** `title` of a commit as GitLab shows it is computed by the entities; this is just the first line. */
export function firstLine(message: string): string {
  const match = /[\r\n]/.exec(message);
  return match ? message.slice(0, match.index) : message;
}
