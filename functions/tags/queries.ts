// The tags domain's reads beyond the git core: every tag with the committer date of the commit it
// points at (to sort in memory, as Gitaly's FindAllTags does).
import { and, eq, inArray, like, sql } from "drizzle-orm";
import { gitCommits, gitRefs, releases } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Repo } from "../shared/git";

export type TagRef = { name: string; target: string; peeled: string | null; committedAt: Date | null };

/** Every tag of the project with its commit's committer date. One statement. */
export async function listTagRefs(db: Executor, repo: Repo): Promise<TagRef[]> {
  const rows = await db
    .select({ name: gitRefs.name, target: gitRefs.target, peeled: gitRefs.peeled, committedAt: gitCommits.committedAt })
    .from(gitRefs)
    .leftJoin(gitCommits, and(eq(gitCommits.poolId, repo.poolId), eq(gitCommits.oid, sql`coalesce(${gitRefs.peeled}, ${gitRefs.target})`)))
    .where(and(eq(gitRefs.projectId, repo.projectId), like(gitRefs.name, "refs/tags/%")));
  return rows.map((row) => ({ name: row.name.slice("refs/tags/".length), target: row.target, peeled: row.peeled, committedAt: row.committedAt }));
}

/** The releases of these tags (`Tag#release` in the entity), by tag name. One statement. */
export async function releasesOfTags(db: Executor, projectId: number, tags: string[]): Promise<Map<string, { tagName: string; description: string | null }>> {
  if (tags.length === 0) return new Map();
  const rows = await db
    .select({ tag: releases.tag, description: releases.description })
    .from(releases)
    .where(and(eq(releases.projectId, projectId), inArray(releases.tag, tags)));
  return new Map(rows.map((r) => [r.tag, { tagName: r.tag, description: r.description }]));
}
