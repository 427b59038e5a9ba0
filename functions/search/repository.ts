import { sql } from "drizzle-orm";
import type { Executor } from "../kernel/db";
import { escapeLike } from "../kernel/fuzzy_search";
import { commitTree, commitWalk, decodeUtf8, listTree, readCommitRows, readObjects, resolveRevisions, type Repo } from "../shared/git";
import type { GitCommitRow } from "../../db/schema";

/**
 * Code and commit search over a repository through the git core (Gitlab::FileFinder and
 * Repository#find_commits_by_message, which GitLab runs through Gitaly's `git grep` and `git log --grep`).
 */

/** Gitlab::Search::FoundBlob as the Blob entity shows it. */
export type FoundBlob = { basename: string; data: string; path: string; id: string | null; ref: string; startline: number };

/** `git grep --before-context 2 --after-context 2` (Gitaly SearchFilesByContent). */
const CONTEXT_LINES = 2;
/** `Gitlab::Git::Blob.batch(…, blob_size_limit: 1024)`: what a file-name match shows of the file. */
const NAME_MATCH_BYTES = 1024;
/**
 * Bounds of one search (Differs from GitLab: `git grep` reads every file of the tree). Files larger than
 * this are not searched, nor files past the byte budget, so a request stays bounded on huge trees.
 */
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_TOTAL_BYTES = 32 * 1024 * 1024;
const BLOB_BATCH = 200;

/** `Pathname#sub_ext('')`: the path without its last extension. */
function withoutExtension(path: string): string {
  const slash = path.lastIndexOf("/");
  const dot = path.lastIndexOf(".");
  return dot > slash + 1 ? path.slice(0, dot) : path;
}

/** Git's binary heuristic (`buffer_is_binary`): a NUL byte in the first 8,000 bytes. */
function isBinary(body: Uint8Array): boolean {
  const end = Math.min(body.length, 8000);
  for (let i = 0; i < end; i++) if (body[i] === 0) return true;
  return false;
}

/** The commit `ref` names (a branch, tag or sha; HEAD is the default branch), or null. */
export async function resolveSearchRef(db: Executor, repo: Repo, ref: string): Promise<string | null> {
  const resolved = await resolveRevisions(db, repo, [ref]);
  return resolved.get(ref) ?? null;
}

/**
 * The chunks of `text` around lines containing `needle` (case-insensitive, literal): each match with two
 * lines of context either side, overlapping or adjacent ranges joined, as git grep prints them.
 */
export function grepChunks(text: string, needle: string): { startline: number; data: string }[] {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const lower = needle.toLowerCase();
  const ranges: [number, number][] = [];
  lines.forEach((line, i) => {
    if (!line.toLowerCase().includes(lower)) return;
    const from = Math.max(0, i - CONTEXT_LINES);
    const to = Math.min(lines.length - 1, i + CONTEXT_LINES);
    const last = ranges[ranges.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  });
  return ranges.map(([from, to]) => ({ startline: from + 1, data: lines.slice(from, to + 1).map((l) => `${l}\n`).join("") }));
}

/**
 * Gitlab::FileFinder#find at commit `commit` (shown as `refName`): content matches (one result per
 * chunk, up to `limit`), then files whose path contains the query and had no content match (the first
 * 1,024 bytes, `startline` 1), sorted by path. Empty for a blank query.
 */
export async function searchBlobs(db: Executor, repo: Repo, commit: string, refName: string, query: string, limit: number): Promise<FoundBlob[]> {
  const term = query.trim();
  if (!term) return [];
  const tree = await commitTree(db, repo, commit);
  if (!tree) return [];
  const files = ((await listTree(db, repo, tree, "", true)) ?? []).filter((e) => e.type === "blob" && e.mode !== "120000");
  const byContent: FoundBlob[] = [];
  const lowerTerm = term.toLowerCase();
  let budget = MAX_TOTAL_BYTES;
  for (let i = 0; i < files.length && byContent.length < limit && budget > 0; i += BLOB_BATCH) {
    const batch = files.slice(i, i + BLOB_BATCH);
    const bodies = await readObjects(db, repo.poolId, batch.map((f) => f.oid));
    for (const file of batch) {
      const body = bodies.get(file.oid)?.body;
      if (!body || body.length > MAX_FILE_BYTES || isBinary(body)) continue;
      budget -= body.length;
      const text = decodeUtf8(body);
      if (!text.toLowerCase().includes(lowerTerm)) continue;
      for (const chunk of grepChunks(text, term)) {
        if (byContent.length >= limit) break;
        byContent.push({ basename: withoutExtension(file.path), data: chunk.data, path: file.path, id: null, ref: refName, startline: chunk.startline });
      }
      if (budget <= 0) break;
    }
  }
  const found = new Set(byContent.map((b) => b.path));
  const named = files.filter((f) => !found.has(f.path) && f.path.toLowerCase().includes(lowerTerm.replace(/^\/+/, "")));
  const nameBodies = await readObjects(db, repo.poolId, named.map((f) => f.oid));
  const byName = named.map((file) => {
    const body = nameBodies.get(file.oid)?.body ?? new Uint8Array();
    return { basename: withoutExtension(file.path), data: decodeUtf8(body.subarray(0, NAME_MATCH_BYTES)), path: file.path, id: file.oid, ref: refName, startline: 1 };
  });
  // `(by_content + by_filename).sort_by(&:path)`: a stable sort keeps each file's chunks in line order.
  return [...byContent, ...byName].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * ProjectSearchResults#find_commits: commits reachable from `commit` whose message contains the query
 * (case-insensitive), newest first, up to `limit`; a query that names a commit by sha (7 to 40 hex
 * digits) puts that commit first. Differs from GitLab: Gitaly's `git log --grep` reads the query as a
 * regular expression; here it is a literal.
 */
export async function searchCommits(db: Executor, repo: Repo, commit: string, query: string, limit: number): Promise<GitCommitRow[]> {
  const walk = commitWalk("walked", repo.poolId, { seeds: sql`c.oid = ${commit}` });
  const result = await db.execute<{ oid: string }>(sql`WITH RECURSIVE ${walk}
    SELECT c.oid FROM walked w JOIN git_commits c ON c.pool_id = ${repo.poolId} AND c.oid = w.oid
    WHERE c.message ILIKE ${`%${escapeLike(query)}%`}
    ORDER BY c.committed_at DESC, c.generation DESC LIMIT ${limit}`);
  const oids = result.rows.map((r) => String(r.oid).trim());
  const key = query.trim();
  if (/^[0-9a-f]{7,40}$/i.test(key)) {
    const bySha = (await resolveRevisions(db, repo, [key.toLowerCase()])).get(key.toLowerCase());
    if (bySha && !oids.includes(bySha)) oids.unshift(bySha);
  }
  const rows = await readCommitRows(db, repo.poolId, oids);
  return oids.map((oid) => rows.get(oid)).filter((r): r is GitCommitRow => !!r);
}
