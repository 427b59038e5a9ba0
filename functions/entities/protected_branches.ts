import * as z from "zod";
import { Access } from "../kernel/access";

/** The protections of a project as the presenter reads them; the rules (shared/protected_branches) decide on them. */
export const NO_ACCESS = 0;
export const ADMIN_ACCESS = 60;

/** `ProtectedRefAccess::HUMAN_ACCESS_LEVELS`. */
export const ACCESS_LEVEL_DESCRIPTIONS: Record<number, string> = {
  [NO_ACCESS]: "No one",
  [Access.DEVELOPER]: "Developers + Maintainers",
  [Access.MAINTAINER]: "Maintainers",
  [ADMIN_ACCESS]: "Admins",
};

export type ProtectionAction = "push" | "merge" | "unprotect";

/**
 * One access level of a protection: a role (`accessLevel`), or one user (`userId`), or the direct members
 * of one group (`groupId`, with their ids in `groupUserIds`), EE's ProtectedRefAccess.
 */
export type ProtectionLevel = {
  id: number;
  action: ProtectionAction;
  /** Null only on a user's or group's level. */
  accessLevel: number | null;
  userId?: number | null;
  groupId?: number | null;
  userName?: string | null;
  groupName?: string | null;
  groupUserIds?: number[];
};

export type Protection = {
  id: number;
  name: string;
  allowForcePush: boolean;
  codeOwnerApprovalRequired: boolean;
  createdAt: Date;
  updatedAt: Date;
  levels: ProtectionLevel[];
};

/** `ProtectedRefAccess#humanize`: the user's name, the group's name, or the role's description. */
export function levelDescription(level: ProtectionLevel): string {
  if (level.userId != null) return level.userName ?? "";
  if (level.groupId != null) return level.groupName ?? "";
  return ACCESS_LEVEL_DESCRIPTIONS[level.accessLevel ?? -1] ?? "";
}


/** API::Entities::ProtectedRefAccess (EE: `user_id`, `group_id`). */
export const ProtectedRefAccess = z
  .object({
    id: z.int(),
    access_level: z.int().nullable(),
    access_level_description: z.string(),
    user_id: z.int().nullable(),
    group_id: z.int().nullable(),
  })
  .meta({ id: "ProtectedRefAccess" });
const levels = (row: Protection, action: ProtectionAction): z.output<typeof ProtectedRefAccess>[] =>
  row.levels
    .filter((l) => l.action === action)
    .map((l) => ({ id: l.id, access_level: l.accessLevel, access_level_description: levelDescription(l), user_id: l.userId ?? null, group_id: l.groupId ?? null }));

/**
 * API::Entities::ProtectedBranch (lib/api/entities/protected_branch.rb, with the EE fields GitLab.com
 * shows: `unprotect_access_levels`, `code_owner_approval_required`, and `user_id`/`group_id` on each level).
 */
export const ProtectedBranch = z
  .object({
    id: z.int(),
    name: z.string(),
    push_access_levels: z.array(ProtectedRefAccess),
    merge_access_levels: z.array(ProtectedRefAccess),
    allow_force_push: z.boolean(),
    unprotect_access_levels: z.array(ProtectedRefAccess),
    code_owner_approval_required: z.boolean(),
  })
  .meta({ id: "ProtectedBranch" });
export function protectedBranch(row: Protection): z.output<typeof ProtectedBranch> {
  return {
    id: row.id,
    name: row.name,
    push_access_levels: levels(row, "push"),
    merge_access_levels: levels(row, "merge"),
    allow_force_push: row.allowForcePush,
    unprotect_access_levels: levels(row, "unprotect"),
    code_owner_approval_required: row.codeOwnerApprovalRequired,
  };
}
