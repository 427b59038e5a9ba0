// Reading a project's protected branches (one statement), shared by the protected_branches domain,
// the branch entity's flags, the commits and files APIs and git pushes.
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Executor } from "../../kernel/db";
import type { Protection, ProtectionAction, ProtectionLevel } from "../../entities/protected_branches";

export type ProtectionJson = Row;

type Row = {
  id: number;
  name: string;
  allow_force_push: boolean;
  code_owner_approval_required: boolean;
  created_at: Date | string;
  updated_at: Date | string;
  levels: LevelRow[] | string;
};

type LevelRow = {
  id: number;
  action: ProtectionAction;
  access_level: number | null;
  user_id?: number | null;
  group_id?: number | null;
  user_name?: string | null;
  group_name?: string | null;
  group_user_ids?: number[] | null;
};

/**
 * The levels of the protection `pb` as one JSON array (every reader uses it, the git core's state
 * statement too): a user level brings the user's name, a group level the group's name and the ids of
 * its direct members (`group.users` in EE's ProtectedRefAccess#check_access), so that deciding a push
 * needs no statement of its own.
 */
export const levelsJson = sql`coalesce((SELECT json_agg(json_build_object('id', l.id, 'action', l.action, 'access_level', l.access_level,
      'user_id', l.user_id, 'group_id', l.group_id, 'user_name', lu.name, 'group_name', lg.name,
      'group_user_ids', CASE WHEN l.group_id IS NULL THEN NULL ELSE ARRAY(SELECT m.user_id FROM members m
        WHERE m.source_type = 'Namespace' AND m.source_id = l.group_id AND (m.expires_at IS NULL OR m.expires_at > current_date)) END) ORDER BY l.id)
    FROM protected_branch_access_levels l
    LEFT JOIN users lu ON lu.id = l.user_id
    LEFT JOIN namespaces lg ON lg.id = l.group_id
   WHERE l.protected_branch_id = pb.id), '[]'::json)`;

const toLevel = (l: LevelRow): ProtectionLevel => ({
  id: Number(l.id),
  action: l.action,
  accessLevel: l.access_level == null ? null : Number(l.access_level),
  userId: l.user_id == null ? null : Number(l.user_id),
  groupId: l.group_id == null ? null : Number(l.group_id),
  userName: l.user_name ?? null,
  groupName: l.group_name ?? null,
  groupUserIds: l.group_user_ids ? l.group_user_ids.map(Number) : [],
});

/** A stored protection row (as `listProtections` and the git core's state read return it). */
export const toProtection = (row: Row): Protection => ({
  id: Number(row.id),
  name: row.name,
  allowForcePush: row.allow_force_push,
  codeOwnerApprovalRequired: row.code_owner_approval_required,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
  levels: (typeof row.levels === "string" ? (JSON.parse(row.levels) as LevelRow[]) : row.levels).map(toLevel),
});

/**
 * `ProtectedBranch.protected?(project, branch)` as SQL: a protection of the project matches the branch
 * (`refMatches`: the exact name, or a wildcard whose `*` matches any characters, `/` included).
 */
export function branchIsProtectedSql(projectId: SQLWrapper, branch: SQLWrapper): SQL<boolean> {
  return sql<boolean>`EXISTS (SELECT 1 FROM protected_branches pb WHERE pb.project_id = ${projectId} AND (pb.name = ${branch}
    OR (strpos(pb.name, '*') > 0 AND ${branch} LIKE replace(replace(replace(replace(pb.name, '\\', '\\\\'), '%', '\\%'), '_', '\\_'), '*', '%'))))`;
}

/** Every protection of the project with its access levels, by id (one statement). */
export async function listProtections(db: Executor, projectId: number, name?: string): Promise<Protection[]> {
  const result = await db.execute<Row>(sql`
    SELECT pb.id, pb.name, pb.allow_force_push, pb.code_owner_approval_required, pb.created_at, pb.updated_at,
           ${levelsJson} AS levels
      FROM protected_branches pb
     WHERE pb.project_id = ${projectId} ${name === undefined ? sql`` : sql`AND pb.name = ${name}`}
     ORDER BY pb.id`);
  return result.rows.map(toProtection);
}

