// One-statement lookups for the routes that read a ref on every request (branches, tags, files, tree;
// docs/git.md, "Reading"): a ref with its commit row, and a revision resolved to its commit row. What needs more of
// git's rev-parse (suffixes `~n ^n`, short ids, a tag object without a peeled commit) goes through
// `findCommit`, which gives the same answer with a revision walk.
import { and, eq, inArray, sql } from "drizzle-orm";
import { gitCommits, gitRefs, type GitCommitRow } from "../../../../db/schema";
import type { Executor } from "../../../kernel/db";
import { isOid } from "../pure/bytes";
import { readCommitRows } from "./commit_index";
import { findCommit } from "./read";
import type { Ref } from "./refs";
import { parseRevision, refCandidates, type Repo } from "./revisions";

export type RefWithCommit = Ref & { commit: GitCommitRow | null };

/**
 * The refs among `names` (full names) that exist, each with the row of the commit it points at
 * (an annotated tag's peeled commit; null when the ref does not point at an indexed commit). One statement.
 */
export async function readRefsWithCommits(db: Executor, repo: Repo, names: string[]): Promise<Map<string, RefWithCommit>> {
  const out = new Map<string, RefWithCommit>();
  if (names.length === 0) return out;
  const rows = await db
    .select({ name: gitRefs.name, target: gitRefs.target, peeled: gitRefs.peeled, commit: gitCommits })
    .from(gitRefs)
    .leftJoin(gitCommits, and(eq(gitCommits.poolId, repo.poolId), eq(gitCommits.oid, sql`coalesce(${gitRefs.peeled}, ${gitRefs.target})`)))
    .where(and(eq(gitRefs.projectId, repo.projectId), inArray(gitRefs.name, [...new Set(names)])));
  for (const row of rows) out.set(row.name, { name: row.name, target: row.target, peeled: row.peeled, commit: row.commit });
  return out;
}

/**
 * Revisions resolved to commit rows as `git rev-parse <rev>^{commit}` (`findCommit`) would: one
 * statement for all plain names, one for full ids; anything else falls back to `findCommit`.
 * Null for what does not name a commit.
 */
export async function resolveCommitRows(db: Executor, repo: Repo, revs: string[]): Promise<Map<string, GitCommitRow | null>> {
  const out = new Map<string, GitCommitRow | null>();
  const names = new Map<string, string[]>();
  const oids: string[] = [];
  const slow: string[] = [];
  for (const rev of new Set(revs)) {
    const parsed = parseRevision(rev);
    if (!parsed) out.set(rev, null);
    else if (parsed.steps.length > 0) slow.push(rev);
    else if (isOid(rev)) oids.push(rev);
    else names.set(rev, refCandidates(repo, rev));
  }
  const refs = await readRefsWithCommits(db, repo, [...names.values()].flat());
  for (const [rev, tries] of names) {
    const ref = tries.map((name) => refs.get(name)).find((found) => found !== undefined);
    if (ref?.commit) out.set(rev, ref.commit);
    // A tag object without its peeled commit, or a unique short id: git's longer road.
    else if (ref || /^[0-9a-f]{4,39}$/.test(rev)) slow.push(rev);
    else out.set(rev, null);
  }
  if (oids.length) {
    const rows = await readCommitRows(db, repo.poolId, oids);
    for (const oid of oids) {
      const row = rows.get(oid);
      if (row) out.set(oid, row);
      else slow.push(oid); // perhaps a tag object's id
    }
  }
  for (const rev of slow) out.set(rev, await findCommit(db, repo, rev));
  return out;
}

/** One revision (`resolveCommitRows` for a single one). */
export async function resolveCommitRow(db: Executor, repo: Repo, rev: string): Promise<GitCommitRow | null> {
  return (await resolveCommitRows(db, repo, [rev])).get(rev) ?? null;
}

/**
 * GitRefsFinder#by_search: case-insensitive substring; `^` and `$` anchor (a regex search); otherwise a
 * case-insensitive exact match is moved first.
 */
export function searchRefs<T extends { name: string }>(refs: T[], search: string | undefined): T[] {
  if (!search) return refs;
  const term = search.toLowerCase();
  const regexSearch = search.includes("^") || search.includes("$");
  let pattern = term.replace(/[.*?+^$|()[\]{}\\/\-#\s]/g, (ch) => `\\${ch}`);
  if (regexSearch) pattern = pattern.replace("\\^", "^").replace(/\\\$/g, "$$");
  const regex = new RegExp(pattern, "m");
  const matches = refs.filter((ref) => regex.test(ref.name.toLowerCase()));
  if (regexSearch) return matches;
  const exact = matches.findIndex((ref) => ref.name.toLowerCase() === term);
  if (exact > 0) matches.unshift(...matches.splice(exact, 1));
  return matches;
}
