// Reading a project's protected branches (one statement), shared by the protected_branches domain,
// the branch entity's flags, the commits and files APIs and git pushes.
import { sql } from "drizzle-orm";
import type { Executor } from "../../kernel/db";
import type { Protection, ProtectionAction } from "./rules";

export type ProtectionJson = Row;

type Row = {
  id: number;
  name: string;
  allow_force_push: boolean;
  code_owner_approval_required: boolean;
  created_at: Date | string;
  updated_at: Date | string;
  levels: { id: number; action: ProtectionAction; access_level: number }[] | string;
};

/** A stored protection row (as `listProtections` and the git core's state read return it). */
export const toProtection = (row: Row): Protection => ({
  id: Number(row.id),
  name: row.name,
  allowForcePush: row.allow_force_push,
  codeOwnerApprovalRequired: row.code_owner_approval_required,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
  levels: (typeof row.levels === "string" ? JSON.parse(row.levels) : row.levels).map((l: { id: number; action: ProtectionAction; access_level: number }) => ({
    id: Number(l.id),
    action: l.action,
    accessLevel: Number(l.access_level),
  })),
});

/** Every protection of the project with its access levels, by id (one statement). */
export async function listProtections(db: Executor, projectId: number, name?: string): Promise<Protection[]> {
  const result = await db.execute<Row>(sql`
    SELECT pb.id, pb.name, pb.allow_force_push, pb.code_owner_approval_required, pb.created_at, pb.updated_at,
           coalesce((SELECT json_agg(json_build_object('id', l.id, 'action', l.action, 'access_level', l.access_level) ORDER BY l.id)
                       FROM protected_branch_access_levels l WHERE l.protected_branch_id = pb.id), '[]'::json) AS levels
      FROM protected_branches pb
     WHERE pb.project_id = ${projectId} ${name === undefined ? sql`` : sql`AND pb.name = ${name}`}
     ORDER BY pb.id`);
  return result.rows.map(toProtection);
}

