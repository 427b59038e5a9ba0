// The tags domain's reads beyond the git core: every tag with the committer date of the commit it
// points at (to sort in memory, as Gitaly's FindAllTags does).
import { and, eq, like, sql } from "drizzle-orm";
import { gitCommits, gitRefs } from "../../db/schema";
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

/**
 * What the Tag entity adds to tags: the names of the project's protected tags (exact or wildcards) and
 * the releases of `tags` (`Tag#release`) by tag name. One statement.
 */
export async function tagDecorations(db: Executor, projectId: number, tags: string[]): Promise<{ protectedNames: string[]; releases: Map<string, { tagName: string; description: string | null }> }> {
  const result = await db.execute<{ names: string[] | null; releases: { tag: string; description: string | null }[] | string | null }>(sql`
    SELECT (SELECT array_agg(pt.name) FROM protected_tags pt WHERE pt.project_id = ${projectId}) AS names,
           (SELECT json_agg(json_build_object('tag', r.tag, 'description', r.description)) FROM releases r
             WHERE r.project_id = ${projectId} AND r.tag = ANY(${sql.param(tags)}::text[])) AS releases`);
  const row = result.rows[0];
  const list = typeof row?.releases === "string" ? (JSON.parse(row.releases) as { tag: string; description: string | null }[]) : (row?.releases ?? []);
  return { protectedNames: row?.names ?? [], releases: new Map(list.map((r) => [r.tag, { tagName: r.tag, description: r.description }])) };
}
