import { sql } from "drizzle-orm";
import type { TestProject, TestUser, World } from "../helpers/world";
import { unique } from "../helpers/world";

export type Json = Record<string, any>;

export const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

/** A branch name no other test uses. */
export const branch = (prefix = "feature") => unique(prefix).replace(/[^a-zA-Z0-9-]/g, "-");

/** Creates a merge request through the API as `user` and returns its body. */
export async function createMergeRequest(w: World, user: TestUser, project: TestProject, body: Json = {}): Promise<Json> {
  const res = await w.as(user).post(`/projects/${project.id}/merge_requests`, {
    json: { title: "A change", source_branch: branch(), target_branch: "main", ...body },
  });
  if (res.status !== 201) throw new Error(`create merge request: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

/**
 * An issue written straight to the database (the issues API belongs to another domain), with its iid
 * from the project's internal id counter so it never collides with issues created through the API.
 */
export async function insertIssue(
  w: World,
  project: TestProject,
  opts: { title?: string; authorId?: number; confidential?: boolean; assigneeIds?: number[] } = {},
): Promise<{ id: number; iid: number }> {
  return w.db(async (db) => {
    const result = await db.execute<{ id: number; iid: number }>(sql`
      WITH iid AS (INSERT INTO internal_ids (usage, project_id, last_value) VALUES ('issues', ${project.id}, 1)
        ON CONFLICT (usage, project_id) WHERE project_id IS NOT NULL DO UPDATE SET last_value = internal_ids.last_value + 1
        RETURNING last_value)
      INSERT INTO issues (iid, project_id, title, author_id, confidential)
      SELECT last_value, ${project.id}, ${opts.title ?? "An issue"}, ${opts.authorId ?? null}, ${opts.confidential ?? false} FROM iid
      RETURNING id, iid`);
    const row = result.rows[0];
    for (const userId of opts.assigneeIds ?? [])
      await db.execute(sql`INSERT INTO issue_assignees (issue_id, user_id) VALUES (${row.id}, ${userId})`);
    return { id: Number(row.id), iid: Number(row.iid) };
  });
}

export async function rows<T = Json>(w: World, query: ReturnType<typeof sql>): Promise<T[]> {
  return w.db(async (db) => (await db.execute(query)).rows as T[]);
}
