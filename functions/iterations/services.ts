import type { Database } from "../kernel/db";
import type { IterationRow } from "../entities/iterations";
import * as q from "./queries";
import { iterationErrors, type IterationValues } from "./rules";

/**
 * Creates a group iteration in one transaction: the iid is drawn first, so its counter's row lock
 * serialises the group's creators and the overlap and title checks cannot race. Returns the row, or
 * the validation errors (nothing is written then).
 */
export async function createIteration(db: Database, groupId: number, v: IterationValues, today: Date): Promise<{ row: IterationRow } | { errors: Record<string, string[]> }> {
  const early = iterationErrors(v, { overlaps: false, titleTaken: false }, today);
  if (Object.keys(early).length) return { errors: early };
  try {
    return await db.transaction(async (tx) => {
      const iid = await q.drawIid(tx, groupId);
      const conflicts = {
        overlaps: await q.overlaps(tx, groupId, v.startDate!, v.dueDate!),
        titleTaken: v.title !== null && (await q.titleTaken(tx, groupId, v.title)),
      };
      const errors = iterationErrors(v, conflicts, today);
      if (Object.keys(errors).length) throw new Invalid(errors);
      return { row: await q.insertIteration(tx, groupId, iid, v) };
    });
  } catch (e) {
    if (e instanceof Invalid) return { errors: e.errors };
    throw e;
  }
}

/** Rolls the transaction back with the validation errors. */
class Invalid extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    super("invalid iteration");
  }
}
