import type { Database } from "../kernel/db";
import type { MilestoneRow } from "./entities";
import * as q from "./queries";

/** Postgres 23505, also when Drizzle wraps the driver's error in `cause`. */
function uniqueViolation(e: unknown): boolean {
  for (let err = e as { code?: unknown; cause?: unknown } | undefined; err; err = err.cause as typeof err) {
    if (err.code === "23505") return true;
  }
  return false;
}

/**
 * Milestones::PromoteService#execute in one transaction. False when the group already has a milestone
 * of that title (Deliberate difference from GitLab: GitLab saves a second one without validation; the
 * unique index on the group's titles refuses it here).
 */
export async function promoteMilestone(db: Database, milestone: MilestoneRow, groupId: number): Promise<boolean> {
  try {
    await db.transaction((tx) => q.promoteMilestone(tx, milestone, groupId));
    return true;
  } catch (e) {
    if (uniqueViolation(e)) return false;
    throw e;
  }
}
