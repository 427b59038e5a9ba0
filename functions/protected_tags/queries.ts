// Protected tags' SQL: reads come from shared/protected_tags; a protection is written with its create
// levels in one statement.
import { and, eq, sql } from "drizzle-orm";
import { namespaces, projects, protectedTags } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { projectAccessLevel } from "../kernel/visibility";
import { listProtectedTags } from "../shared/protected_tags";

export { listProtectedTags };

export type NewLevel = { accessLevel: number | null; userId: number | null; groupId: number | null };

/** Inserts the protection and its levels in one statement; false when the name is already protected. */
export async function insertProtectedTag(db: Executor, projectId: number, name: string, levels: NewLevel[]): Promise<boolean> {
  const result = await db.execute<{ id: number }>(sql`
    WITH pt AS (
      INSERT INTO protected_tags (project_id, name) VALUES (${projectId}, ${name})
      ON CONFLICT DO NOTHING RETURNING id
    ), l AS (
      INSERT INTO protected_tag_create_access_levels (protected_tag_id, access_level, user_id, group_id)
      SELECT pt.id, a.level, a.user_id, a.group_id
        FROM pt, unnest(${sql.param(levels.map((l) => l.accessLevel))}::smallint[], ${sql.param(levels.map((l) => l.userId))}::int[],
                        ${sql.param(levels.map((l) => l.groupId))}::int[]) WITH ORDINALITY AS a(level, user_id, group_id, n)
      ORDER BY a.n
      RETURNING 1
    )
    SELECT pt.id FROM pt`);
  return result.rows.length > 0;
}

/**
 * Which of `userIds` have access to the project (EE's `validate_user_membership`) and which of
 * `groupIds` the project is shared with (`validate_group_membership`). One statement.
 */
export async function grantable(db: Executor, projectId: number, userIds: number[], groupIds: number[]): Promise<{ users: Set<number>; groups: Set<number> }> {
  if (userIds.length === 0 && groupIds.length === 0) return { users: new Set(), groups: new Set() };
  const result = await db.execute<{ kind: string; id: number }>(sql`
    SELECT 'user' AS kind, u.id FROM users u JOIN projects ON projects.id = ${projectId} JOIN namespaces ON namespaces.id = projects.namespace_id
     WHERE u.id = ANY(${sql.param(userIds)}::int[]) AND ${projectAccessLevel(sql`u.id`, projects, namespaces)} > 0
    UNION ALL
    SELECT 'group', l.group_id FROM project_group_links l WHERE l.project_id = ${projectId} AND l.group_id = ANY(${sql.param(groupIds)}::int[])`);
  const users = new Set<number>();
  const groups = new Set<number>();
  for (const row of result.rows) (row.kind === "user" ? users : groups).add(Number(row.id));
  return { users, groups };
}

/** Deletes the protection called `name` (its levels cascade); false when there was none. */
export async function deleteProtectedTag(db: Executor, projectId: number, name: string): Promise<boolean> {
  const rows = await db
    .delete(protectedTags)
    .where(and(eq(protectedTags.projectId, projectId), eq(protectedTags.name, name)))
    .returning({ id: protectedTags.id });
  return rows.length > 0;
}
