import { and, desc, eq, or, sql, type SQL } from "drizzle-orm";
import { users, usersStarProjects } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { fuzzySearch } from "../kernel/fuzzy_search";
import type { Actor } from "../kernel/env";
import { cappedCount, type Page } from "../kernel/pagination";

/**
 * `toggle_star` one way: the star row and the `star_count` counter cache in one statement (a CTE), so
 * both change together or not at all. Returns false when the caller had already starred the project.
 */
export async function star(db: Executor, userId: number, projectId: number): Promise<boolean> {
  const rows = await db.execute(sql`WITH ins AS (
      INSERT INTO users_star_projects (user_id, project_id) VALUES (${userId}, ${projectId})
      ON CONFLICT (user_id, project_id) DO NOTHING RETURNING project_id)
    UPDATE projects SET star_count = star_count + 1 WHERE id IN (SELECT project_id FROM ins) RETURNING id`);
  return rows.rows.length > 0;
}

/** The reverse of `star`; false when the caller had not starred the project. */
export async function unstar(db: Executor, userId: number, projectId: number): Promise<boolean> {
  const rows = await db.execute(sql`WITH del AS (
      DELETE FROM users_star_projects WHERE user_id = ${userId} AND project_id = ${projectId} RETURNING project_id)
    UPDATE projects SET star_count = GREATEST(star_count - 1, 0) WHERE id IN (SELECT project_id FROM del) RETURNING id`);
  return rows.rows.length > 0;
}

/**
 * UsersStarProjectsFinder: the project's starrers, newest star first; `search` matches name and
 * username; users with a private profile are left out unless the caller is an admin or that user.
 */
export async function listStarrers(db: Executor, actor: Actor | null, projectId: number, search: string | undefined, page: Page) {
  const where: SQL[] = [eq(usersStarProjects.projectId, projectId)];
  if (!actor?.isAdmin) {
    const visible = actor ? or(eq(users.privateProfile, false), eq(users.id, actor.user.id))! : eq(users.privateProfile, false);
    where.push(visible);
  }
  const match = fuzzySearch([users.name, users.username], search);
  if (match) where.push(match);
  const cond = and(...where);
  const rows = await db
    .select({ starredSince: usersStarProjects.createdAt, user: users })
    .from(usersStarProjects)
    .innerJoin(users, eq(users.id, usersStarProjects.userId))
    .where(cond)
    .orderBy(desc(usersStarProjects.id))
    .limit(page.limit)
    .offset(page.offset);
  const counted = db.select({ one: sql`1` }).from(usersStarProjects).innerJoin(users, eq(users.id, usersStarProjects.userId)).where(cond);
  const total = await cappedCount(db, counted, page);
  return { rows, total };
}
