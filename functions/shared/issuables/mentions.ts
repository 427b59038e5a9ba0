import { and, eq, sql } from "drizzle-orm";
import { namespaces, projects, users } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { projectAccessLevel } from "../../kernel/visibility";

/**
 * Ids of active users among `usernames` (entities/mentions parses them from a text) who may read the project (mentions of users who cannot see
 * the target create nothing, as GitLab's `filter_mentioned_users`). One statement.
 */
export async function usersWhoCanReadProject(tx: Executor, projectId: number, usernames: string[], minAccessLevel = 0): Promise<number[]> {
  if (usernames.length === 0) return [];
  const rows = await tx
    .select({ id: users.id })
    .from(users)
    .innerJoin(projects, eq(projects.id, projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(
      and(
        sql`lower(${users.username}) = ANY(${sql.param(usernames)}::text[])`,
        eq(users.state, "active"),
        sql`(${users.admin}
          OR (${projectAccessLevel(sql`${users.id}`)} >= GREATEST(${minAccessLevel}, 10))
          OR (${minAccessLevel} = 0 AND (${projects.visibilityLevel} = 20 OR (${projects.visibilityLevel} = 10 AND NOT ${users.external}))))`,
      ),
    );
  return rows.map((r) => r.id);
}
