// Protected branches' SQL: a project's protections with their access levels in one statement, and
// writes that insert a protection with its levels in one statement.
import { and, eq, inArray, sql } from "drizzle-orm";
import { protectedBranchAccessLevels, protectedBranches } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { toProtection, type ProtectionJson } from "../shared/protected_branches/read";
import type { Protection, ProtectionAction } from "../entities/protected_branches";

export { listProtections } from "../shared/protected_branches/read";
export { grantable } from "../shared/protected_branches/grantable";

/** A level to write: a role (`accessLevel`), a user or a group. */
export type NewLevel = { action: ProtectionAction; accessLevel: number | null; userId: number | null; groupId: number | null };

export type NewProtection = {
  name: string;
  allowForcePush: boolean;
  codeOwnerApprovalRequired: boolean;
  levels: NewLevel[];
};

/**
 * Inserts a protection and its levels in one statement; null when the name is already protected
 * (the unique index decides, so concurrent creates cannot both win).
 */
export async function insertProtection(db: Executor, projectId: number, input: NewProtection): Promise<Protection | null> {
  const actions = input.levels.map((l) => l.action);
  const levels = input.levels.map((l) => l.accessLevel);
  const userIds = input.levels.map((l) => l.userId);
  const groupIds = input.levels.map((l) => l.groupId);
  const result = await db.execute<ProtectionJson>(sql`
    WITH pb AS (
      INSERT INTO protected_branches (project_id, name, allow_force_push, code_owner_approval_required)
      VALUES (${projectId}, ${input.name}, ${input.allowForcePush}, ${input.codeOwnerApprovalRequired})
      ON CONFLICT DO NOTHING
      RETURNING id, name, allow_force_push, code_owner_approval_required, created_at, updated_at
    ), l AS (
      INSERT INTO protected_branch_access_levels (protected_branch_id, action, access_level, user_id, group_id)
      SELECT pb.id, a.action, a.level, a.user_id, a.group_id
        FROM pb, unnest(${sql.param(actions)}::text[], ${sql.param(levels)}::smallint[], ${sql.param(userIds)}::int[], ${sql.param(groupIds)}::int[])
             WITH ORDINALITY AS a(action, level, user_id, group_id, n)
      ORDER BY a.n
      RETURNING id, action, access_level, user_id, group_id
    )
    SELECT pb.*, coalesce((SELECT json_agg(json_build_object('id', l.id, 'action', l.action, 'access_level', l.access_level, 'user_id', l.user_id,
             'group_id', l.group_id, 'user_name', lu.name, 'group_name', lg.name) ORDER BY l.id)
             FROM l LEFT JOIN users lu ON lu.id = l.user_id LEFT JOIN namespaces lg ON lg.id = l.group_id), '[]'::json) AS levels
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

export type LevelChanges = {
  deletes: number[];
  updates: ({ id: number } & Omit<NewLevel, "action">)[];
  inserts: NewLevel[];
  flags: { allowForcePush?: boolean; codeOwnerApprovalRequired?: boolean };
};

/**
 * PATCH's writes (ProtectedBranches::UpdateService with `*_access_levels_attributes`): deletes, updates and
 * inserts of the protection's levels and its flags, in one transaction. Levels of another protection are
 * left alone (the `protected_branch_id` condition).
 */
export async function updateProtection(db: Executor, id: number, changes: LevelChanges): Promise<void> {
  await db.transaction(async (tx) => {
    if (changes.deletes.length) {
      await tx.delete(protectedBranchAccessLevels).where(and(eq(protectedBranchAccessLevels.protectedBranchId, id), inArray(protectedBranchAccessLevels.id, changes.deletes)));
    }
    for (const u of changes.updates) {
      await tx
        .update(protectedBranchAccessLevels)
        .set({ accessLevel: u.accessLevel, userId: u.userId, groupId: u.groupId, updatedAt: sql`now()` })
        .where(and(eq(protectedBranchAccessLevels.protectedBranchId, id), eq(protectedBranchAccessLevels.id, u.id)));
    }
    if (changes.inserts.length) {
      await tx.insert(protectedBranchAccessLevels).values(changes.inserts.map((l) => ({ protectedBranchId: id, ...l })));
    }
    await tx
      .update(protectedBranches)
      .set({ ...changes.flags, updatedAt: sql`now()` })
      .where(eq(protectedBranches.id, id));
  });
}

/** Deletes the protection called `name` (its levels cascade). False when there was none. */
export async function deleteProtection(db: Executor, projectId: number, name: string): Promise<boolean> {
  const rows = await db
    .delete(protectedBranches)
    .where(and(eq(protectedBranches.projectId, projectId), eq(protectedBranches.name, name)))
    .returning({ id: protectedBranches.id });
  return rows.length > 0;
}
