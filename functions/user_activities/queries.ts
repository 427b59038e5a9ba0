import { asc, gte, sql } from "drizzle-orm";
import { users } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { Page } from "../kernel/pagination";

/**
 * `User.where(last_activity_on >= from).reorder(last_activity_on: :asc)` (lib/api/users.rb,
 * `GET /user/activities`), with id as the tie-breaker so pages do not overlap.
 */
export async function listActivities(db: Executor, from: string, page: Page) {
  const where = gte(users.lastActivityOn, from);
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({ username: users.username, lastActivityOn: users.lastActivityOn })
      .from(users)
      .where(where)
      .orderBy(asc(users.lastActivityOn), asc(users.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: sql<number>`count(*)::int` }).from(users).where(where),
  ]);
  return { rows, total };
}
