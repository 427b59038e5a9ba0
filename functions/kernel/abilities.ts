import type { Namespace, Project } from "../../db/schema";
import { Access, Visibility } from "./access";
import type { Actor, Ctx } from "./env";
import { forbidden } from "./errors";

/** A project as lookups load it: with its namespace and the actor's effective access level. */
export type ProjectWithAccess = Project & { namespace: Namespace; accessLevel: number };
/** A group as lookups load it, with the actor's effective access level (inherited from ancestors). */
export type GroupWithAccess = Namespace & { accessLevel: number };

type Rule = { level: number; readers?: true; blockedWhenArchived?: true; owner?: true };

/**
 * Project abilities, named after app/policies/project_policy.rb. `readers`: anyone who can read the
 * project has it (public, or internal and signed in). `blockedWhenArchived`: archived projects refuse it.
 */
const PROJECT = {
  read_project: { level: Access.GUEST, readers: true },
  read_project_member: { level: Access.GUEST, readers: true },
  read_code: { level: Access.REPORTER, readers: true },
  download_code: { level: Access.REPORTER, readers: true },
  push_code: { level: Access.DEVELOPER, blockedWhenArchived: true },
  admin_project_member: { level: Access.MAINTAINER },
  admin_project: { level: Access.MAINTAINER },
  change_visibility_level: { level: Access.MAINTAINER },
  archive_project: { level: Access.MAINTAINER },
  remove_project: { level: Access.OWNER },
  change_namespace: { level: Access.OWNER },
  rename_project: { level: Access.MAINTAINER },
  admin_project_group_link: { level: Access.MAINTAINER },
} as const satisfies Record<string, Rule>;

/** Group abilities, from app/policies/group_policy.rb. */
const GROUP = {
  read_group: { level: Access.MINIMAL_ACCESS, readers: true },
  read_group_member: { level: Access.GUEST, readers: true },
  create_projects: { level: Access.DEVELOPER },
  create_subgroup: { level: Access.OWNER },
  admin_group: { level: Access.OWNER },
  admin_group_member: { level: Access.OWNER },
  remove_group: { level: Access.OWNER },
  read_billable_member: { level: Access.OWNER },
} as const satisfies Record<string, Rule>;

export type ProjectAbility = keyof typeof PROJECT;
export type GroupAbility = keyof typeof GROUP;

/** Public: anyone. Internal: any signed-in user who is not external. Private: members only. */
export function canReadWithoutMembership(actor: Actor | null, visibilityLevel: number): boolean {
  if (visibilityLevel >= Visibility.PUBLIC) return true;
  return visibilityLevel >= Visibility.INTERNAL && !!actor && !actor.user.external;
}

export function canReadProject(actor: Actor | null, project: ProjectWithAccess): boolean {
  if (actor?.isAdmin) return true;
  return canReadWithoutMembership(actor, project.visibilityLevel) || project.accessLevel >= Access.GUEST;
}

/** A group is readable by its members, members of its descendants and their projects (accessLevel ≥ 5). */
export function canReadGroup(actor: Actor | null, group: GroupWithAccess): boolean {
  if (actor?.isAdmin) return true;
  return canReadWithoutMembership(actor, group.visibilityLevel) || group.accessLevel >= Access.MINIMAL_ACCESS;
}

export function allowed(actor: Actor | null, ability: ProjectAbility, project: ProjectWithAccess): boolean {
  const rule: Rule = PROJECT[ability];
  if (rule.blockedWhenArchived && project.archived) return false;
  if (actor?.isAdmin) return true;
  if (!actor && !rule.readers) return false;
  if (rule.readers && canReadWithoutMembership(actor, project.visibilityLevel)) return true;
  return project.accessLevel >= rule.level;
}

export function allowedOnGroup(actor: Actor | null, ability: GroupAbility, group: GroupWithAccess): boolean {
  const rule: Rule = GROUP[ability];
  if (actor?.isAdmin) return true;
  if (!actor && !rule.readers) return false;
  if (rule.readers && canReadWithoutMembership(actor, group.visibilityLevel)) return true;
  return group.accessLevel >= rule.level;
}

/** 403 for a readable project and a forbidden action (lookups already turned unreadable into 404). */
export function authorize(c: Ctx, ability: ProjectAbility, project: ProjectWithAccess): void {
  if (!allowed(c.var.actor, ability, project)) throw forbidden();
}

export function authorizeGroup(c: Ctx, ability: GroupAbility, group: GroupWithAccess): void {
  if (!allowedOnGroup(c.var.actor, ability, group)) throw forbidden();
}
