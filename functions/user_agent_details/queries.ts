import { and, eq } from "drizzle-orm";
import { userAgentDetails } from "../../db/schema";
import type { Executor } from "../kernel/db";

/** The user agent and IP recorded when the subject (an issue, a snippet) was created through the API. */
export async function findUserAgentDetail(db: Executor, subjectType: "Issue" | "Snippet", subjectId: number) {
  const rows = await db
    .select()
    .from(userAgentDetails)
    .where(and(eq(userAgentDetails.subjectType, subjectType), eq(userAgentDetails.subjectId, subjectId)))
    .limit(1);
  return rows[0] ?? null;
}
