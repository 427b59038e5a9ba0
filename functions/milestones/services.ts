import type { Database } from "../kernel/db";
import { isUniqueViolation } from "../kernel/errors";
import type { MilestoneRow } from "../entities/milestones";
import * as q from "./queries";

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
    if (isUniqueViolation(e)) return false;
    throw e;
  }
}
