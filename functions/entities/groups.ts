import * as z from "zod";
import type { GroupGroupLink, Namespace } from "../../db/schema";
import { visibilityName } from "../kernel/access";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";
import { Project, project, SharedGroupFields, sharedGroupFields, type ProjectRow } from "./projects";
import { CustomAttribute } from "./users";

/** `{key, value}` of group_custom_attributes (API::Entities::CustomAttribute). */
export type { CustomAttribute };

/** The sizes of `Namespace.with_statistics` (app/models/namespace.rb), in bytes. */
export type GroupStatistics = {
  storageSize: number;
  repositorySize: number;
  wikiSize: number;
  lfsObjectsSize: number;
  jobArtifactsSize: number;
  pipelineArtifactsSize: number;
  packagesSize: number;
  snippetsSize: number;
  uploadsSize: number;
};

/**
 * A group as lists and lookups load it: the `namespaces` row (type 'Group'), plus what the caller asked
 * for and may see. A plain Namespace row is a valid GroupRow (other domains embed groups that way).
 * `customAttributes`: present (maybe empty) only for admins asking `with_custom_attributes`;
 * `statistics`: present only for admins asking `statistics`.
 */
export type GroupRow = Namespace & {
  customAttributes?: CustomAttribute[] | null;
  statistics?: GroupStatistics | null;
};

/** Gitlab::Access::PROJECT_CREATION_STRING_OPTIONS (lib/gitlab/access.rb). */
export const PROJECT_CREATION_LEVELS = { noone: 0, maintainer: 1, developer: 2 } as const;
/** Gitlab::Access::SUBGROUP_CREATION_STRING_OPTIONS. */
export const SUBGROUP_CREATION_LEVELS = { owner: 0, maintainer: 1 } as const;

export function projectCreationLevelName(level: number): string | null {
  const found = Object.entries(PROJECT_CREATION_LEVELS).find(([, value]) => value === level);
  return found ? found[0] : null;
}

export function subgroupCreationLevelName(level: number): string | null {
  const found = Object.entries(SUBGROUP_CREATION_LEVELS).find(([, value]) => value === level);
  return found ? found[0] : null;
}

const GroupStatisticsSchema = z.object({
  storage_size: z.number(),
  repository_size: z.number(),
  wiki_size: z.number(),
  lfs_objects_size: z.number(),
  job_artifacts_size: z.number(),
  pipeline_artifacts_size: z.number(),
  packages_size: z.number(),
  snippets_size: z.number(),
  uploads_size: z.number(),
});

/** `group_url(group)` (Gitlab::UrlBuilder): `<base>/groups/<full_path>`. */
export function groupWebUrl(group: Pick<Namespace, "fullPath">, ctx: PresentContext): string {
  return webUrl(ctx, `groups/${group.fullPath}`);
}

/** `group.avatar_url(only_path: false)`: uploads are stored as paths, shown as absolute URLs. */
function groupAvatarUrl(group: Pick<Namespace, "avatarUrl">, ctx: PresentContext): string | null {
  if (!group.avatarUrl) return null;
  return group.avatarUrl.startsWith("/") ? webUrl(ctx, group.avatarUrl) : group.avatarUrl;
}

/** API::Entities::BasicGroupDetails (lib/api/entities/basic_group_details.rb). */
export const BasicGroupDetails = z.object({ id: z.int(), web_url: z.string(), name: z.string() }).meta({ id: "BasicGroupDetails" });
export function groupBasic(group: Namespace, ctx: PresentContext): z.output<typeof BasicGroupDetails> {
  return {
    id: group.id,
    web_url: groupWebUrl(group, ctx),
    name: group.name,
  };
}

/**
 * API::Entities::Group (lib/api/entities/group.rb) with the spec's `file_template_project_id`.
 * Differs from GitLab: EE-only fields the spec does not list (`ldap_cn`, `ldap_access`,
 * `marked_for_deletion_on`, `wiki_access_level`) are not exposed: none of those features exists here.
 * `file_template_project_id` is always present (the spec lists it); GitLab omits it unless the caller
 * can read the template project, and nothing here sets it yet, so it is null.
 */
export const Group = BasicGroupDetails.extend({
  path: z.string(),
  description: z.string().nullable(),
  visibility: z.enum(["private", "internal", "public"]),
  share_with_group_lock: z.boolean(),
  require_two_factor_authentication: z.boolean(),
  two_factor_grace_period: z.int(),
  project_creation_level: z.string().nullable(),
  auto_devops_enabled: z.boolean().nullable(),
  subgroup_creation_level: z.string().nullable(),
  emails_disabled: z.boolean().nullable(),
  mentions_disabled: z.boolean().nullable(),
  lfs_enabled: z.boolean(),
  default_branch_protection: z.int(),
  avatar_url: z.string().nullable(),
  request_access_enabled: z.boolean(),
  full_name: z.string(),
  full_path: z.string(),
  created_at: z.string().nullable(),
  parent_id: z.int().nullable(),
  file_template_project_id: z.int().nullable(),
  custom_attributes: z.array(CustomAttribute).optional(),
  statistics: GroupStatisticsSchema.optional(),
}).meta({ id: "Group" });
export function group(row: GroupRow, ctx: PresentContext): z.output<typeof Group> {
  return {
    ...groupBasic(row, ctx),
    path: row.path,
    description: row.description,
    visibility: visibilityName(row.visibilityLevel),
    share_with_group_lock: row.shareWithGroupLock,
    require_two_factor_authentication: row.requireTwoFactorAuthentication,
    two_factor_grace_period: row.twoFactorGracePeriod,
    project_creation_level: projectCreationLevelName(row.projectCreationLevel),
    auto_devops_enabled: row.autoDevopsEnabled,
    subgroup_creation_level: subgroupCreationLevelName(row.subgroupCreationLevel),
    emails_disabled: row.emailsDisabled,
    mentions_disabled: row.mentionsDisabled,
    lfs_enabled: row.lfsEnabled,
    default_branch_protection: row.defaultBranchProtection,
    avatar_url: groupAvatarUrl(row, ctx),
    request_access_enabled: row.requestAccessEnabled,
    full_name: row.fullName,
    full_path: row.fullPath,
    created_at: isoTime(row.createdAt),
    parent_id: row.parentId,
    file_template_project_id: row.fileTemplateProjectId,
    ...(row.customAttributes ? { custom_attributes: row.customAttributes.map(customAttribute) } : {}),
    ...(row.statistics ? { statistics: groupStatistics(row.statistics) } : {}),
  };
}

/** API::Entities::CustomAttribute. */
function customAttribute(attribute: CustomAttribute): CustomAttribute {
  return { key: attribute.key, value: attribute.value };
}

/** The `statistics` block of API::Entities::Group (admins, `statistics=true`). */
function groupStatistics(stats: GroupStatistics): z.output<typeof GroupStatisticsSchema> {
  return {
    storage_size: stats.storageSize,
    repository_size: stats.repositorySize,
    wiki_size: stats.wikiSize,
    lfs_objects_size: stats.lfsObjectsSize,
    job_artifacts_size: stats.jobArtifactsSize,
    pipeline_artifacts_size: stats.pipelineArtifactsSize,
    packages_size: stats.packagesSize,
    snippets_size: stats.snippetsSize,
    uploads_size: stats.uploadsSize,
  };
}

/**
 * What GroupDetail adds to a group: its projects and the projects shared with it, preloaded, and
 * exposed only when the endpoint asks for them (`with_projects`).
 */
export type GroupDetailContext = PresentContext & {
  projects?: ProjectRow[];
  sharedProjects?: ProjectRow[];
  /** The group's shares with other groups that the caller may read (`shared_with_group_links_visible_to_user`). */
  sharedWithGroups?: SharedWithGroup[];
};

/** A group_group_links row naming this group as the shared one, with the group it is shared with. */
export type SharedWithGroup = GroupGroupLink & { sharedWithGroup: Namespace };

/** API::Entities::SharedGroupWithGroup (lib/api/entities/shared_group_with_group.rb). */
export const SharedGroupWithGroup = SharedGroupFields.meta({ id: "SharedGroupWithGroup" });
export function sharedGroupWithGroup(link: SharedWithGroup): z.output<typeof SharedGroupWithGroup> {
  return sharedGroupFields(link.sharedWithGroupId, link.sharedWithGroup, link);
}

/**
 * API::Entities::GroupDetail (lib/api/entities/group_detail.rb).
 * `shared_with_groups` lists the groups this group is shared with (group_group_links) that the caller
 * may read; endpoints that do not load them show an empty list.
 * Differs from GitLab: `runners_token` (owners and admins) is not exposed: groups have no runner
 * registration token yet. `prevent_sharing_groups_outside_hierarchy` (root groups) is not exposed
 * either: the setting does not exist here. EE's GroupDetail fields (`shared_runners_minutes_limit`,
 * `prevent_forking_outside_group`, …) belong to features that do not exist here.
 */
export const GroupDetail = Group.extend({
  shared_with_groups: z.array(SharedGroupWithGroup),
  projects: z.array(Project).optional(),
  shared_projects: z.array(Project).optional(),
}).meta({ id: "GroupDetail" });
export function groupDetail(row: GroupRow, ctx: GroupDetailContext): z.output<typeof GroupDetail> {
  return {
    ...group(row, ctx),
    shared_with_groups: (ctx.sharedWithGroups ?? []).map(sharedGroupWithGroup),
    ...(ctx.projects ? { projects: ctx.projects.map((row) => project(row, ctx)) } : {}),
    ...(ctx.sharedProjects ? { shared_projects: ctx.sharedProjects.map((row) => project(row, ctx)) } : {}),
  };
}
