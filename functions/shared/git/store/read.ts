// Reading a repository for the commits, branches, tags, files and tree routes (docs/git.md, "Reading").
import { sql } from "drizzle-orm";
import type { GitCommitRow } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { readCommitRows } from "./commit_index";
import { RevWalk } from "./log";
import { isTreeMode, type TreeEntry } from "../pure/objects";
import { branchName, tagName } from "../pure/refnames";
import { listRefs, refCommit } from "./refs";
import { resolveRevisions, type Repo } from "./revisions";
import { readObjects } from "./objects";
import { tipsReaching } from "./reach";
import { entryAtPath, storeSource } from "./trees";
import type { TreeListing } from "../../../entities/repository";

export type { TreeListing };

/**
 * The commit a revision names (`GET /commits/:sha` takes a sha, a branch or a tag): null when it
 * does not resolve (→ `404 Commit Not Found`). Three statements: refs, the commit's batch, its row.
 */
export async function findCommit(db: Executor, repo: Repo, rev: string): Promise<GitCommitRow | null> {
  const walk = new RevWalk(db, repo.poolId, { batch: 16 });
  const oid = (await resolveRevisions(db, repo, [rev], walk)).get(rev);
  if (!oid) return null;
  return (await readCommitRows(db, repo.poolId, [oid])).get(oid) ?? null;
}

export type RefType = "branch" | "tag";

/**
 * Branches and tags whose tip reaches `oid` (`GET /commits/:sha/refs`; Gitaly's
 * `for-each-ref --contains`): branches first, then tags, each in ref-name order. One walk from all tips
 * that never goes below the target's generation (docs/git.md, "The commits list (git log)").
 */
export async function refsContaining(db: Executor, repo: Repo, oid: string, type: RefType | "all" = "all"): Promise<{ type: RefType; name: string }[]> {
  const prefixes = type === "branch" ? ["refs/heads/"] : type === "tag" ? ["refs/tags/"] : ["refs/heads/", "refs/tags/"];
  const refs = (await listRefs(db, repo.projectId, type === "all" ? "refs/" : prefixes[0])).filter((r) => prefixes.some((p) => r.name.startsWith(p)));
  if (refs.length === 0) return [];
  const reaches = await tipsReaching(db, repo, oid, refs.map(refCommit));
  const out: { type: RefType; name: string }[] = [];
  for (const prefix of prefixes) {
    for (const ref of refs) {
      if (!ref.name.startsWith(prefix) || !reaches.has(refCommit(ref))) continue;
      out.push(prefix === "refs/heads/" ? { type: "branch", name: branchName(ref.name)! } : { type: "tag", name: tagName(ref.name)! });
    }
  }
  return out;
}

/** The root tree of a commit (one statement). */
export async function commitTree(db: Executor, repo: Repo, oid: string): Promise<string | null> {
  const result = await db.execute<{ tree: string }>(sql`SELECT tree FROM git_commits WHERE pool_id = ${repo.poolId} AND oid = ${oid}`);
  return result.rows[0]?.tree ?? null;
}

export type FileAt = { path: string; mode: string; oid: string; size: number; content: Uint8Array };

/** The blob at `path` in a tree (`repository/files`, CI config): null when absent or not a file. */
export async function readFileAt(db: Executor, repo: Repo, tree: string, path: string): Promise<FileAt | null> {
  const source = storeSource(db, repo.poolId);
  const clean = path.split("/").filter((s) => s !== "").join("/");
  const entry = await entryAtPath(source, tree, clean);
  if (!entry || isTreeMode(entry.mode) || entry.mode === "160000") return null;
  const blob = (await readObjects(db, repo.poolId, [entry.oid])).get(entry.oid);
  if (!blob) return null;
  return { path: clean, mode: entry.mode, oid: entry.oid, size: blob.body.length, content: blob.body };
}

const entryType = (entry: TreeEntry): TreeListing["type"] => (isTreeMode(entry.mode) ? "tree" : entry.mode === "160000" ? "commit" : "blob");

/**
 * The entries under `path` of a tree (`repository/tree`), in git's order; `recursive` lists every
 * level depth-first like `git ls-tree -r -t`. Null when `path` is not a directory.
 */
export async function listTree(db: Executor, repo: Repo, tree: string, path: string, recursive: boolean): Promise<TreeListing[] | null> {
  const source = storeSource(db, repo.poolId);
  const clean = path.split("/").filter((s) => s !== "").join("/");
  let root = tree;
  if (clean) {
    const entry = await entryAtPath(source, tree, clean);
    if (!entry || !isTreeMode(entry.mode)) return null;
    root = entry.oid;
  }
  // Read level by level (one statement per depth), then emit depth-first.
  const trees = new Map<string, TreeEntry[]>();
  let level = [root];
  while (level.length) {
    const read = await source.trees(level);
    for (const [oid, entries] of read) trees.set(oid, entries);
    level = recursive ? [...read.values()].flat().filter((e) => isTreeMode(e.mode) && !trees.has(e.oid)).map((e) => e.oid) : [];
  }
  const out: TreeListing[] = [];
  const emit = (oid: string, prefix: string) => {
    for (const entry of trees.get(oid) ?? []) {
      const entryPath = prefix ? `${prefix}/${entry.name}` : entry.name;
      out.push({ path: entryPath, name: entry.name, mode: isTreeMode(entry.mode) ? "040000" : entry.mode, oid: entry.oid, type: entryType(entry) });
      if (recursive && isTreeMode(entry.mode)) emit(entry.oid, entryPath);
    }
  };
  emit(root, clean);
  return out;
}
