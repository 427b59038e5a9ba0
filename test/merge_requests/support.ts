import { sql } from "drizzle-orm";
import { rows } from "../helpers/db";
import type { TestProject, World } from "../helpers/world";

// Reads of the git rows the merge request endpoints write. Fixtures shared with other domains (merge
// requests, commits and issues made for a test) live in test/helpers/.

/** The commit a branch points at (null when it does not exist). */
export async function branchHead(w: World, project: TestProject, name: string): Promise<string | null> {
  const found = await rows<{ target: string }>(w, sql`SELECT target FROM git_refs WHERE project_id = ${project.id} AND name = ${`refs/heads/${name}`}`);
  return found[0]?.target ?? null;
}

export async function commitRow(w: World, project: TestProject, oid: string): Promise<{ parents: string[]; message: string; author_name: string; tree: string }> {
  const found = await rows<{ parents: string[]; message: string; author_name: string; tree: string }>(
    w,
    sql`SELECT c.parents, c.message, c.author_name, c.tree FROM git_commits c WHERE c.pool_id = ${project.id} AND c.oid = ${oid}`,
  );
  return found[0];
}

