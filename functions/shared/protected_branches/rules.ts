// Protected-branch rules (app/models/protected_branch.rb, protected_ref_access.rb, lib/gitlab/user_access.rb,
// GitLab 15.4), pure: which protections match a branch, and what a caller may do to it. Callers load the
// project's protections once (`queries.listProtections`) and ask these functions per branch.
import { Access } from "../../kernel/access";
import { isProhibitedBranchName } from "../git/pure/refnames";
import { ADMIN_ACCESS, NO_ACCESS, type Protection, type ProtectionAction, type ProtectionLevel } from "../../entities/protected_branches";

/** `ProtectedRefAccess::ALLOWED_ACCESS_LEVELS`. */
export const ALLOWED_ACCESS_LEVELS = [NO_ACCESS, Access.DEVELOPER, Access.MAINTAINER, ADMIN_ACCESS];

/** A role level (neither a user's nor a group's). */
export const isRoleLevel = (level: ProtectionLevel) => level.userId == null && level.groupId == null;

/** `RefMatcher`: an exact name, or a wildcard where `*` matches any characters (`/` included). */
export function refMatches(pattern: string, branch: string): boolean {
  if (!pattern.includes("*")) return pattern === branch;
  const regex = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*?")}$`);
  return regex.test(branch);
}

export const matchingProtections = (protections: Protection[], branch: string) => protections.filter((p) => refMatches(p.name, branch));

/** Who asks: their role on the project (0 for none), whether they are an administrator, and who they are. */
export type Caller = { accessLevel: number; isAdmin: boolean; userId?: number } | null;

/**
 * `ProtectedRefAccess#check_access`: nobody for level 0, administrators for 60, else a member whose role
 * reaches the level. Differs from GitLab: an administrator passes every level but 0 (GitLab asks an
 * administrator without membership for the role too).
 */
export function checkAccess(caller: Caller, level: Omit<ProtectionLevel, "action" | "id">): boolean {
  if (!caller) return false;
  // EE: a user level admits that user, a group level the group's direct members (`group.users`),
  // whatever their role (callers of these rules already hold `push_code` where a push is asked).
  if (level.userId != null) return caller.isAdmin || caller.userId === level.userId;
  if (level.groupId != null) return caller.isAdmin || (caller.userId !== undefined && (level.groupUserIds ?? []).includes(caller.userId));
  if (level.accessLevel === null || level.accessLevel === NO_ACCESS) return false;
  if (caller.isAdmin) return true;
  if (level.accessLevel === ADMIN_ACCESS) return false;
  return caller.accessLevel >= level.accessLevel;
}

/** Any matching protection's level for `action` lets the caller through (`protected_ref_accessible_to?`). */
function accessibleTo(matching: Protection[], caller: Caller, action: ProtectionAction): boolean {
  return matching.some((p) => p.levels.some((l) => l.action === action && checkAccess(caller, l)));
}

export type BranchAccess = {
  protected: boolean;
  /** `Gitlab::UserAccess#can_push_to_branch?` given that the caller has `push_code`. */
  canPush: boolean;
  canMerge: boolean;
  /**
   * `ProtectedBranch.allow_force_push?`: a matching protection allows force pushes (whoever may push;
   * the push level is checked on its own).
   */
  canForcePush: boolean;
  /** `ProtectedBranch.developers_can?(:push | :merge)`: a matching protection grants developers. */
  developersCanPush: boolean;
  developersCanMerge: boolean;
};

/**
 * What `caller` may do to `branch`. `emptyRepo`: GitLab protects the default branch of an empty
 * repository before it exists (full protection, the instance default): only maintainers, owners and
 * administrators may create it (`ProtectedBranch.protected_ref_accessible_to?` on an empty project).
 */
export function branchAccess(protections: Protection[], branch: string, caller: Caller, project: { emptyRepo: boolean; defaultBranch: string | null }): BranchAccess {
  const matching = matchingProtections(protections, branch);
  const developers = (action: ProtectionAction) => matching.some((p) => p.levels.some((l) => l.action === action && isRoleLevel(l) && l.accessLevel === Access.DEVELOPER));
  if (project.emptyRepo) {
    const allowed = !!caller && (caller.isAdmin || caller.accessLevel >= Access.MAINTAINER);
    return { protected: true, canPush: allowed, canMerge: allowed, canForcePush: allowed, developersCanPush: false, developersCanMerge: false };
  }
  if (matching.length === 0) {
    return { protected: false, canPush: true, canMerge: true, canForcePush: true, developersCanPush: false, developersCanMerge: false };
  }
  return {
    protected: true,
    canPush: accessibleTo(matching, caller, "push"),
    canMerge: accessibleTo(matching, caller, "merge"),
    canForcePush: matching.some((p) => p.allowForcePush),
    developersCanPush: developers("push"),
    developersCanMerge: developers("merge"),
  };
}

/**
 * One ref update of a push, as git sends it: null for a ref that does not exist before or after.
 * `basisProtected`: whether an existing protected branch contains `after` (`safe_commit_for_new_protected_branch?`);
 * read only for what needs it, the creation of a protected branch by someone who may merge but not push.
 */
export type RefUpdate = { ref: string; before: string | null; after: string | null; forced: boolean; basisProtected?: boolean };

/**
 * Where an update comes from: `web` for the API's own writes (Gitaly's user operations run the hook
 * with protocol `web`, which `updated_from_web?` asks), else a git push.
 */
export type UpdateSource = { web?: boolean };

/** Whether `checkBranchUpdate` needs `basisProtected` for this update: a merge-only creator of a protected branch. */
export function needsBasisCheck(protections: Protection[], update: RefUpdate, caller: Caller, project: PushProject): boolean {
  if (!update.ref.startsWith("refs/heads/") || update.before !== null || update.after === null || project.emptyRepo) return false;
  const access = branchAccess(protections, update.ref.slice("refs/heads/".length), caller, project);
  return access.protected && !access.canPush && access.canMerge;
}

/** BranchCheck's `prohibited_hex_branch_name`. */
export const PROHIBITED_HEX_BRANCH_NAME = "You cannot create a branch with a 40-character hexadecimal branch name.";

export type PushDecision = { allowed: true } | { allowed: false; message: string };

/** The project as a push check sees it; `fullPath` and `membersUrl` word the refusal in an empty one. */
export type PushProject = { emptyRepo: boolean; defaultBranch: string | null; fullPath?: string; membersUrl?: string };

/**
 * `empty_project_push_message`: what a push refused by the empty repository's protection says, with
 * the project's members page (GitLab's heredoc, blank lines included).
 */
export const emptyProjectPushMessage = (fullPath: string, membersUrl: string) =>
  `\nA default branch (e.g. main) does not yet exist for ${fullPath}\nAsk a project Owner or Maintainer to create a default branch:\n\n  ${membersUrl}\n\n`;

/**
 * Gitlab::Checks::BranchCheck for one branch update by a caller who has `push_code` (GitLab 15.4
 * wording). Tags (shared/protected_tags) and other refs pass.
 */
export function checkBranchUpdate(
  protections: Protection[],
  update: RefUpdate,
  caller: Caller,
  project: PushProject,
  source: UpdateSource = {},
): PushDecision {
  if (!update.ref.startsWith("refs/heads/")) return { allowed: true };
  const branch = update.ref.slice("refs/heads/".length);
  if (update.after === null && branch === project.defaultBranch) return { allowed: false, message: "The default branch of a project cannot be deleted." };
  // `prohibited_branch_checks`, before the protections. A deletion passes (as GitLab after 15.4 has it;
  // 15.4 refused deleting such a branch too, which only left it stuck).
  if (update.after !== null && isProhibitedBranchName(branch)) return { allowed: false, message: PROHIBITED_HEX_BRANCH_NAME };
  const access = branchAccess(protections, branch, caller, project);
  if (!access.protected) return { allowed: true };
  if (update.forced && update.before !== null && update.after !== null && !access.canForcePush) {
    return { allowed: false, message: "You are not allowed to force push code to a protected branch on this project." };
  }
  if (update.after === null) {
    const maintainer = !!caller && (caller.isAdmin || caller.accessLevel >= Access.MAINTAINER);
    return maintainer
      ? { allowed: false, message: "You can only delete protected branches using the web interface." }
      : { allowed: false, message: "You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch." };
  }
  if (update.before === null && !project.emptyRepo) {
    // `protected_branch_creation_checks`: whoever may push creates it; whoever may only merge creates it
    // only on a commit an existing protected branch already contains, and only through the web
    // interface and API (a git push is never `updated_from_web?`).
    if (access.canPush) return { allowed: true };
    if (!access.canMerge) return { allowed: false, message: "You are not allowed to create protected branches on this project." };
    if (!update.basisProtected) return { allowed: false, message: "You can only use an existing protected branch ref as the basis of a new protected branch." };
    if (!source.web) return { allowed: false, message: "You can only create protected branches using the web interface and API." };
    return { allowed: true };
  }
  if (!access.canPush) {
    // `push_to_protected_branch_rejected_message`.
    if (project.emptyRepo && project.fullPath !== undefined && project.membersUrl !== undefined) {
      return { allowed: false, message: emptyProjectPushMessage(project.fullPath, project.membersUrl) };
    }
    return { allowed: false, message: "You are not allowed to push code to protected branches on this project." };
  }
  return { allowed: true };
}
