import * as z from "zod";
import type { Namespace, Project as ProjectModel, ProjectGroupLink, User } from "../../db/schema";
import { allowed, canReadProject } from "../kernel/abilities";
import { visibilityName } from "../kernel/access";
import { isoDate, isoTime, webUrl, type PresentContext } from "../kernel/present";
import { UserBasic, userBasic } from "./users";

/**
 * Project#lfs_enabled? (GitLab 15.4): the project's own `lfs_enabled` when set, else its namespace's
 * (Namespace#lfs_enabled?). The LFS endpoints and the project entity both ask this.
 */
export const projectLfsEnabled = (project: { lfsEnabled: boolean | null; namespace: { lfsEnabled: boolean } }): boolean =>
  project.lfsEnabled ?? project.namespace.lfsEnabled;

/**
 * A project_group_links row with its (readable) group: the columns `SharedGroupWithProject` shows are
 * required (the project row reads only those, as JSON); other loaders may carry the whole rows.
 */
export type SharedGroup = Pick<ProjectGroupLink, "groupId" | "groupAccess" | "expiresAt"> &
  Partial<ProjectGroupLink> & { group: Pick<Namespace, "name" | "fullPath"> & Partial<Namespace> };

/**
 * A project as its entities need it. Other domains that embed projects (GroupDetail `projects`,
 * `shared_projects`) load: the row, its namespace, the namespace owner for personal projects (else
 * null), the caller's effective level (kernel `projectAccessLevel`) and its non-expired group links
 * whose groups the caller may read.
 */
/** The namespace owner's columns the project entities show (UserBasic). */
export type ProjectOwnerRow = Pick<User, "id" | "username" | "name" | "state" | "avatarUrl">;

export type ProjectRow = ProjectModel & {
  namespace: Namespace;
  owner: ProjectOwnerRow | null;
  accessLevel: number;
  sharedWithGroups: SharedGroup[];
  /** The project this one was forked from, when it is a fork (preloaded with the row). */
  forkedFrom?: ProjectRow | null;
  /** The instance's `default_branch_name` setting, read with the row (for empty repositories). */
  instanceDefaultBranch?: string | null;
  /** The project's cleanup policy for container images (`container_expiration_policies`), read with the row. */
  containerExpirationPolicy?: ContainerExpirationPolicyRow | null;
  /** `statistics=true` for a caller with `read_statistics` (projects/statistics_queries.ts). */
  statistics?: ProjectStatisticsRow | null;
};

export type ContainerExpirationPolicyRow = {
  cadence: string;
  enabled: boolean;
  keepN: number | null;
  olderThan: string | null;
  nameRegex: string | null;
  nameRegexKeep: string | null;
  nextRunAt: string | Date | null;
};

/** lib/api/entities/container_expiration_policy.rb (with `name_regex_keep`, which GitLab's project API shows too). */
export const ContainerExpirationPolicy = z
  .object({
    cadence: z.string(),
    enabled: z.boolean(),
    keep_n: z.int().nullable(),
    older_than: z.string().nullable(),
    name_regex: z.string().nullable(),
    name_regex_keep: z.string().nullable(),
    next_run_at: z.string().nullable(),
  })
  .meta({ id: "ContainerExpirationPolicy" });
export function containerExpirationPolicy(row: ContainerExpirationPolicyRow): z.output<typeof ContainerExpirationPolicy> {
  return {
    cadence: row.cadence,
    enabled: row.enabled,
    keep_n: row.keepN,
    older_than: row.olderThan,
    name_regex: row.nameRegex,
    name_regex_keep: row.nameRegexKeep,
    next_run_at: isoTime(row.nextRunAt),
  };
}

/** API::Entities::ProjectStatistics (lib/api/entities/project_statistics.rb): sizes in bytes. */
export const ProjectStatistics = z
  .object({
    commit_count: z.int(),
    storage_size: z.int(),
    repository_size: z.int(),
    wiki_size: z.int(),
    lfs_objects_size: z.int(),
    job_artifacts_size: z.int(),
    pipeline_artifacts_size: z.int(),
    packages_size: z.int(),
    snippets_size: z.int(),
    uploads_size: z.int(),
    container_registry_size: z.int(),
  })
  .meta({ id: "ProjectStatistics" });
export type ProjectStatisticsRow = z.output<typeof ProjectStatistics>;

/** For `ProjectWithAccess`: the caller's direct project membership and best group-hierarchy membership. */
export type ProjectWithPermissionsRow = ProjectRow & {
  permissions: { projectAccess: number | null; groupAccess: number | null };
};

const projectUrl = (ctx: PresentContext, row: ProjectModel) => webUrl(ctx, row.fullPath);

function sshPrefix(ctx: PresentContext): string {
  return `git@${new URL(ctx.baseUrl).hostname}:`;
}

/** `download_code` (read_code in our ability table) decides repository-derived fields. */
function readsCode(row: ProjectRow, ctx: PresentContext): boolean {
  return allowed(ctx.actor, "read_code", row);
}

/** API::Entities::NamespaceBasic (lib/api/entities/namespace_basic.rb). */
/** `avatar_url(only_path: false)`: an uploaded avatar is stored as a path and shown as an absolute URL. */
const absoluteAvatar = (ctx: PresentContext, url: string | null | undefined) => (url?.startsWith("/") ? webUrl(ctx, url) : (url ?? null));

export const NamespaceBasic = z
  .object({
    id: z.int(),
    name: z.string(),
    path: z.string(),
    kind: z.enum(["user", "group"]),
    full_path: z.string(),
    parent_id: z.int().nullable(),
    avatar_url: z.string().nullable(),
    web_url: z.string(),
  })
  .meta({ id: "NamespaceBasic" });
export function namespaceBasic(ns: Namespace, owner: ProjectOwnerRow | null, ctx: PresentContext): z.output<typeof NamespaceBasic> {
  const isUser = ns.type === "User";
  return {
    id: ns.id,
    name: ns.name,
    path: ns.path,
    kind: isUser ? "user" : "group",
    full_path: ns.fullPath,
    parent_id: ns.parentId,
    avatar_url: absoluteAvatar(ctx, isUser ? owner?.avatarUrl : ns.avatarUrl),
    web_url: isUser ? webUrl(ctx, owner?.username ?? ns.path) : webUrl(ctx, `groups/${ns.fullPath}`),
  };
}

/** API::Entities::UserBasic, as `owner` of a personal project. */
export function projectOwner(user: ProjectOwnerRow, ctx: PresentContext): z.output<typeof UserBasic> {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    avatar_url: absoluteAvatar(ctx, user.avatarUrl),
    web_url: webUrl(ctx, user.username),
  };
}

/** API::Entities::ProjectIdentity (lib/api/entities/project_identity.rb): todos, events, exports. */
export const ProjectIdentity = z
  .object({
    id: z.int(),
    description: z.string().nullable(),
    name: z.string(),
    name_with_namespace: z.string(),
    path: z.string(),
    path_with_namespace: z.string(),
    created_at: z.string().nullable(),
  })
  .meta({ id: "ProjectIdentity" });
export function projectIdentity(row: ProjectModel & { namespace?: Namespace }, _ctx?: PresentContext): z.output<typeof ProjectIdentity> {
  return {
    id: row.id,
    description: row.description,
    name: row.name,
    name_with_namespace: row.nameWithNamespace,
    path: row.path,
    path_with_namespace: row.fullPath,
    created_at: isoTime(row.createdAt),
  };
}

/**
 * `Project#default_branch`: the repository's root ref, or for an empty repository
 * `default_branch_from_preferences` (the instance's `default_branch_name`). Where that setting is
 * blank we answer `main`, the name GitLab 15 gives new repositories (`Gitlab::DefaultBranch.value`),
 * so clients that pass `default_branch` on as a ref get a usable name. Edgeforge has no
 * group-level `default_branch_name`. The first pushed branch still becomes the default.
 */
export function defaultBranchOf(row: ProjectRow): string | null {
  if (row.defaultBranch) return row.defaultBranch;
  return row.emptyRepo ? row.instanceDefaultBranch || "main" : null;
}

/**
 * API::Entities::BasicProjectDetails (lib/api/entities/basic_project_details.rb): the `simple=true`
 * view and what anonymous callers get from `GET /projects`.
 */
export const BasicProjectDetails = ProjectIdentity.extend({
  default_branch: z.string().nullable().optional(),
  tag_list: z.array(z.string()),
  topics: z.array(z.string()),
  ssh_url_to_repo: z.string(),
  http_url_to_repo: z.string(),
  web_url: z.string(),
  readme_url: z.string().nullable().optional(),
  forks_count: z.int().optional(),
  avatar_url: z.string().nullable(),
  star_count: z.int(),
  last_activity_at: z.string().nullable(),
  namespace: NamespaceBasic,
}).meta({ id: "BasicProjectDetails" });
export function projectBasic(row: ProjectRow, ctx: PresentContext): z.output<typeof BasicProjectDetails> {
  const code = readsCode(row, ctx);
  return {
    ...projectIdentity(row),
    ...(code ? { default_branch: defaultBranchOf(row) } : {}),
    tag_list: row.tagList,
    topics: row.tagList,
    ssh_url_to_repo: `${sshPrefix(ctx)}${row.fullPath}.git`,
    http_url_to_repo: `${projectUrl(ctx, row)}.git`,
    web_url: projectUrl(ctx, row),
    // Differs from GitLab: `readme_url` (the README at HEAD) is not computed; finding it reads the
    // repository's root tree, for every project of a list. Always null.
    ...(code ? { readme_url: null, forks_count: row.forksCount } : {}),
    avatar_url: absoluteAvatar(ctx, row.avatarUrl),
    star_count: row.starCount,
    last_activity_at: isoTime(row.lastActivityAt),
    namespace: namespaceBasic(row.namespace, row.owner, ctx),
  };
}

/** Same shape as `projectBasic`, under the name other domains look for. */
export const projectSimple = projectBasic;

const accessLevelName = (enabled: boolean) => (enabled ? "enabled" : "disabled");

/** The fields of a share with a group, as a project's (SharedGroupWithProject) and a group's (SharedGroupWithGroup) show it. */
export const SharedGroupFields = z.object({
  group_id: z.int(),
  group_name: z.string(),
  group_full_path: z.string(),
  group_access_level: z.int(),
  expires_at: z.string().nullable(),
});

/** API::Entities::SharedGroupWithProject. */
export const SharedGroupWithProject = SharedGroupFields.meta({ id: "SharedGroupWithProject" });
export function sharedGroupWithProject(link: SharedGroup): z.output<typeof SharedGroupWithProject> {
  return sharedGroupFields(link.groupId, link.group, link);
}

/** A share's fields: the group it is shared with, the access it grants and until when. */
export function sharedGroupFields(
  groupId: number,
  group: Pick<Namespace, "name" | "fullPath">,
  link: { groupAccess: number; expiresAt: string | null },
): z.output<typeof SharedGroupFields> {
  return {
    group_id: groupId,
    group_name: group.name,
    group_full_path: group.fullPath,
    group_access_level: link.groupAccess,
    expires_at: isoDate(link.expiresAt),
  };
}

const ProjectLinks = z.object({
  self: z.string(),
  issues: z.string().optional(),
  merge_requests: z.string().optional(),
  repo_branches: z.string(),
  labels: z.string(),
  events: z.string(),
  members: z.string(),
});
function links(row: ProjectRow, ctx: PresentContext): z.output<typeof ProjectLinks> {
  const api = (suffix: string) => webUrl(ctx, `api/v4/projects/${row.id}${suffix}`);
  return {
    self: api(""),
    ...(row.issuesEnabled ? { issues: api("/issues") } : {}),
    ...(row.mergeRequestsEnabled ? { merge_requests: api("/merge_requests") } : {}),
    repo_branches: api("/repository/branches"),
    labels: api("/labels"),
    events: api("/events"),
    members: api("/members"),
  };
}

/**
 * API::Entities::Project (lib/api/entities/project.rb), limited to the settings Edgeforge stores;
 * settings that are not built yet are left out rather than shown with values nobody can change.
 */
const ACCESS_LEVEL = z.enum(["disabled", "private", "enabled", "public"]);
export const Project = BasicProjectDetails.extend({
  _links: ProjectLinks,
  empty_repo: z.boolean(),
  archived: z.boolean(),
  visibility: z.enum(["private", "internal", "public"]),
  owner: UserBasic.optional(),
  container_expiration_policy: ContainerExpirationPolicy.optional(),
  issues_enabled: z.boolean(),
  merge_requests_enabled: z.boolean(),
  wiki_enabled: z.boolean(),
  jobs_enabled: z.boolean(),
  snippets_enabled: z.boolean(),
  issues_access_level: ACCESS_LEVEL,
  repository_access_level: ACCESS_LEVEL,
  merge_requests_access_level: ACCESS_LEVEL,
  wiki_access_level: ACCESS_LEVEL,
  builds_access_level: ACCESS_LEVEL,
  snippets_access_level: ACCESS_LEVEL,
  pages_access_level: ACCESS_LEVEL,
  shared_runners_enabled: z.boolean(),
  lfs_enabled: z.boolean(),
  container_registry_enabled: z.boolean(),
  container_registry_access_level: z.enum(["enabled", "disabled"]),
  container_registry_image_prefix: z.string(),
  creator_id: z.int().nullable(),
  import_status: z.string(),
  open_issues_count: z.int().optional(),
  public_jobs: z.boolean(),
  shared_with_groups: z.array(SharedGroupWithProject),
  request_access_enabled: z.boolean(),
  merge_method: z.string(),
  squash_option: z.string(),
  forked_from_project: BasicProjectDetails.optional(),
  mr_default_target_self: z.boolean().optional(),
  statistics: ProjectStatistics.optional(),
}).meta({ id: "Project" });
export function project(row: ProjectRow, ctx: PresentContext): z.output<typeof Project> {
  return {
    ...projectBasic(row, ctx),
    _links: links(row, ctx),
    empty_repo: row.emptyRepo,
    archived: row.archived,
    visibility: visibilityName(row.visibilityLevel),
    ...(row.namespace.type === "User" && row.owner ? { owner: projectOwner(row.owner, ctx) } : {}),
    // `if: project.container_expiration_policy`: every project has one (a trigger makes it).
    ...(row.containerExpirationPolicy ? { container_expiration_policy: containerExpirationPolicy(row.containerExpirationPolicy) } : {}),
    issues_enabled: row.issuesEnabled,
    merge_requests_enabled: row.mergeRequestsEnabled,
    wiki_enabled: row.wikiEnabled,
    jobs_enabled: row.jobsEnabled,
    snippets_enabled: row.snippetsEnabled,
    issues_access_level: accessLevelName(row.issuesEnabled),
    repository_access_level: "enabled",
    merge_requests_access_level: accessLevelName(row.mergeRequestsEnabled),
    wiki_access_level: accessLevelName(row.wikiEnabled),
    builds_access_level: accessLevelName(row.jobsEnabled),
    snippets_access_level: accessLevelName(row.snippetsEnabled),
    pages_access_level: row.pagesAccessLevel as z.output<typeof ACCESS_LEVEL>,
    shared_runners_enabled: row.sharedRunnersEnabled,
    lfs_enabled: projectLfsEnabled(row),
    container_registry_enabled: row.containerRegistryEnabled,
    container_registry_access_level: row.containerRegistryEnabled ? "enabled" : "disabled",
    container_registry_image_prefix: `${new URL(ctx.baseUrl).host}/${row.fullPath.toLowerCase()}`,
    creator_id: row.creatorId,
    import_status: "none",
    ...(row.issuesEnabled ? { open_issues_count: row.openIssuesCount } : {}),
    public_jobs: row.publicJobs,
    shared_with_groups: row.sharedWithGroups.map(sharedGroupWithProject),
    request_access_enabled: row.requestAccessEnabled,
    merge_method: row.mergeMethod,
    squash_option: row.squashOption,
    ...forkFields(row, ctx),
    // The route loads them only when asked (`statistics=true`) and allowed (`read_statistics`).
    ...(row.statistics ? { statistics: { ...row.statistics } } : {}),
  };
}

/**
 * `forked_from_project` (BasicProjectDetails) when the project is a fork whose source the caller may
 * read, and `mr_default_target_self` on forks (lib/api/entities/project.rb).
 */
function forkFields(row: ProjectRow, ctx: PresentContext): Pick<z.output<typeof Project>, "forked_from_project" | "mr_default_target_self"> {
  if (row.forkedFromProjectId === null || row.forkedFromProjectId === undefined) return {};
  const source = row.forkedFrom;
  return {
    ...(source && canReadProject(ctx.actor, source) ? { forked_from_project: projectBasic(source, ctx) } : {}),
    mr_default_target_self: row.mrDefaultTargetSelf,
  };
}

/** API::Entities::MemberAccess / GroupAccess. */
const MemberAccess = z.object({ access_level: z.int(), notification_level: z.int() }).meta({ id: "MemberAccess" });
function memberAccess(level: number | null): z.output<typeof MemberAccess> | null {
  // Differs from GitLab: notification settings are not stored per source yet; 3 is "global", the
  // level every new membership starts with.
  return level === null ? null : { access_level: level, notification_level: 3 };
}

/** API::Entities::ProjectWithAccess: `GET /projects` and `GET /projects/:id` for signed-in callers. */
export const ProjectWithAccess = Project.extend({
  permissions: z.object({ project_access: MemberAccess.nullable(), group_access: MemberAccess.nullable() }),
}).meta({ id: "ProjectWithAccess" });
export function projectWithAccess(row: ProjectWithPermissionsRow, ctx: PresentContext): z.output<typeof ProjectWithAccess> {
  return {
    ...project(row, ctx),
    permissions: {
      project_access: memberAccess(row.permissions.projectAccess),
      group_access: memberAccess(row.namespace.type === "Group" ? row.permissions.groupAccess : null),
    },
  };
}

/** API::Entities::ProjectGroupLink (`POST /projects/:id/share`). */
export const ProjectGroupLinkEntity = z
  .object({ id: z.int(), project_id: z.int(), group_id: z.int(), group_access: z.int(), expires_at: z.string().nullable() })
  .meta({ id: "ProjectGroupLink" });
export function projectGroupLink(link: ProjectGroupLink, _ctx?: PresentContext): z.output<typeof ProjectGroupLinkEntity> {
  return {
    id: link.id,
    project_id: link.projectId,
    group_id: link.groupId,
    group_access: link.groupAccess,
    expires_at: isoDate(link.expiresAt),
  };
}

/** The columns `publicGroupDetails` reads. */
export type PublicGroupRow = Pick<Namespace, "id" | "name" | "fullPath" | "fullName" | "avatarUrl">;

/** API::Entities::PublicGroupDetails (BasicGroupDetails + avatar_url, full_name, full_path): `GET /projects/:id/groups`. */
export const PublicGroupDetails = z
  .object({ id: z.int(), web_url: z.string(), name: z.string(), avatar_url: z.string().nullable(), full_name: z.string(), full_path: z.string() })
  .meta({ id: "PublicGroupDetails" });
export function publicGroupDetails(group: PublicGroupRow, ctx: PresentContext): z.output<typeof PublicGroupDetails> {
  return {
    id: group.id,
    web_url: webUrl(ctx, `groups/${group.fullPath}`),
    name: group.name,
    // `group.avatar_url(only_path: false)`: stored paths become absolute URLs.
    avatar_url: group.avatarUrl ? (group.avatarUrl.startsWith("/") ? webUrl(ctx, group.avatarUrl) : group.avatarUrl) : null,
    full_name: group.fullName,
    full_path: group.fullPath,
  };
}

/** API::Entities::ProjectRepositoryStorage (`GET /projects/:id/storage`). */
export const ProjectRepositoryStorage = z
  .object({ project_id: z.int(), disk_path: z.string(), created_at: z.string().nullable(), repository_storage: z.string() })
  .meta({ id: "ProjectRepositoryStorage" });
export function projectRepositoryStorage(
  row: { id: number; diskPath: string; createdAt: Date | string },
  _ctx?: PresentContext,
): z.output<typeof ProjectRepositoryStorage> {
  return {
    project_id: row.id,
    disk_path: row.diskPath,
    created_at: isoTime(row.createdAt),
    repository_storage: "default",
  };
}

export type StarrerRow = { starredSince: Date | string; user: User };

/** API::Entities::UserStarsProject (lib/api/entities/user_stars_project.rb). */
export const UserStarsProject = z.object({ starred_since: z.string().nullable(), user: UserBasic }).meta({ id: "UserStarsProject" });
export function userStarsProject(row: StarrerRow, ctx: PresentContext): z.output<typeof UserStarsProject> {
  return {
    starred_since: isoTime(row.starredSince),
    user: userBasic(row.user, ctx),
  };
}
