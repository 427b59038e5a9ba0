import { levelDescription, type Protection, type ProtectionAction } from "../shared/protected_branches/rules";

/** EE's ProtectedRefAccess entity: a role level, or a user's (their name) or a group's (its name). */
const levels = (row: Protection, action: ProtectionAction) =>
  row.levels
    .filter((l) => l.action === action)
    .map((l) => ({ id: l.id, access_level: l.accessLevel, access_level_description: levelDescription(l), user_id: l.userId ?? null, group_id: l.groupId ?? null }));

/**
 * API::Entities::ProtectedBranch (lib/api/entities/protected_branch.rb, with the EE fields GitLab.com
 * shows: `unprotect_access_levels`, `code_owner_approval_required`, and `user_id`/`group_id` on each level).
 */
export function protectedBranch(row: Protection) {
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
