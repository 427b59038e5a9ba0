// Who may be named in a protected ref's access levels, shared by protected branches and protected tags
// (EE's `validate_user_membership` and `validate_group_membership` of both).
import { sql } from "drizzle-orm";
import { namespaces, projects } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { projectAccessLevel } from "../../kernel/visibility";

/**
 * Who among `userIds` may be granted a level (`validate_user_membership`: they have access to the
 * project, directly, through its groups or a share) and which of `groupIds` the project is shared with
 * (`validate_group_membership`: a project_group_links row). One statement.
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
