import { and, desc, eq, gte, sql } from "drizzle-orm";
import { projectDailyStatistics } from "../../db/schema";
import type { Executor } from "../kernel/db";

/** ProjectDailyStatisticsFinder: the last 30 days (today included) that have fetches, newest first. */
export async function fetchDays(db: Executor, projectId: number): Promise<{ date: string; fetchCount: number }[]> {
  return db
    .select({ date: projectDailyStatistics.date, fetchCount: projectDailyStatistics.fetchCount })
    .from(projectDailyStatistics)
    .where(and(eq(projectDailyStatistics.projectId, projectId), gte(projectDailyStatistics.date, sql`(current_date - 29)`)))
    .orderBy(desc(projectDailyStatistics.date));
}
