// Protected tags' SQL: reads come from shared/protected_tags; a protection is written with its create
// levels in one statement.
import { and, eq, sql } from "drizzle-orm";
import { protectedTags } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { listProtectedTags } from "../shared/protected_tags";

export { listProtectedTags };
export { grantable } from "../shared/protected_branches/grantable";

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

/** Deletes the protection called `name` (its levels cascade); false when there was none. */
export async function deleteProtectedTag(db: Executor, projectId: number, name: string): Promise<boolean> {
  const rows = await db
    .delete(protectedTags)
    .where(and(eq(protectedTags.projectId, projectId), eq(protectedTags.name, name)))
    .returning({ id: protectedTags.id });
  return rows.length > 0;
}
