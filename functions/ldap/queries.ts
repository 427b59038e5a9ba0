import { and, eq } from "drizzle-orm";
import { members } from "../../db/schema";
import type { Executor } from "../kernel/db";

/** True when the user owns a group directly (`current_user.owned_groups.any?`). */
export async function ownsAGroup(db: Executor, userId: number): Promise<boolean> {
  const rows = await db
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.userId, userId), eq(members.sourceType, "Namespace"), eq(members.accessLevel, 50)))
    .limit(1);
  return rows.length > 0;
}
