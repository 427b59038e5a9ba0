import * as z from "zod";
import { authorizeGroup } from "../../kernel/abilities";
import { visibilityLevel, VISIBILITY_NAMES, type VisibilityName } from "../../kernel/access";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { acceptedBody, apiError, checkUnmodifiedSince, forbidden, notFound, paramsError, validation } from "../../kernel/errors";
import { avatarErrors, storeAvatar } from "../../shared/uploads";
import { hookEvent } from "../../shared/webhooks";

/** Avatarable's errors on `avatar`, after the model's. */
function addAvatarErrors(errors: Record<string, string[]>, avatar: File | undefined): void {
  const found = avatar ? avatarErrors(avatar) : [];
  if (found.length) errors.avatar = found;
}
import { findGroup, authorizedGroup } from "../../kernel/lookup";
import { keysetLink, keysetUnavailable, pageOf, pageParams, paginate, refuseDeepOffset } from "../../kernel/pagination";
import { p, rawParams, readParams } from "../../kernel/params";
import { baseUrl, present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { group, groupDetail, PROJECT_CREATION_LEVELS, SUBGROUP_CREATION_LEVELS, type GroupRow, Group, GroupDetail } from "../../entities/groups";
import { namespaceStatistics } from "../../projects/public";
import { ListChildGroups, ListGroups, type ListParams } from "../params";
import * as q from "../queries";
import {
  canChangeShareLock,
  canCreateGroup,
  canCreateSubgroup,
  decodeCursor,
  encodeCursor,
  hasErrors,
  rubyHash,
  SHARE_LOCK_MESSAGE,
  validateGroup,
  type ModelErrors,
} from "../rules";
import { createGroup, destroyGroup, updateGroup } from "../services";

export const groupRoutes = router();

// ---------------------------------------------------------------------------------------------
// Lists: GET /groups, /groups/:id/subgroups, /groups/:id/descendant_groups

/**
 * `present_groups`: statistics and custom attributes for admins who ask, one more statement each:
 * `Namespace.with_statistics`, the sums of the statistics of each group's own projects
 * (projects/statistics_queries.ts `namespaceStatistics`, one aggregate statement for the page).
 */
async function presentGroups(c: Ctx, rows: GroupRow[], params: ListParams) {
  const isAdmin = !!c.var.actor?.isAdmin;
  const ids = rows.map((r) => r.id);
  const attributes = isAdmin && params.with_custom_attributes ? await q.customAttributesOf(c.var.db(), ids) : null;
  const statistics = isAdmin && params.statistics ? await namespaceStatistics(c.var.db(), ids) : null;
  const groups = rows.map((row) => ({ ...row, customAttributes: attributes?.get(row.id) ?? null, statistics: statistics?.get(row.id) ?? null }));
  return present(c, groups, group);
}

/** An offset page of the filtered groups with GitLab's headers. */
async function offsetList(c: Ctx, params: ListParams, source: q.GroupSource) {
  const page = pageOf(params);
  const { rows, total } = await q.listGroups(c.var.db(), c.var.actor, source, params, page);
  paginate(c, page, total);
  return presentGroups(c, rows, params);
}

/** GET /groups (lib/api/groups.rb) */
groupRoutes.get("/groups", { params: ListGroups, response: [Group] }, async (c) => {
  const params = await readParams(c, ListGroups);
  if (c.var.actor) return offsetList(c, params, {});

  // Anonymous callers get `paginate_with_strategies` (present_groups_with_pagination_strategies):
  // keyset on request, and offsets capped at 50,000 otherwise; signed-in callers get plain offset
  // pagination whatever they ask. As docs/compat.md says ("Pagination", P6):
  // GitLab 15.4's only keyset ordering for groups is name ascending (Group.supported_keyset_orderings).
  const raw = await rawParams(c);
  const page = pageOf(params);
  if (raw.pagination !== "keyset") {
    refuseDeepOffset(page, "Group");
    return offsetList(c, params, {});
  }
  if (params.order_by !== "name" || params.sort !== "asc") throw keysetUnavailable();
  const after = decodeCursor(raw.cursor);
  // Differs from GitLab: an unreadable cursor is a 400 here, a 500 there.
  if (after === "invalid") throw paramsError("cursor is invalid");
  const rows = await q.listGroupsAfter(c.var.db(), c.var.actor, params, after, page.perPage);
  const shown = rows.slice(0, page.perPage);
  const last = shown[shown.length - 1];
  keysetLink(c, rows.length > page.perPage ? { cursor: encodeCursor({ name: last.name, id: last.id }) } : null, page.perPage);
  return presentGroups(c, shown, params);
});

/** GET /groups/:id/subgroups (lib/api/groups.rb) */
groupRoutes.get("/groups/:id/subgroups", { params: ListChildGroups, response: [Group] }, async (c) => {
  const params = await readParams(c, ListChildGroups);
  const parent = await findGroup(c, c.req.param("id"));
  return offsetList(c, params, { parentId: parent.id });
});

/** GET /groups/:id/descendant_groups (lib/api/groups.rb) */
groupRoutes.get("/groups/:id/descendant_groups", { params: ListChildGroups, response: [Group] }, async (c) => {
  const params = await readParams(c, ListChildGroups);
  const ancestor = await findGroup(c, c.req.param("id"));
  return offsetList(c, params, { ancestorId: ancestor.id });
});

// ---------------------------------------------------------------------------------------------
// One group: POST, GET, PUT, DELETE

/**
 * An Integer parameter stored in an `integer` column. Differs from GitLab: a value beyond 32 bits is
 * `is invalid` here; GitLab fails when saving it.
 */
const int4 = () => p.int().refine((n) => Math.abs(n) <= 2147483647, { message: "is invalid" });

/** `optional_params_ce` (lib/api/helpers/groups_helpers.rb), in Grape's order. */
const settingParams = {
  description: p.string().optional(),
  visibility: p.oneOf(...VISIBILITY_NAMES).optional(),
  share_with_group_lock: p.bool().optional(),
  require_two_factor_authentication: p.bool().optional(),
  two_factor_grace_period: int4().optional(),
  project_creation_level: p.oneOf("noone", "maintainer", "developer").optional(),
  auto_devops_enabled: p.bool().nullable().optional(),
  subgroup_creation_level: p.oneOf("owner", "maintainer").optional(),
  emails_disabled: p.bool().optional(),
  mentions_disabled: p.bool().optional(),
  lfs_enabled: p.bool().optional(),
  request_access_enabled: p.bool().optional(),
  default_branch_protection: p.intOneOf(0, 1, 2, 3).optional(),
  avatar: p.file().optional(),
};
// Differs from GitLab: the EE parameters (`membership_lock`, `ldap_cn`,
// `ldap_access`, runner minutes, `file_template_project_id`, `prevent_forking_outside_group`) and
// `prevent_sharing_groups_outside_hierarchy` are not taken: those features do not exist here.

type Settings = Partial<z.output<z.ZodObject<typeof settingParams>>>;

/** The sent settings as column values (`project_creation_level_str` and friends mapped to levels). */
function settingChanges(params: Settings): q.GroupChanges {
  const changes: q.GroupChanges = {};
  if (params.description !== undefined) changes.description = params.description;
  if (params.visibility !== undefined) changes.visibilityLevel = visibilityLevel(params.visibility);
  if (params.share_with_group_lock !== undefined) changes.shareWithGroupLock = params.share_with_group_lock;
  if (params.require_two_factor_authentication !== undefined)
    changes.requireTwoFactorAuthentication = params.require_two_factor_authentication;
  if (params.two_factor_grace_period !== undefined) changes.twoFactorGracePeriod = params.two_factor_grace_period;
  if (params.project_creation_level !== undefined)
    changes.projectCreationLevel = PROJECT_CREATION_LEVELS[params.project_creation_level];
  if (params.auto_devops_enabled !== undefined) changes.autoDevopsEnabled = params.auto_devops_enabled;
  if (params.subgroup_creation_level !== undefined)
    changes.subgroupCreationLevel = SUBGROUP_CREATION_LEVELS[params.subgroup_creation_level];
  if (params.emails_disabled !== undefined) changes.emailsDisabled = params.emails_disabled;
  if (params.mentions_disabled !== undefined) changes.mentionsDisabled = params.mentions_disabled;
  if (params.lfs_enabled !== undefined) changes.lfsEnabled = params.lfs_enabled;
  if (params.request_access_enabled !== undefined) changes.requestAccessEnabled = params.request_access_enabled;
  if (params.default_branch_protection !== undefined) changes.defaultBranchProtection = params.default_branch_protection;
  return changes;
}

const CreateParams = z.object({
  name: p.string(),
  path: p.string(),
  parent_id: p.int().optional(),
  ...settingParams,
});

/** What a Subgroup Hook shows of a group (Gitlab::HookData::SubgroupBuilder). */
const subgroupOf = (g: { id: number; name: string; path: string; fullPath: string; createdAt: Date | string; updatedAt: Date | string }) => ({
  id: g.id,
  name: g.name,
  path: g.path,
  fullPath: g.fullPath,
  createdAt: new Date(g.createdAt).toISOString(),
  updatedAt: new Date(g.updatedAt).toISOString(),
});

/** POST /groups (lib/api/groups.rb, app/services/groups/create_service.rb) */
groupRoutes.post("/groups", { params: CreateParams, response: GroupDetail }, async (c) => {
  const params = await readParams(c, CreateParams);
  const actor = requireUser(c);
  const parent = params.parent_id !== undefined ? await findGroup(c, String(params.parent_id)) : null;
  if (parent ? !canCreateSubgroup(actor, parent) : !canCreateGroup(actor)) throw forbidden();

  const fullPath = parent ? `${parent.fullPath}/${params.path}` : params.path;
  const facts = await q.creationFacts(c.var.db(), fullPath);
  const changes = settingChanges(params);
  const level = changes.visibilityLevel ?? visibilityLevel((facts.defaultVisibility ?? "private") as VisibilityName);
  const failed = (errors: ModelErrors) => apiError(`Failed to save group ${rubyHash(errors)}`, 400);
  const errors = validateGroup({
    name: params.name,
    nameChanged: true,
    path: params.path,
    pathChanged: true,
    description: changes.description ?? "",
    ancestorCount: parent?.traversalIds.length ?? 0,
    visibilityLevel: level,
    parentVisibilityLevel: parent?.visibilityLevel ?? null,
    maxChildVisibility: null,
    maxProjectVisibility: null,
    twoFactorGracePeriod: changes.twoFactorGracePeriod ?? 0,
    pathTaken: facts.taken,
  });
  addAvatarErrors(errors, params.avatar);
  if (hasErrors(errors)) throw failed(errors);

  const created = await createGroup(
    c.var.db(),
    facts.nextId,
    parent?.traversalIds ?? [],
    {
      ...changes,
      name: params.name,
      path: params.path,
      fullPath,
      fullName: parent ? `${parent.fullName} / ${params.name}` : params.name,
      parentId: parent?.id ?? null,
      visibilityLevel: level,
      // Namespace#sync_share_with_group_lock_with_parent: a locked parent locks its new subgroups.
      shareWithGroupLock: parent?.shareWithGroupLock || (changes.shareWithGroupLock ?? false),
    },
    actor.user.id,
  );
  if (!created) throw failed({ path: ["has already been taken"] });
  if (params.avatar) created.avatarUrl = await storeAvatar(c.var.db(), c.env.BLOBS, "group", created.id, params.avatar);
  // EE Group#post_create_hook: a new subgroup is a Subgroup Hook event of its parent's hooks.
  if (parent) await hookEvent(c.env, baseUrl(c), { kind: "subgroup", action: "create", parentId: parent.id, subgroup: subgroupOf(created) });
  // GitLab presents GroupDetail without `with_projects` here: no `projects` keys.
  return present(c, created, groupDetail, {}, 201);
});

const ShowParams = z.object({
  with_custom_attributes: p.bool().optional(),
  custom_attributes: p.hash().optional(),
  with_projects: p.bool().optional(),
});

/**
 * GroupDetail for GET, PUT, share and transfer: the shares the caller may read, custom attributes for
 * admins who ask, projects when `withProjects`.
 */
export async function presentDetail(c: Ctx, row: GroupRow, opts: { withProjects: boolean; withCustomAttributes: boolean }, status: 200 | 201 = 200) {
  const db = c.var.db();
  const attributes =
    opts.withCustomAttributes && c.var.actor?.isAdmin ? ((await q.customAttributesOf(db, [row.id])).get(row.id) ?? []) : null;
  const detail = { ...row, customAttributes: attributes };
  if (!opts.withProjects) {
    const sharedWithGroups = await q.sharedWithGroups(db, c.var.actor, row.id);
    return present(c, detail, groupDetail, { sharedWithGroups }, status);
  }
  // The projects' statements also load the group's shares (`shared_with_groups`).
  const loaded = await q.detailProjects(db, c.var.actor, row.id);
  return present(c, detail, groupDetail, loaded, status);
}

/** GET /groups/:id (lib/api/groups.rb) */
groupRoutes.get("/groups/:id", { params: ShowParams, response: GroupDetail }, async (c) => {
  const params = await readParams(c, ShowParams);
  const found = await findGroup(c, c.req.param("id"));
  return presentDetail(c, found, {
    withProjects: params.with_projects ?? true,
    withCustomAttributes: params.with_custom_attributes ?? false,
  });
});

const UpdateParams = z.object({
  name: p.string().optional(),
  path: p.string().optional(),
  ...settingParams,
});

/** PUT /groups/:id (lib/api/groups.rb, app/services/groups/update_service.rb) */
groupRoutes.put("/groups/:id", { params: UpdateParams, response: GroupDetail }, async (c) => {
  const params = await readParams(c, UpdateParams);
  const actor = requireUser(c);
  const found = await authorizedGroup(c, "admin_group");

  const changes = settingChanges(params);
  const name = params.name ?? found.name;
  const path = params.path ?? found.path;
  const nameChanged = name !== found.name;
  const pathChanged = path !== found.path;
  const visibilityChanged = changes.visibilityLevel !== undefined && changes.visibilityLevel !== found.visibilityLevel;
  const lockChanged = changes.shareWithGroupLock !== undefined && changes.shareWithGroupLock !== found.shareWithGroupLock;
  const rename: q.Rename | null =
    nameChanged || pathChanged
      ? {
          oldFullPath: found.fullPath,
          newFullPath: found.fullPath.slice(0, found.fullPath.length - found.path.length) + path,
          oldFullName: found.fullName,
          newFullName: found.fullName.slice(0, found.fullName.length - found.name.length) + name,
        }
      : null;

  const facts =
    pathChanged || visibilityChanged || (lockChanged && found.parentId !== null)
      ? await q.updateFacts(c.var.db(), found, pathChanged ? rename!.newFullPath : null, actor.user.id)
      : null;
  // UpdateService#valid_share_with_group_lock_change? answers before the model validates.
  if (lockChanged && !canChangeShareLock(actor, facts?.parent ?? null))
    throw validation({ share_with_group_lock: [SHARE_LOCK_MESSAGE] });
  const errors = validateGroup({
    name,
    nameChanged,
    path,
    pathChanged,
    description: changes.description ?? found.description,
    ancestorCount: found.traversalIds.length - 1,
    visibilityLevel: changes.visibilityLevel ?? found.visibilityLevel,
    parentVisibilityLevel: visibilityChanged ? (facts?.parent?.visibilityLevel ?? null) : null,
    maxChildVisibility: visibilityChanged ? (facts?.maxChildVisibility ?? null) : null,
    maxProjectVisibility: visibilityChanged ? (facts?.maxProjectVisibility ?? null) : null,
    twoFactorGracePeriod: changes.twoFactorGracePeriod ?? found.twoFactorGracePeriod,
    pathTaken: facts?.pathTaken ?? false,
  });
  addAvatarErrors(errors, params.avatar);
  if (hasErrors(errors)) throw validation(errors);

  if (nameChanged) changes.name = name;
  if (pathChanged) changes.path = path;
  if (rename) Object.assign(changes, { fullPath: rename.newFullPath, fullName: rename.newFullName });
  let updated: GroupRow = found;
  if (Object.keys(changes).length > 0) {
    const row = await updateGroup(c.var.db(), found.id, changes, rename, lockChanged && changes.shareWithGroupLock === true);
    if (!row) throw validation({ path: ["has already been taken"] });
    updated = row;
  }
  if (params.avatar) updated = { ...updated, avatarUrl: await storeAvatar(c.var.db(), c.env.BLOBS, "group", found.id, params.avatar) };
  return presentDetail(c, updated, { withProjects: true, withCustomAttributes: false });
});

/**
 * GET /groups/:id/avatar (lib/api/group_avatar.rb, GitLab 14.0): the uploaded avatar as an attachment;
 * `404 Avatar Not Found` without one (a URL set by other means is not an upload either).
 */
groupRoutes.get("/groups/:id/avatar", async (c) => {
  const found = await findGroup(c, c.req.param("id"));
  const path = found.avatarUrl?.startsWith("/uploads/-/system/group/avatar/") ? found.avatarUrl : null;
  const object = path ? await c.env.BLOBS.get(path.slice(1)) : null;
  if (!object) throw notFound("Avatar");
  const fileName = path!.split("/").pop()!;
  c.header("Content-Type", object.httpMetadata?.contentType ?? "application/octet-stream");
  c.header("Content-Length", String(object.size));
  c.header("Content-Disposition", `attachment; filename="${fileName.replace(/"/g, "")}"`);
  return c.body(object.body);
});

/** DELETE /groups/:id (lib/api/groups.rb): 202 `{"message":"202 Accepted"}` */
groupRoutes.delete("/groups/:id", async (c) => {
  const found = await findGroup(c, c.req.param("id"));
  authorizeGroup(c, "remove_group", found);
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.updatedAt);
  await destroyGroup(c.var.db(), found.id);
  // EE Group#post_destroy_hook. Differs from GitLab: the deleted group's descendants send no
  // subgroup_destroy of their own (GitLab destroys them one by one, each telling its parent's hooks).
  if (found.parentId !== null) await hookEvent(c.env, baseUrl(c), { kind: "subgroup", action: "destroy", parentId: found.parentId, subgroup: subgroupOf(found) });
  return c.json(acceptedBody, 202);
});
