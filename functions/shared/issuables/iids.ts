import { sql } from "drizzle-orm";
import { internalIds } from "../../../db/schema";
import type { Executor } from "../../kernel/db";

/** Gapless per-project (or per-group) iids of issues, merge requests, epics (InternalId). */

export type IidOwner = { projectId: number } | { namespaceId: number };

/**
 * The statement that bumps and returns (`last_value`) the next gapless iid of `usage` in a project (or
 * group): alone, or as the first CTE of the statement that creates the row.
 */
export function nextIidSql(usage: string, owner: IidOwner) {
  const byProject = "projectId" in owner;
  const ownerId = byProject ? owner.projectId : owner.namespaceId;
  const column = byProject ? sql.raw("project_id") : sql.raw("namespace_id");
  return sql`INSERT INTO internal_ids (usage, ${column}, last_value) VALUES (${usage}, ${ownerId}, 1)
    ON CONFLICT (usage, ${column}) WHERE ${column} IS NOT NULL
    DO UPDATE SET last_value = ${internalIds}.last_value + 1
    RETURNING last_value`;
}

/** The next gapless iid of `usage` in a project (or group), bumped inside the creating transaction. */
export async function nextIid(tx: Executor, usage: string, owner: IidOwner): Promise<number> {
  const result = await tx.execute<{ last_value: number }>(nextIidSql(usage, owner));
  return Number(result.rows[0].last_value);
}
