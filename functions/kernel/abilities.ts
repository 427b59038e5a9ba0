import type { DeployToken, Namespace, Project, User } from "../../db/schema";
import { Access, Visibility } from "./access";
import type { Actor, Ctx } from "./env";
import { forbidden } from "./errors";

/** A project as lookups load it: with its namespace and the actor's effective access level. */
export type ProjectWithAccess = Project & { namespace: Namespace; accessLevel: number };
/** A group as lookups load it, with the actor's effective access level (inherited from ancestors). */
export type GroupWithAccess = Namespace & { accessLevel: number };

type Rule = {
  level: number;
  readers?: true;
  blockedWhenArchived?: true;
  /** The project feature the ability needs (`issues_disabled` prevents every issue ability). */
  feature?: "issuesEnabled" | "mergeRequestsEnabled" | "snippetsEnabled" | "jobsEnabled" | "wikiEnabled" | "containerRegistryEnabled";
};

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
  // ProjectPolicy: push mirrors (`admin_remote_mirror`) are maintainers'.
  admin_remote_mirror: { level: Access.MAINTAINER },
  // ProjectPolicy: Terraform states are read by developers and written by maintainers.
  read_terraform_state: { level: Access.DEVELOPER },
  // ProjectPolicy: Pages settings and domains are maintainers' (`read_pages`, `update_pages`, `remove_pages`).
  read_pages: { level: Access.MAINTAINER },
  update_pages: { level: Access.MAINTAINER },
  remove_pages: { level: Access.MAINTAINER },
  admin_terraform_state: { level: Access.MAINTAINER },
  // Owner abilities in ProjectPolicy (`rule { can?(:owner_access) }`): maintainers may not rename,
  // archive or change visibility.
  change_visibility_level: { level: Access.OWNER },
  archive_project: { level: Access.OWNER },
  remove_project: { level: Access.OWNER },
  change_namespace: { level: Access.OWNER },
  rename_project: { level: Access.OWNER },
  // Forks (ProjectPolicy): whoever may download the code may fork it; only owners unlink a fork.
  fork_project: { level: Access.REPORTER, readers: true },
  // ProjectPolicy's reporter rule: `GET /projects/:id/statistics` (fetch counts).
  daily_statistics: { level: Access.REPORTER },
  // ProjectPolicy: `rule { reporter }.enable :read_statistics` (the `statistics` of the project entity).
  read_statistics: { level: Access.REPORTER },
  remove_fork_project: { level: Access.OWNER },
  admin_project_group_link: { level: Access.MAINTAINER },
  // Creating, promoting to, demoting from or removing the Owner role of a project member.
  manage_owners: { level: Access.OWNER },
  // Issues (app/policies/project_policy.rb, issue_policy.rb). Authors and assignees may also update
  // their issue and read a confidential one: that is decided per issue in shared/issuables/policy.ts.
  read_issue: { level: Access.GUEST, readers: true, feature: "issuesEnabled" },
  // Signed-in non-members have guest access to public (and, unless external, internal) projects
  // (ProjectPolicy `public_user_access` → `guest_access`), so they may open issues there.
  create_issue: { level: Access.GUEST, readers: true, blockedWhenArchived: true, feature: "issuesEnabled" },
  update_issue: { level: Access.REPORTER, blockedWhenArchived: true, feature: "issuesEnabled" },
  admin_issue: { level: Access.REPORTER, blockedWhenArchived: true, feature: "issuesEnabled" },
  read_confidential_issues: { level: Access.REPORTER, feature: "issuesEnabled" },
  destroy_issue: { level: Access.OWNER, feature: "issuesEnabled" },
  // ProjectPolicy: `admin_issue_link` comes with reporter access, not with the guest rule.
  admin_issue_link: { level: Access.REPORTER, blockedWhenArchived: true, feature: "issuesEnabled" },
  read_issue_link: { level: Access.GUEST, readers: true, feature: "issuesEnabled" },
  read_label: { level: Access.GUEST, readers: true },
  admin_label: { level: Access.REPORTER, blockedWhenArchived: true },
  read_milestone: { level: Access.GUEST, readers: true },
  admin_milestone: { level: Access.REPORTER, blockedWhenArchived: true },
  // EE ProjectPolicy: whoever reads the project reads the iterations of its groups.
  read_iteration: { level: Access.GUEST, readers: true },
  // Issue boards (ProjectPolicy): readers of the issues read boards; reporters manage boards and lists.
  read_issue_board: { level: Access.GUEST, readers: true, feature: "issuesEnabled" },
  admin_issue_board: { level: Access.REPORTER, blockedWhenArchived: true, feature: "issuesEnabled" },
  admin_issue_board_list: { level: Access.REPORTER, blockedWhenArchived: true, feature: "issuesEnabled" },
  create_note: { level: Access.GUEST, readers: true, blockedWhenArchived: true },
  read_note: { level: Access.GUEST, readers: true },
  admin_note: { level: Access.MAINTAINER, blockedWhenArchived: true },
  award_emoji: { level: Access.GUEST, readers: true, blockedWhenArchived: true },
  set_note_created_at: { level: Access.OWNER },
  // ProjectPolicy: `public_access` grants it to whoever reads a public or internal project, but the
  // guest rule does not, so guests of a private project do not read its merge requests (reporter).
  read_merge_request: { level: Access.REPORTER, readers: true, feature: "mergeRequestsEnabled" },
  // ProjectPolicy: `rule { can?(:guest_access) }.enable :create_merge_request_in`, and signed-in
  // non-members of a public or internal project have guest access (`public_user_access`): anyone who
  // may read the project may open a merge request into it from their fork.
  create_merge_request_in: { level: Access.GUEST, readers: true, blockedWhenArchived: true, feature: "mergeRequestsEnabled" },
  update_merge_request: { level: Access.DEVELOPER, blockedWhenArchived: true, feature: "mergeRequestsEnabled" },
  admin_merge_request: { level: Access.DEVELOPER, blockedWhenArchived: true, feature: "mergeRequestsEnabled" },
  // Creating from a branch of this project needs push access (`create_merge_request_from`, developers);
  // deleting a merge request is for owners (`destroy_merge_request`).
  create_merge_request_from: { level: Access.DEVELOPER, blockedWhenArchived: true, feature: "mergeRequestsEnabled" },
  destroy_merge_request: { level: Access.OWNER, feature: "mergeRequestsEnabled" },
  // Wikis (ProjectPolicy: guests read, developers write, maintainers delete pages; `wiki_disabled`
  // prevents them all). Differs from GitLab: `wiki_access_level` is enabled or disabled only (the
  // `projects.wiki_enabled` column), never "private".
  read_wiki: { level: Access.GUEST, readers: true, feature: "wikiEnabled" },
  create_wiki: { level: Access.DEVELOPER, blockedWhenArchived: true, feature: "wikiEnabled" },
  admin_wiki: { level: Access.MAINTAINER, blockedWhenArchived: true, feature: "wikiEnabled" },
  read_snippet: { level: Access.GUEST, readers: true, feature: "snippetsEnabled" },
  create_snippet: { level: Access.REPORTER, blockedWhenArchived: true, feature: "snippetsEnabled" },
  admin_snippet: { level: Access.MAINTAINER, blockedWhenArchived: true, feature: "snippetsEnabled" },
  // CI (app/policies/project_policy.rb, ci/pipeline_policy.rb, ci/build_policy.rb). Readers of a public
  // project see pipelines and jobs while `public_jobs` is on (decided in `allowed` below).
  read_pipeline: { level: Access.REPORTER, readers: true, feature: "jobsEnabled" },
  read_build: { level: Access.REPORTER, readers: true, feature: "jobsEnabled" },
  create_pipeline: { level: Access.DEVELOPER, blockedWhenArchived: true, feature: "jobsEnabled" },
  update_pipeline: { level: Access.DEVELOPER, blockedWhenArchived: true, feature: "jobsEnabled" },
  update_build: { level: Access.DEVELOPER, blockedWhenArchived: true, feature: "jobsEnabled" },
  erase_build: { level: Access.DEVELOPER, blockedWhenArchived: true, feature: "jobsEnabled" },
  read_pipeline_variable: { level: Access.DEVELOPER, feature: "jobsEnabled" },
  destroy_pipeline: { level: Access.OWNER, feature: "jobsEnabled" },
  admin_build: { level: Access.MAINTAINER, feature: "jobsEnabled" },
  admin_runner: { level: Access.MAINTAINER },
  // Feature flags, user lists, the Unleash client token (ee/app/policies/ee/project_policy.rb) and
  // environments (app/policies/project_policy.rb, environment_policy.rb).
  read_feature_flag: { level: Access.DEVELOPER },
  create_feature_flag: { level: Access.DEVELOPER, blockedWhenArchived: true },
  update_feature_flag: { level: Access.DEVELOPER, blockedWhenArchived: true },
  destroy_feature_flag: { level: Access.DEVELOPER, blockedWhenArchived: true },
  admin_feature_flags_user_lists: { level: Access.DEVELOPER, blockedWhenArchived: true },
  admin_feature_flags_client: { level: Access.MAINTAINER, blockedWhenArchived: true },
  read_environment: { level: Access.REPORTER },
  // Alert management (app/policies/project_policy.rb): reporters read alerts, developers change them,
  // maintainers manage the HTTP integrations and the incident settings (`admin_operations`).
  read_alert_management_alert: { level: Access.REPORTER },
  update_alert_management_alert: { level: Access.DEVELOPER, blockedWhenArchived: true },
  admin_operations: { level: Access.MAINTAINER },
  // Packages (app/policies/project_policy.rb, 15.x): readers of the project read them.
  read_package: { level: Access.REPORTER, readers: true },
  create_package: { level: Access.DEVELOPER, blockedWhenArchived: true },
  destroy_package: { level: Access.DEVELOPER, blockedWhenArchived: true },
  // The container registry (app/policies/project_policy.rb, 15.x), while the project's registry is enabled.
  read_container_image: { level: Access.REPORTER, readers: true, feature: "containerRegistryEnabled" },
  create_container_image: { level: Access.DEVELOPER, blockedWhenArchived: true, feature: "containerRegistryEnabled" },
  destroy_container_image: { level: Access.DEVELOPER, feature: "containerRegistryEnabled" },
  admin_container_image: { level: Access.MAINTAINER, feature: "containerRegistryEnabled" },
  create_environment: { level: Access.DEVELOPER, blockedWhenArchived: true },
  update_environment: { level: Access.DEVELOPER, blockedWhenArchived: true },
  stop_environment: { level: Access.DEVELOPER, blockedWhenArchived: true },
  destroy_environment: { level: Access.DEVELOPER, blockedWhenArchived: true },
  // Deployments (ProjectPolicy: reporters read, developers create and update, maintainers delete).
  read_deployment: { level: Access.REPORTER },
  create_deployment: { level: Access.DEVELOPER, blockedWhenArchived: true },
  update_deployment: { level: Access.DEVELOPER, blockedWhenArchived: true },
  destroy_deployment: { level: Access.MAINTAINER, blockedWhenArchived: true },
  // Releases (ProjectPolicy: guests read, developers write; ReleasePolicy also refuses a protected tag
  // the caller may not create, decided in the releases domain). Deploy tokens and project access tokens
  // are maintainers' (`admin_project`).
  read_release: { level: Access.GUEST, readers: true },
  create_release: { level: Access.DEVELOPER, blockedWhenArchived: true },
  update_release: { level: Access.DEVELOPER, blockedWhenArchived: true },
  destroy_release: { level: Access.DEVELOPER, blockedWhenArchived: true },
  read_deploy_token: { level: Access.MAINTAINER },
  create_deploy_token: { level: Access.MAINTAINER },
  destroy_deploy_token: { level: Access.MAINTAINER },
  read_resource_access_tokens: { level: Access.MAINTAINER },
  create_resource_access_tokens: { level: Access.MAINTAINER },
  destroy_resource_access_tokens: { level: Access.MAINTAINER },
} as const satisfies Record<string, Rule>;

/** Group abilities, from app/policies/group_policy.rb. */
const GROUP = {
  read_group: { level: Access.MINIMAL_ACCESS, readers: true },
  read_group_member: { level: Access.GUEST, readers: true },
  create_projects: { level: Access.DEVELOPER },
  create_subgroup: { level: Access.OWNER },
  admin_group: { level: Access.OWNER },
  admin_group_member: { level: Access.OWNER },
  // EE GroupPolicy: maintainers change the group's push rule.
  change_push_rules: { level: Access.MAINTAINER },
  remove_group: { level: Access.OWNER },
  read_billable_member: { level: Access.OWNER },
  // Group labels and milestones: whoever reads the group reads them (`can?(:read_group)`); reporters
  // manage them (GroupPolicy `reporter` enables admin_label and admin_milestone).
  read_label: { level: Access.MINIMAL_ACCESS, readers: true },
  admin_label: { level: Access.REPORTER },
  // GroupPolicy: whoever reads the group reads its boards; reporters manage boards and lists.
  read_issue_board: { level: Access.GUEST, readers: true },
  admin_issue_board: { level: Access.REPORTER },
  admin_issue_board_list: { level: Access.REPORTER },
  read_milestone: { level: Access.MINIMAL_ACCESS, readers: true },
  admin_milestone: { level: Access.REPORTER },
  // EE GroupPolicy: whoever reads the group reads its iterations; reporters create them (admin_iteration).
  read_iteration: { level: Access.MINIMAL_ACCESS, readers: true },
  admin_iteration: { level: Access.REPORTER },
  // Epics and their notes (ee/app/policies/ee/group_policy.rb, epic_policy.rb): whoever reads the group
  // reads its epics (confidential ones: reporters and up, decided per epic in shared/issuables/policy.ts).
  read_epic: { level: Access.MINIMAL_ACCESS, readers: true },
  admin_epic: { level: Access.REPORTER },
  destroy_epic: { level: Access.OWNER },
  read_confidential_epic: { level: Access.REPORTER },
  set_epic_created_at: { level: Access.OWNER },
  set_epic_updated_at: { level: Access.OWNER },
  create_note: { level: Access.GUEST, readers: true },
  admin_note: { level: Access.MAINTAINER },
  set_note_created_at: { level: Access.OWNER },
  // Group wikis (ee/app/policies/ee/group_policy.rb): readers of the group and guests read, developers
  // write, maintainers delete pages. Differs from GitLab: groups have no `wiki_access_level` here
  // (always enabled) and the `group_wikis` license feature is not checked.
  read_wiki: { level: Access.GUEST, readers: true },
  create_wiki: { level: Access.DEVELOPER },
  admin_wiki: { level: Access.MAINTAINER },
  // Group releases (GroupPolicy: whoever reads the group), deploy tokens (maintainers) and group
  // access tokens (owners, `admin_group`).
  read_release: { level: Access.GUEST, readers: true },
  read_deploy_token: { level: Access.MAINTAINER },
  create_deploy_token: { level: Access.MAINTAINER },
  destroy_deploy_token: { level: Access.MAINTAINER },
  read_resource_access_tokens: { level: Access.OWNER },
  create_resource_access_tokens: { level: Access.OWNER },
  destroy_resource_access_tokens: { level: Access.OWNER },
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

/** UserPolicy `read_user_profile`: a public profile, or a private one for its owner and admins. */
export function canReadUserProfile(actor: Actor | null, user: Pick<User, "id" | "privateProfile">): boolean {
  return !user.privateProfile || !!actor?.isAdmin || actor?.user.id === user.id;
}

export function allowed(actor: Actor | null, ability: ProjectAbility, project: ProjectWithAccess): boolean {
  const rule: Rule = PROJECT[ability];
  if (rule.blockedWhenArchived && project.archived) return false;
  if (rule.feature && !project[rule.feature]) return false;
  if (actor?.isAdmin) return true;
  if (!actor && !rule.readers) return false;
  // Non-members read pipelines and jobs only while the project's jobs are public (`public_builds`).
  const ci = ability === "read_pipeline" || ability === "read_build";
  if (rule.readers && !(ci && !project.publicJobs) && canReadWithoutMembership(actor, project.visibilityLevel)) return true;
  // …and so do guests, of private projects too (`rule { public_builds }.enable :read_build`,
  // `rule { public_builds & can?(:guest_access) }.enable :read_pipeline`).
  if (ci && project.publicJobs && project.accessLevel >= Access.GUEST) return true;
  return project.accessLevel >= rule.level;
}

export function allowedOnGroup(actor: Actor | null, ability: GroupAbility, group: GroupWithAccess): boolean {
  const rule: Rule = GROUP[ability];
  if (actor?.isAdmin) return true;
  if (!actor && !rule.readers) return false;
  if (rule.readers && canReadWithoutMembership(actor, group.visibilityLevel)) return true;
  return group.accessLevel >= rule.level;
}

/** DeployToken#has_access_to?: its own project, or a project below its group. */
export function deployTokenReaches(token: DeployToken, project: { id: number; namespace: { traversalIds: number[] } }): boolean {
  return token.projectId === project.id || (token.groupId !== null && project.namespace.traversalIds.includes(token.groupId));
}

/** DeployToken#has_access_to_group?: a group token reaches its group and the groups below it. */
export const deployTokenReachesGroup = (token: DeployToken, group: { traversalIds: number[] }) => token.groupId !== null && group.traversalIds.includes(token.groupId);

/**
 * The deploy-token rules of ProjectPolicy and GroupPolicy (GitLab 15.4): `read_package_registry` gives
 * `read_project`/`read_group` and `read_package`; `write_package_registry` gives those and
 * `create_package`. Nothing else: a deploy token is no member. Deliberate difference: a token does not
 * fall back to the public rules on a project it does not reach (GitLab would let it read a public one).
 */
function deployTokenMay(token: DeployToken, ability: ProjectAbility | GroupAbility): boolean {
  const writes = token.scopes.includes("write_package_registry");
  if (ability === "create_package") return writes;
  if (ability === "read_project" || ability === "read_group" || ability === "read_package") return writes || token.scopes.includes("read_package_registry");
  return false;
}

/**
 * `can?(current_user, ability, project)` for the request's caller: its user (`allowed`), or on the
 * package registries (kernel/auth.ts `DEPLOY_TOKEN_ROUTES`) the deploy token that authenticated it.
 */
export function callerMay(c: Ctx, ability: ProjectAbility, project: ProjectWithAccess): boolean {
  const token = c.var.deployToken;
  if (!token) return allowed(c.var.actor, ability, project);
  if ((PROJECT[ability] as Rule).blockedWhenArchived && project.archived) return false;
  return deployTokenReaches(token, project) && deployTokenMay(token, ability);
}

/** `can?(current_user, :read_group, group)` for the request's caller, its user or its deploy token. */
export function callerReadsGroup(c: Ctx, group: GroupWithAccess): boolean {
  const token = c.var.deployToken;
  if (!token) return canReadGroup(c.var.actor, group);
  return deployTokenReachesGroup(token, group) && deployTokenMay(token, "read_group");
}

/** 403 for a readable project and a forbidden action (lookups already turned unreadable into 404). */
export function authorize(c: Ctx, ability: ProjectAbility, project: ProjectWithAccess): void {
  if (!callerMay(c, ability, project)) throw forbidden();
}

export function authorizeGroup(c: Ctx, ability: GroupAbility, group: GroupWithAccess): void {
  if (!allowedOnGroup(c.var.actor, ability, group)) throw forbidden();
}
