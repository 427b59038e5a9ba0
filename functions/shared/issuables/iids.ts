import { sql } from "drizzle-orm";
import { internalIds } from "../../../db/schema";
import type { Executor } from "../../kernel/db";

/** Gapless per-project (or per-group) iids of issues, merge requests, epics (InternalId). */

/** The next gapless iid of `usage` in a project (or group), bumped inside the creating transaction. */
export async function nextIid(tx: Executor, usage: string, owner: { projectId: number } | { namespaceId: number }): Promise<number> {
  const byProject = "projectId" in owner;
  const ownerId = byProject ? owner.projectId : owner.namespaceId;
  const column = byProject ? sql.raw("project_id") : sql.raw("namespace_id");
  const result = await tx.execute<{ last_value: number }>(sql`
    INSERT INTO internal_ids (usage, ${column}, last_value) VALUES (${usage}, ${ownerId}, 1)
    ON CONFLICT (usage, ${column}) WHERE ${column} IS NOT NULL
    DO UPDATE SET last_value = ${internalIds}.last_value + 1
    RETURNING last_value`);
  return Number(result.rows[0].last_value);
}
