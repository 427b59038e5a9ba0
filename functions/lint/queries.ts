import { and, eq, gte, sql } from "drizzle-orm";
import { members } from "../../db/schema";
import type { Executor } from "../kernel/db";

/** `current_user.projects.any? { |p| p.team.member?(current_user, DEVELOPER) }` (direct project memberships). */
export async function isDeveloperSomewhere(db: Executor, userId: number): Promise<boolean> {
  const rows = await db
    .select({ one: sql`1` })
    .from(members)
    .where(and(eq(members.userId, userId), eq(members.sourceType, "Project"), gte(members.accessLevel, 30)))
    .limit(1);
  return rows.length > 0;
}
