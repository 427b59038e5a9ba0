// Protected branches' SQL: a project's protections with their access levels in one statement, and
// writes that insert a protection with its levels in one statement.
import { and, eq, sql } from "drizzle-orm";
import { protectedBranches } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { toProtection, type ProtectionJson } from "../shared/protected_branches/read";
import type { Protection, ProtectionAction } from "../shared/protected_branches/rules";

export { listProtections } from "../shared/protected_branches/read";

export type NewProtection = {
  name: string;
  allowForcePush: boolean;
  codeOwnerApprovalRequired: boolean;
  levels: { action: ProtectionAction; accessLevel: number }[];
};

/**
 * Inserts a protection and its levels in one statement; null when the name is already protected
 * (the unique index decides, so concurrent creates cannot both win).
 */
export async function insertProtection(db: Executor, projectId: number, input: NewProtection): Promise<Protection | null> {
  const actions = input.levels.map((l) => l.action);
  const levels = input.levels.map((l) => l.accessLevel);
  const result = await db.execute<ProtectionJson>(sql`
    WITH pb AS (
      INSERT INTO protected_branches (project_id, name, allow_force_push, code_owner_approval_required)
      VALUES (${projectId}, ${input.name}, ${input.allowForcePush}, ${input.codeOwnerApprovalRequired})
      ON CONFLICT DO NOTHING
      RETURNING id, name, allow_force_push, code_owner_approval_required, created_at, updated_at
    ), l AS (
      INSERT INTO protected_branch_access_levels (protected_branch_id, action, access_level)
      SELECT pb.id, a.action, a.level FROM pb, unnest(${sql.param(actions)}::text[], ${sql.param(levels)}::smallint[]) WITH ORDINALITY AS a(action, level, n)
      ORDER BY a.n
      RETURNING id, action, access_level
    )
    SELECT pb.*, coalesce((SELECT json_agg(json_build_object('id', l.id, 'action', l.action, 'access_level', l.access_level) ORDER BY l.id) FROM l), '[]'::json) AS levels
      FROM pb`);
  return result.rows[0] ? toProtection(result.rows[0]) : null;
}

/** Updates a protection's flags; false when it does not exist. */
export async function updateProtectionFlags(
  db: Executor,
  id: number,
  input: { allowForcePush?: boolean; codeOwnerApprovalRequired?: boolean },
): Promise<void> {
  await db
    .update(protectedBranches)
    .set({ ...input, updatedAt: sql`now()` })
    .where(eq(protectedBranches.id, id));
}

/** Deletes the protection called `name` (its levels cascade). False when there was none. */
export async function deleteProtection(db: Executor, projectId: number, name: string): Promise<boolean> {
  const rows = await db
    .delete(protectedBranches)
    .where(and(eq(protectedBranches.projectId, projectId), eq(protectedBranches.name, name)))
    .returning({ id: protectedBranches.id });
  return rows.length > 0;
}
