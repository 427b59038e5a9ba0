// Writing commits (GIT.md §5): `POST /projects/:id/repository/commits`, `initialize_with_readme`, and
// any later writer. Trees are built in memory from only the trees along the touched paths, and
// everything (objects, commit index, push event, ref CAS) lands in one transaction.
import { and, eq, sql } from "drizzle-orm";
import { projects, type GitCommitRow } from "../../../db/schema";
import type { Database, Executor } from "../db";
import { fromBase64, isOid, utf8 } from "./bytes";
import { indexCommits } from "./commit-index";
import {
  blobObject,
  commitObject,
  isTreeMode,
  MODE,
  tagObject,
  treeObject,
  tzText,
  type Commit,
  type Ident,
  type RawObject,
  type TreeEntry,
} from "./objects";
import { branchRef, isValidBranchName } from "./refname";
import { compareAndSwapRef, recordPushEvent, swapRefWithEvent } from "./refs";
import { lastCommitForPath, type Repo } from "./revision";
import { writeObjects } from "./store";
import { storeSource, type ObjectSource } from "./trees";

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

export type CommitFilesInput = {
  /** The branch to commit to (created when missing, from the start point). */
  branch: string;
  startBranch?: string | null;
  startSha?: string | null;
  /** A project of the same fork network to start from (its refs; the pool is shared). */
  startRepo?: Repo | null;
  actions: CommitAction[];
  message: string;
  authorName?: string | null;
  authorEmail?: string | null;
  /** The user: committer, and author unless author_name/author_email are given. */
  committer: Person;
  force?: boolean;
  userId?: number | null;
  /** Commit time (tests pin it); defaults to now. Dates are written with `+0000` as GitLab does. */
  now?: Date;
};

export type CommitFilesResult =
  | { ok: true; commit: GitCommitRow; branchCreated: boolean; before: string | null }
  | { ok: false; status: 400; message: string };

/** Decoded size limit of one action's content (GIT.md §10). */
export const MAX_FILE_SIZE = 10 * 1024 * 1024;
export const MAX_ACTIONS = 1000;
/** Attempts when another writer moved the branch meanwhile (GIT.md §5 step 5). */
export const CAS_ATTEMPTS = 3;

export class CommitFilesError extends Error {}
export class LostRace extends Error {}

export const fail = (message: string): never => {
  throw new CommitFilesError(message);
};

// ---------------------------------------------------------------------------------------------------
// Paths (Gitaly's validatePath and its index errors)

/** Normalises an action path; throws GitLab's message for an empty, traversing or invalid path. */
export function normalizePath(path: string | null | undefined): string {
  if (!path) return fail("You must provide a file path");
  if (path.includes("//")) return fail(`invalid path: '${path}'`);
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") return fail("Path cannot include directory traversal");
    if (segment.toLowerCase() === ".git" || segment.includes("\0")) return fail(`invalid path: '${path}'`);
    segments.push(segment);
  }
  if (segments.length === 0) return fail("You must provide a file path");
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
    if (parent === "file-in-the-way" || parent === null) return fail("A file with this name already exists");
    parent.dir.entries.set(parent.name, { mode, oid });
    this.touch(path);
  }

  set(path: string, entry: { mode: string; oid: string }) {
    const parent = this.parentOf(path, false);
    if (!parent || parent === "file-in-the-way") return fail("A file with this name doesn't exist");
    parent.dir.entries.set(parent.name, entry);
    this.touch(path);
  }

  remove(path: string) {
    const parent = this.parentOf(path, false);
    if (!parent || parent === "file-in-the-way") return fail("A file with this name doesn't exist");
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

/** Applies the actions in order, each seeing the previous ones (Gitaly's UserCommitFiles). */
async function applyActions(tree: WorkTree, actions: CommitAction[], objects: RawObject[]) {
  for (const action of actions) {
    const path = normalizePath(action.filePath);
    const existing = tree.get(path);
    const isFile = existing !== null && !isTreeMode(existing.mode) && existing.mode !== MODE.submodule;
    switch (action.action) {
      case "create": {
        if (existing) fail(isTreeMode(existing.mode) || existing.mode === MODE.submodule ? "A directory with this name already exists" : "A file with this name already exists");
        const blob = await newBlob(action, path);
        objects.push(blob);
        tree.add(path, action.executeFilemode ? MODE.executable : MODE.file, blob.oid);
        break;
      }
      case "update": {
        if (!isFile) fail("A file with this name doesn't exist");
        const blob = await newBlob(action, path);
        objects.push(blob);
        tree.set(path, { mode: existing!.mode, oid: blob.oid });
        break;
      }
      case "delete": {
        if (!isFile) fail("A file with this name doesn't exist");
        tree.remove(path);
        break;
      }
      case "chmod": {
        if (!isFile) fail("A file with this name doesn't exist");
        const mode = action.executeFilemode ? (existing!.mode === MODE.file ? MODE.executable : existing!.mode) : existing!.mode === MODE.executable ? MODE.file : existing!.mode;
        tree.set(path, { mode, oid: existing!.oid });
        break;
      }
      case "move": {
        const from = normalizePath(action.previousPath);
        const source_ = tree.get(from);
        if (!source_ || isTreeMode(source_.mode) || source_.mode === MODE.submodule) fail("A file with this name doesn't exist");
        if (existing && from !== path) {
          fail(isTreeMode(existing.mode) || existing.mode === MODE.submodule ? "A directory with this name already exists" : "A file with this name already exists");
        }
        let oid = source_!.oid;
        if (action.content !== undefined && action.content !== null) {
          const blob = await newBlob(action, path);
          objects.push(blob);
          oid = blob.oid;
        }
        tree.remove(from);
        tree.add(path, source_!.mode, oid);
        break;
      }
      default:
        fail(`Unknown action '${String((action as { action: unknown }).action)}'`);
    }
  }
}

async function newBlob(action: CommitAction, path: string): Promise<RawObject> {
  const content = decodeContent(action);
  // Differs from GitLab: a per-file limit protects the Worker's memory (GIT.md §10).
  if (content.length > MAX_FILE_SIZE) fail(`File is too large: ${path}`);
  return blobObject(content);
}

// ---------------------------------------------------------------------------------------------------
// The service

type BranchTip = { target: string; peeled: string | null; tree: string | null; generation: number | null };

/**
 * Branch tips with their commit's tree and generation, and whether the project has any branch
 * (GitLab's `empty_repo?`), in one statement.
 */
async function readBranchState(db: Executor, repo: Repo, names: string[]): Promise<{ tips: Map<string, BranchTip>; hasBranches: boolean }> {
  const result = await db.execute<{ name: string | null; target: string; peeled: string | null; tree: string | null; generation: number | null; has_branches: boolean }>(sql`
    SELECT r.name, r.target, r.peeled, c.tree, c.generation,
           EXISTS (SELECT 1 FROM git_refs b WHERE b.project_id = ${repo.projectId} AND b.name LIKE 'refs/heads/%') AS has_branches
      FROM (SELECT 1) AS one
      LEFT JOIN git_refs r ON r.project_id = ${repo.projectId} AND r.name = ANY(${sql.param(names)}::text[])
      LEFT JOIN git_commits c ON c.pool_id = ${repo.poolId} AND c.oid = coalesce(r.peeled, r.target)`);
  const tips = new Map<string, BranchTip>();
  for (const row of result.rows) {
    if (row.name) tips.set(row.name, { target: row.target, peeled: row.peeled, tree: row.tree, generation: row.generation === null ? null : Number(row.generation) });
  }
  return { tips, hasBranches: result.rows[0]?.has_branches === true };
}

export function ident(person: Person, when: Date): Ident {
  return { name: person.name, email: person.email, time: Math.floor(when.getTime() / 1000), tz: tzText(0) };
}

/**
 * Commits `actions` on `branch` (Commits::CreateService + Files::MultiService + Gitaly's
 * UserCommitFiles). Validation errors come back as `{ ok: false, status: 400, message }` with
 * GitLab's messages; the commit is indexed and the ref moved by compare-and-swap in one transaction.
 * Needs the request's database, not a transaction: it opens its own.
 */
export async function commitFiles(db: Database, repo: Repo, input: CommitFilesInput): Promise<CommitFilesResult> {
  try {
    return await commitFilesOrThrow(db, repo, input);
  } catch (error) {
    if (error instanceof CommitFilesError) return { ok: false, status: 400, message: error.message };
    throw error;
  }
}

async function commitFilesOrThrow(db: Database, repo: Repo, input: CommitFilesInput): Promise<CommitFilesResult> {
  if (input.actions.length > MAX_ACTIONS) fail(`Too many actions (at most ${MAX_ACTIONS})`);
  const startRepo = input.startRepo ?? repo;
  const startSha = input.startSha || null;
  // lib/api/commits.rb: `attrs[:start_branch] ||= attrs[:branch_name] unless attrs[:start_sha]`
  const startBranch = input.startBranch || (startSha ? null : input.branch);
  const differentBranch = startRepo.projectId !== repo.projectId || startBranch !== input.branch || startSha !== null;

  const targetRef = branchRef(input.branch);
  const sameRepo = startRepo.projectId === repo.projectId;
  const state = await readBranchState(db, repo, [targetRef, ...(sameRepo && startBranch ? [branchRef(startBranch)] : [])]);
  const startState = sameRepo ? state : await readBranchState(db, startRepo, startBranch ? [branchRef(startBranch)] : []);
  const targetRefs = state.tips;
  const startRefs = startState.tips;
  const repoEmpty = !state.hasBranches;
  const startEmpty = !startState.hasBranches;

  // Commits::CreateService#validate!
  if (startSha !== null) {
    if (input.startBranch) fail("You can't pass both start_branch and start_sha");
    if (!isOid(startSha)) fail(`Invalid start_sha '${startSha}'`);
  }
  if (startBranch && !startEmpty && !startRefs.get(branchRef(startBranch))) fail("You can only create or edit files when you are on a branch");
  const branchExists = targetRefs.has(targetRef);
  if (!repoEmpty && differentBranch && branchExists && !input.force) {
    fail(`A branch called '${input.branch}' already exists. Switch to that branch in order to make changes`);
  }
  if (differentBranch) {
    const problem = !isValidBranchName(input.branch) ? "Branch name is invalid" : branchExists && !input.force ? "Branch already exists" : null;
    if (problem) fail(`Something went wrong when we tried to create '${input.branch}' for you: ${problem}`);
  }
  // The first commit of an empty repository names its branch without GitLab validating it; git's
  // update-ref then refuses a bad name. Differs from GitLab: that error's wording is Gitaly's, this is ours.
  if (!differentBranch && !branchExists && !isValidBranchName(input.branch)) {
    fail(`Something went wrong when we tried to create '${input.branch}' for you: Branch name is invalid`);
  }
  let startShaTip: BranchTip | null = null;
  if (startSha !== null) {
    const rows = await db.execute<{ tree: string; generation: number }>(
      sql`SELECT tree, generation FROM git_commits WHERE pool_id = ${startRepo.poolId} AND oid = ${startSha}`,
    );
    if (rows.rows.length === 0) fail(`Cannot find start_sha '${startSha}'`);
    startShaTip = { target: startSha, peeled: null, tree: rows.rows[0].tree, generation: Number(rows.rows[0].generation) };
  }
  // Files::MultiService#validate!: last_commit_id of update, move and delete, on the start branch.
  for (const action of input.actions) {
    if (!action.lastCommitId || !["update", "move", "delete"].includes(action.action)) continue;
    const path = action.previousPath || action.filePath;
    if (startEmpty) continue;
    const last = await lastCommitForPath(db, startRepo, startBranch ? branchRef(startBranch) : startSha!, path);
    if (last && last !== action.lastCommitId) fail(`The file has changed since you started editing it: ${path}`);
  }

  const now = input.now ?? new Date();
  const committer = ident(input.committer, now);
  // Gitaly: author_name/author_email default to the committer's (each on its own).
  const author = ident({ name: input.authorName?.trim() || input.committer.name, email: input.authorEmail?.trim() || input.committer.email }, now);
  const touched = input.actions.flatMap((a) => [a.filePath, a.previousPath].filter((p): p is string => !!p)).map((p) => p.replace(/^\/+/, ""));

  for (let attempt = 1; ; attempt++) {
    // The start point: start_sha, else the start branch, else (an empty repository) nothing. On a
    // retry the refs are read again (the start branch is the target branch unless one was given).
    const names = [targetRef, ...(sameRepo && startBranch && startBranch !== input.branch ? [branchRef(startBranch)] : [])];
    const refsNow = attempt === 1 ? targetRefs : (await readBranchState(db, repo, names)).tips;
    const before = refsNow.get(targetRef)?.target ?? null;
    let start: BranchTip | null = startShaTip;
    if (!start && startBranch) start = (sameRepo && attempt > 1 ? refsNow : startRefs).get(branchRef(startBranch)) ?? null;
    const parent = start ? start.peeled ?? start.target : null;
    const parentTree = start?.tree ?? null;
    if (parent && !parentTree) fail(`Cannot find start_sha '${parent}'`);
    const knownParents = new Map(parent && start?.generation != null ? [[parent, { generation: start.generation, tree: parentTree! }]] : []);

    const objects: RawObject[] = [];
    const source = storeSource(db, repo.poolId);
    const tree = await WorkTree.load(source, parentTree, touched.map((p) => p.split("/").filter((s) => s && s !== ".").join("/")));
    await applyActions(tree, input.actions, objects);
    const treeOid = await tree.write(objects);
    const commit: Commit = {
      tree: treeOid,
      parents: parent ? [parent] : [],
      author,
      committer,
      extraHeaders: [],
      message: input.message,
    };
    const commitObj = await commitObject(commit);
    objects.push(commitObj);

    try {
      const row = await db.transaction(async (tx) => {
        await writeObjects(tx, repo.poolId, objects);
        const overlay = new Map(objects.map((o) => [o.oid, o]));
        const [indexed] = await indexCommits(tx, repo.poolId, [{ oid: commitObj.oid, commit }], storeSource(tx, repo.poolId, overlay), knownParents);
        const won = await compareAndSwapRef(tx, repo.projectId, targetRef, before, commitObj.oid);
        if (!won) throw new LostRace();
        await recordPushEvent(tx, { projectId: repo.projectId, ref: targetRef, before, after: commitObj.oid, userId: input.userId ?? null });
        if (repoEmpty) {
          // The first branch of an empty repository becomes its HEAD (Gitaly's FindDefaultBranchName);
          // `AND empty_repo` leaves it to whichever writer got there first.
          await tx
            .update(projects)
            .set({ emptyRepo: false, defaultBranch: input.branch })
            .where(and(eq(projects.id, repo.projectId), eq(projects.emptyRepo, true)));
        }
        return indexed;
      });
      return { ok: true, commit: row, branchCreated: before === null, before };
    } catch (error) {
      if (!(error instanceof LostRace)) throw error;
      // Differs from GitLab: its wording comes from Gitaly's reference transaction; we retry first.
      if (attempt >= CAS_ATTEMPTS) fail(`Could not update ${targetRef}. Please refresh and try again.`);
      // A short random pause spreads writers that lost the same race.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 15 * attempt));
    }
  }
}

/** Commits one file on an empty repository's default branch (`initialize_with_readme`). */
export async function createInitialCommit(
  db: Database,
  repo: Repo,
  input: { branch: string; path: string; content: string; message: string; user: Person; userId: number; now?: Date },
): Promise<CommitFilesResult> {
  return commitFiles(db, repo, {
    branch: input.branch,
    actions: [{ action: "create", filePath: input.path, content: input.content }],
    message: input.message,
    committer: input.user,
    userId: input.userId,
    now: input.now,
  });
}


// ---------------------------------------------------------------------------------------------------
// Branches and tags: one CAS and its push event in one transaction. Outcomes are typed; the routes
// map them to their endpoint's GitLab messages.

/** Creates `refs/heads/<name>` at a commit. `exists` when the branch is already there. */
export async function createBranch(db: Database, repo: Repo, input: { name: string; target: string; userId?: number | null }): Promise<"created" | "exists"> {
  const ref = branchRef(input.name);
  const won = await swapRefWithEvent(db, { projectId: repo.projectId, name: ref, oldTarget: null, newTarget: input.target, userId: input.userId ?? null });
  return won ? "created" : "exists";
}

/**
 * Deletes a ref if it still points where the caller read it (`expected`): `moved` when another writer
 * changed it meanwhile, `missing` when it is gone.
 */
export async function deleteRefWithEvent(db: Database, repo: Repo, input: { ref: string; expected: string; userId?: number | null }): Promise<"deleted" | "moved"> {
  const won = await swapRefWithEvent(db, { projectId: repo.projectId, name: input.ref, oldTarget: input.expected, newTarget: null, userId: input.userId ?? null });
  return won ? "deleted" : "moved";
}

/**
 * Creates `refs/tags/<name>` at a commit: lightweight, or annotated when `message` is non-blank (a tag
 * object with the user as tagger, GitLab's Tags::CreateService). Returns the ref as stored.
 */
export async function createTag(
  db: Database,
  repo: Repo,
  input: { name: string; target: string; message?: string | null; tagger: Person; userId?: number | null; now?: Date },
): Promise<{ kind: "created"; target: string; peeled: string | null } | { kind: "exists" }> {
  const ref = `refs/tags/${input.name}`;
  let target = input.target;
  let peeled: string | null = null;
  let tagObj: RawObject | null = null;
  if (input.message && input.message.trim() !== "") {
    tagObj = await tagObject({ object: input.target, type: "commit", tag: input.name, tagger: ident(input.tagger, input.now ?? new Date()), message: input.message });
    target = tagObj.oid;
    peeled = input.target;
  }
  // Objects first (ON CONFLICT DO NOTHING: an unreachable tag object is harmless, GIT.md §1), then the
  // ref and its push event in one statement.
  if (tagObj) await writeObjects(db, repo.poolId, [tagObj]);
  const won = await swapRefWithEvent(db, { projectId: repo.projectId, name: ref, oldTarget: null, newTarget: target, peeled, userId: input.userId ?? null });
  return won ? { kind: "created" as const, target, peeled } : { kind: "exists" as const };
}
