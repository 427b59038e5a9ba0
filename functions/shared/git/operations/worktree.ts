// The in-memory work tree that commits are built on (docs/git.md, "Writing commits", step 3): only the directories along
// the touched paths are loaded, actions apply in order, changed trees are written bottom-up.
import { fromBase64, utf8 } from "../pure/bytes";
import { fail } from "./failures";
import { blobObject, isTreeMode, MODE, treeObject, tzText, type Ident, type ObjectSource, type RawObject, type TreeEntry } from "../pure/objects";

export type CommitAction = {
  action: "create" | "delete" | "move" | "update" | "chmod";
  filePath: string;
  previousPath?: string | null;
  content?: string | null;
  encoding?: "text" | "base64" | null;
  lastCommitId?: string | null;
  executeFilemode?: boolean | null;
};

export type Person = { name: string; email: string };

/** Decoded size limit of one action's content (docs/git.md, "Limits"). */
export const MAX_FILE_SIZE = 10 * 1024 * 1024;

export { CommitFailed, fail } from "./failures";

// ---------------------------------------------------------------------------------------------------
// Paths (Gitaly's validatePath and its index errors)

/** Normalises an action path; fails for an empty, traversing or invalid path. */
export function normalizePath(path: string | null | undefined): string {
  if (!path) return fail({ kind: "empty_path" });
  if (path.includes("//")) return fail({ kind: "invalid_path", path });
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") return fail({ kind: "path_traversal" });
    if (segment.toLowerCase() === ".git" || segment.includes("\0")) return fail({ kind: "invalid_path", path });
    segments.push(segment);
  }
  if (segments.length === 0) return fail({ kind: "empty_path" });
  return segments.join("/");
}

// ---------------------------------------------------------------------------------------------------
// The in-memory tree

type Dir = { entries: Map<string, DirEntry>; dirty: boolean };
type DirEntry = { mode: string; oid: string; dir?: Dir };

/** A mutable view of a commit's tree, loading only the directories the actions touch. */
export class WorkTree {
  constructor(
    readonly root: Dir,
    private readonly loaded: Map<string, Dir>,
  ) {}

  /** Loads the directories along `paths` from `rootOid` (null = empty), one statement per depth. */
  static async load(source: ObjectSource, rootOid: string | null, paths: string[]): Promise<WorkTree> {
    const root: Dir = { entries: new Map(), dirty: false };
    const loaded = new Map<string, Dir>([["", root]]);
    if (!rootOid) return new WorkTree(root, loaded);
    // level: directory path -> tree oid to load
    let level = new Map<string, string>([["", rootOid]]);
    const wantedDirs = new Set<string>();
    for (const path of paths) {
      const parts = path.split("/");
      for (let i = 1; i < parts.length; i++) wantedDirs.add(parts.slice(0, i).join("/"));
    }
    while (level.size) {
      const trees = await source.trees(new Set(level.values()));
      const next = new Map<string, string>();
      for (const [dirPath, oid] of level) {
        const dir = loaded.get(dirPath)!;
        for (const entry of trees.get(oid)!) {
          const childPath = dirPath ? `${dirPath}/${entry.name}` : entry.name;
          const child: DirEntry = { mode: isTreeMode(entry.mode) ? MODE.tree : entry.mode, oid: entry.oid };
          dir.entries.set(entry.name, child);
          if (isTreeMode(entry.mode) && wantedDirs.has(childPath)) {
            child.dir = { entries: new Map(), dirty: false };
            loaded.set(childPath, child.dir);
            next.set(childPath, entry.oid);
          }
        }
      }
      level = next;
    }
    return new WorkTree(root, loaded);
  }

  private parentOf(path: string, create: boolean): { dir: Dir; name: string } | "file-in-the-way" | null {
    const parts = path.split("/");
    let dir = this.root;
    for (let i = 0; i < parts.length - 1; i++) {
      const entry = dir.entries.get(parts[i]);
      if (!entry) {
        if (!create) return null;
        const child: DirEntry = { mode: MODE.tree, oid: "", dir: { entries: new Map(), dirty: true } };
        dir.entries.set(parts[i], child);
        dir.dirty = true;
        dir = child.dir!;
        continue;
      }
      if (!isTreeMode(entry.mode)) return create ? "file-in-the-way" : null;
      if (!entry.dir) throw new Error(`directory ${parts.slice(0, i + 1).join("/")} was not loaded`);
      dir = entry.dir;
    }
    return { dir, name: parts[parts.length - 1] };
  }

  get(path: string): DirEntry | null {
    const parent = this.parentOf(path, false);
    if (!parent || parent === "file-in-the-way") return null;
    return parent.dir.entries.get(parent.name) ?? null;
  }

  /** Marks every directory on the way to `path` as changed. */
  private touch(path: string) {
    const parts = path.split("/");
    let dir = this.root;
    dir.dirty = true;
    for (let i = 0; i < parts.length - 1; i++) {
      const entry = dir.entries.get(parts[i]);
      if (!entry?.dir) return;
      dir = entry.dir;
      dir.dirty = true;
    }
  }

  /** Adds a file where nothing is (the caller checked). */
  add(path: string, mode: string, oid: string) {
    const parent = this.parentOf(path, true);
    if (parent === "file-in-the-way" || parent === null) return fail({ kind: "file_exists", path });
    parent.dir.entries.set(parent.name, { mode, oid });
    this.touch(path);
  }

  set(path: string, entry: { mode: string; oid: string }) {
    const parent = this.parentOf(path, false);
    if (!parent || parent === "file-in-the-way") return fail({ kind: "file_missing", path });
    parent.dir.entries.set(parent.name, entry);
    this.touch(path);
  }

  remove(path: string) {
    const parent = this.parentOf(path, false);
    if (!parent || parent === "file-in-the-way") return fail({ kind: "file_missing", path });
    parent.dir.entries.delete(parent.name);
    this.touch(path);
  }

  /** Writes changed directories bottom-up; empty directories disappear, as in git. */
  async write(objects: RawObject[]): Promise<string> {
    const writeDir = async (dir: Dir): Promise<string | null> => {
      const entries: TreeEntry[] = [];
      for (const [name, entry] of dir.entries) {
        if (entry.dir && entry.dir.dirty) {
          const oid = await writeDir(entry.dir);
          if (oid === null) continue;
          entry.oid = oid;
          entry.dir.dirty = false;
        }
        entries.push({ mode: entry.mode, name, oid: entry.oid });
      }
      if (entries.length === 0) return null;
      const tree = await treeObject(entries);
      objects.push(tree);
      return tree.oid;
    };
    const oid = await writeDir(this.root);
    if (oid) return oid;
    const empty = await treeObject([]);
    objects.push(empty);
    return empty.oid;
  }
}

function decodeContent(action: CommitAction): Uint8Array {
  const content = action.content ?? "";
  return action.encoding === "base64" ? fromBase64(content) : utf8.encode(content);
}

/** What the actions wrote, for the push rule checks: the paths they add and each new blob's path and size. */
export type WrittenFiles = { added: string[]; blobs: { path: string; size: number }[] };

/** Applies the actions in order, each seeing the previous ones (Gitaly's UserCommitFiles). */
export async function applyActions(tree: WorkTree, actions: CommitAction[], objects: RawObject[]): Promise<WrittenFiles> {
  const written: WrittenFiles = { added: [], blobs: [] };
  const wrote = (path: string, blob: RawObject) => {
    objects.push(blob);
    written.blobs.push({ path, size: blob.body.length });
  };
  for (const action of actions) {
    const path = normalizePath(action.filePath);
    const existing = tree.get(path);
    const isFile = existing !== null && !isTreeMode(existing.mode) && existing.mode !== MODE.submodule;
    switch (action.action) {
      case "create": {
        if (existing) fail(isTreeMode(existing.mode) || existing.mode === MODE.submodule ? { kind: "directory_exists", path } : { kind: "file_exists", path });
        const blob = await newBlob(action, path);
        wrote(path, blob);
        written.added.push(path);
        tree.add(path, action.executeFilemode ? MODE.executable : MODE.file, blob.oid);
        break;
      }
      case "update": {
        if (!isFile) fail({ kind: "file_missing", path });
        const blob = await newBlob(action, path);
        wrote(path, blob);
        tree.set(path, { mode: existing!.mode, oid: blob.oid });
        break;
      }
      case "delete": {
        if (!isFile) fail({ kind: "file_missing", path });
        tree.remove(path);
        break;
      }
      case "chmod": {
        if (!isFile) fail({ kind: "file_missing", path });
        const mode = action.executeFilemode ? (existing!.mode === MODE.file ? MODE.executable : existing!.mode) : existing!.mode === MODE.executable ? MODE.file : existing!.mode;
        tree.set(path, { mode, oid: existing!.oid });
        break;
      }
      case "move": {
        const from = normalizePath(action.previousPath);
        const source_ = tree.get(from);
        if (!source_ || isTreeMode(source_.mode) || source_.mode === MODE.submodule) fail({ kind: "file_missing", path });
        if (existing && from !== path) {
          fail(isTreeMode(existing.mode) || existing.mode === MODE.submodule ? { kind: "directory_exists", path } : { kind: "file_exists", path });
        }
        let oid = source_!.oid;
        if (action.content !== undefined && action.content !== null) {
          const blob = await newBlob(action, path);
          wrote(path, blob);
          oid = blob.oid;
        }
        if (from !== path) written.added.push(path);
        tree.remove(from);
        tree.add(path, source_!.mode, oid);
        break;
      }
      default:
        fail({ kind: "unknown_action", action: String((action as { action: unknown }).action) });
    }
  }
  return written;
}

async function newBlob(action: CommitAction, path: string): Promise<RawObject> {
  const content = decodeContent(action);
  // Differs from GitLab: a per-file limit protects the Worker's memory (docs/git.md, "Limits").
  if (content.length > MAX_FILE_SIZE) fail({ kind: "file_too_large", path });
  return blobObject(content);
}

export function ident(person: Person, when: Date): Ident {
  return { name: person.name, email: person.email, time: Math.floor(when.getTime() / 1000), tz: tzText(0) };
}
