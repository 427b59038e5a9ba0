import { Access, PROJECT_ACCESS_LEVELS } from "../kernel/access";
import { allowed, allowedOnGroup, type GroupWithAccess, type ProjectWithAccess } from "../kernel/abilities";
import type { Actor } from "../kernel/env";
import { toSentence } from "../kernel/present";

/**
 * The membership rules GitLab keeps in its models and member policies (app/models/member.rb,
 * app/models/members/*_member.rb, app/policies/{group,project}_member_policy.rb), as pure functions of
 * what the queries loaded. No I/O here.
 */

/** What members hang from: a group (`source_type` Namespace) or a project. */
export type MemberSource =
  | { kind: "group"; sourceType: "Namespace"; id: number; group: GroupWithAccess }
  | { kind: "project"; sourceType: "Project"; id: number; project: ProjectWithAccess };

export const groupSource = (group: GroupWithAccess): MemberSource => ({ kind: "group", sourceType: "Namespace", id: group.id, group });
export const projectSource = (project: ProjectWithAccess): MemberSource => ({
  kind: "project",
  sourceType: "Project",
  id: project.id,
  project,
});

/** A root group: EE allows the Minimal Access role there only (Group#minimal_access_role_allowed?). */
export const isRootGroup = (source: MemberSource) => source.kind === "group" && source.group.parentId === null;

/** Groups whose memberships a source inherits: its ancestors; for a project, its group and that group's ancestors. */
export function inheritedGroupIds(source: MemberSource): number[] {
  if (source.kind === "group") return source.group.traversalIds.filter((id) => id !== source.id);
  return source.project.namespace.type === "Group" ? source.project.namespace.traversalIds : [];
}

/** Group ids whose owner rows decide "last owner" (Group#members_with_parents): the group and its ancestors. */
export const hierarchyGroupIds = (source: MemberSource) => (source.kind === "group" ? source.group.traversalIds : []);

/** `access_level_inclusion`: projects 10–50; groups 10–50, plus 5 on a root group (EE, licensed). */
export function allowedAccessLevels(source: MemberSource): number[] {
  if (source.kind === "project") return PROJECT_ACCESS_LEVELS;
  return isRootGroup(source) ? [Access.MINIMAL_ACCESS, ...PROJECT_ACCESS_LEVELS] : PROJECT_ACCESS_LEVELS;
}

const HUMAN_ACCESS: Record<number, string> = {
  5: "Minimal Access",
  10: "Guest",
  20: "Reporter",
  30: "Developer",
  40: "Maintainer",
  50: "Owner",
};

/** Gitlab::Access.human_access */
export const humanAccess = (level: number) => HUMAN_ACCESS[level] ?? String(level);

/** The highest membership of the user in an inherited group, as Member#highest_group_member finds it. */
export type InheritedMembership = { accessLevel: number; groupName: string } | null;

export type Candidate = {
  accessLevel: number;
  /** `YYYY-MM-DD` or null. */
  expiresAt: string | null;
  inherited: InheritedMembership;
  /** A project bot that is already a member anywhere (bots belong to their one project). */
  botElsewhere: boolean;
};

/** Today's date in UTC (`Date.current` with GitLab's default UTC zone). */
export const today = (now = new Date()) => now.toISOString().slice(0, 10);

/**
 * Member model validations, in GitLab's declaration order: expires_at (future_date), inherited level
 * (higher_access_level_than_group), project bots (user_id), access_level_inclusion. Null when valid.
 */
export function validateMember(source: MemberSource, m: Candidate, now = new Date()): Record<string, string[]> | null {
  const errors: Record<string, string[]> = {};
  const add = (attr: string, message: string) => (errors[attr] ??= []).push(message);
  if (m.expiresAt !== null && m.expiresAt < today(now)) add("expires_at", "cannot be a date in the past");
  if (m.inherited && m.inherited.accessLevel > m.accessLevel)
    add(
      "access_level",
      `should be greater than or equal to ${humanAccess(m.inherited.accessLevel)} inherited membership from group ${m.inherited.groupName}`,
    );
  if (m.botElsewhere) add("user_id", "project bots cannot be added to other groups / projects");
  if (!allowedAccessLevels(source).includes(m.accessLevel)) add("access_level", "is not included in the list");
  return Object.keys(errors).length ? errors : null;
}

/** `errors.full_messages.to_sentence` for the multi-user add (Members::CreateService). */
export function fullMessages(errors: Record<string, string[]>): string {
  const names: Record<string, string> = { expires_at: "Expires at", access_level: "Access level", user_id: "User" };
  const messages = Object.entries(errors).flatMap(([attr, list]) => list.map((m) => `${names[attr] ?? attr} ${m}`));
  return toSentence(messages);
}

/**
 * ProjectPolicy `manage_owners`: only owners (and admins) create, promote to, demote from or remove
 * the Owner role of a project member (Members::Projects::CreatorService, UpdateService,
 * DestroyService). In a group, managing members already takes an owner (`admin_group_member`).
 */
export function canManageOwners(actor: Actor | null, source: MemberSource): boolean {
  return source.kind === "project"
    ? allowed(actor, "manage_owners", source.project)
    : allowedOnGroup(actor, "admin_group_member", source.group);
}

/** ProjectMemberPolicy `target_is_holder_of_the_personal_namespace`: never updated nor removed. */
export function isPersonalNamespaceHolder(source: MemberSource, userId: number): boolean {
  return source.kind === "project" && source.project.namespace.type === "User" && source.project.namespace.ownerId === userId;
}

/** What the last-owner rule needs (Group#member_last_owner?, #member_last_blocked_owner?). */
export type OwnerFacts = {
  /** Owner rows of active users in the group and its ancestors (members_with_parents.owners). */
  activeOwnerRows: number;
  /** Whether the target user holds one of those rows (has_owner?). */
  targetIsActiveOwner: boolean;
  /** Owner rows of blocked users directly in the group. */
  blockedOwnerRows: number;
  targetIsBlockedOwner: boolean;
};

/** GroupMemberPolicy `last_owner`: prevents update and destroy, for admins too. */
export function isLastOwner(source: MemberSource, facts: OwnerFacts): boolean {
  if (source.kind !== "group") return false;
  if (facts.targetIsActiveOwner && facts.activeOwnerRows === 1) return true;
  return facts.activeOwnerRows === 0 && facts.blockedOwnerRows === 1 && facts.targetIsBlockedOwner;
}

/** `update_group_member` / `update_project_member` for an existing member, after `admin_*_member`. */
export function mayUpdate(
  actor: Actor | null,
  source: MemberSource,
  target: { userId: number; accessLevel: number; userType: string | null },
  newLevel: number | null,
  facts: OwnerFacts,
): boolean {
  if (isPersonalNamespaceHolder(source, target.userId) || isLastOwner(source, facts)) return false;
  if (target.userType === "project_bot") return false; // `~project_bot & can?(:admin_*_member)`
  if (source.kind === "project" && !canManageOwners(actor, source))
    return target.accessLevel !== Access.OWNER && newLevel !== Access.OWNER;
  return true;
}

/**
 * `destroy_group_member` / `destroy_project_member`: managers (`admin_*_member`) and the member
 * themselves (leaving); never the last group owner nor a personal project's holder; a project owner
 * only by someone who manages owners.
 */
export function mayDestroy(
  actor: Actor | null,
  source: MemberSource,
  canAdminMembers: boolean,
  target: { userId: number; accessLevel: number; userType: string | null },
  facts: OwnerFacts,
): boolean {
  if (isPersonalNamespaceHolder(source, target.userId) || isLastOwner(source, facts)) return false;
  const bot = target.userType === "project_bot";
  const self = actor?.user.id === target.userId && !bot;
  // Bots leave through their project's token revocation, not through this endpoint.
  if (!self && (!canAdminMembers || bot)) return false;
  if (source.kind === "project" && target.accessLevel === Access.OWNER && !canManageOwners(actor, source)) return false;
  return true;
}
