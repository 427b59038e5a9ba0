// Protected branches (GitLab's protected_branches and its access-level tables, GitLab 15.4). A name is a
// branch name or a wildcard pattern (`*` matches any characters, `/` included).
import { boolean, index, integer, pgTable, smallint, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { namespaces } from "./namespaces";
import { projects } from "./projects";
import { users } from "./users";

export const protectedBranches = pgTable(
  "protected_branches",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text().notNull(),
    allowForcePush: boolean().notNull().default(false),
    codeOwnerApprovalRequired: boolean().notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_protected_branches_on_project_id_and_name").on(t.projectId, t.name)],
);

/**
 * One row per (protection, action, who): `push`, `merge` or `unprotect`, for a role level (0, 30, 40, 60),
 * or for one user (`user_id`) or the direct members of one group (`group_id`), (EE's ProtectedRefAccess).
 */
export const protectedBranchAccessLevels = pgTable(
  "protected_branch_access_levels",
  {
    id: id(),
    protectedBranchId: integer()
      .notNull()
      .references(() => protectedBranches.id, { onDelete: "cascade" }),
    action: text({ enum: ["push", "merge", "unprotect"] }).notNull(),
    /** Null on a user's or group's row created without one (GitLab shows `access_level: null` there). */
    accessLevel: smallint(),
    userId: integer().references(() => users.id, { onDelete: "cascade" }),
    groupId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_protected_branch_access_levels_on_branch").on(t.protectedBranchId, t.action)],
);

export type ProtectedBranch = typeof protectedBranches.$inferSelect;
export type ProtectedBranchAccessLevel = typeof protectedBranchAccessLevels.$inferSelect;
