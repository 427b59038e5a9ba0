import { sql } from "drizzle-orm";
import type { TestProject, World } from "../helpers/world";

export type Json = Record<string, any>;

export const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

/**
 * A merge request written straight to the database (the merge requests API belongs to another domain),
 * with its iid from the project's counter.
 */
export async function insertMergeRequest(
  w: World,
  project: TestProject,
  opts: { authorId: number; sourceBranch?: string; targetBranch?: string; state?: string },
): Promise<{ id: number; iid: number }> {
  return w.db(async (db) => {
    const result = await db.execute<{ id: number; iid: number }>(sql`
      WITH iid AS (INSERT INTO internal_ids (usage, project_id, last_value) VALUES ('merge_requests', ${project.id}, 1)
        ON CONFLICT (usage, project_id) WHERE project_id IS NOT NULL DO UPDATE SET last_value = internal_ids.last_value + 1
        RETURNING last_value)
      INSERT INTO merge_requests (iid, project_id, source_project_id, title, source_branch, target_branch, author_id, state)
      SELECT last_value, ${project.id}, ${project.id}, 'A change', ${opts.sourceBranch ?? "feature"}, ${opts.targetBranch ?? "main"}, ${opts.authorId}, ${opts.state ?? "opened"} FROM iid
      RETURNING id, iid`);
    const row = result.rows[0];
    return { id: Number(row.id), iid: Number(row.iid) };
  });
}

/** Points `refs/heads/<name>` of the project at `oid` (no objects: only the ref the sha check reads). */
export async function setBranch(w: World, project: TestProject, name: string, oid: string) {
  await w.db((db) =>
    db.execute(sql`INSERT INTO git_refs (project_id, name, target) VALUES (${project.id}, ${`refs/heads/${name}`}, ${oid})
      ON CONFLICT (project_id, name) DO UPDATE SET target = excluded.target`),
  );
}

/** A protected branch row (the protected branches API is another domain's). */
export async function protectBranch(w: World, project: TestProject, name: string): Promise<number> {
  return w.db(async (db) => {
    const result = await db.execute<{ id: number }>(sql`INSERT INTO protected_branches (project_id, name) VALUES (${project.id}, ${name}) RETURNING id`);
    return Number(result.rows[0].id);
  });
}

export async function rows<T = Json>(w: World, query: ReturnType<typeof sql>): Promise<T[]> {
  return w.db(async (db) => (await db.execute(query)).rows as T[]);
}
