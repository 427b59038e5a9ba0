import * as z from "zod";
import { type ProjectWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { apiError, checkUnmodifiedSince, conflict, recordNotFound } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { protectedBranch, type ProtectionAction, ProtectedBranch } from "../entities/protected_branches";
import * as q from "./queries";
import { ALLOWED_ACCESS_LEVELS } from "../shared/protected_branches/rules";
import { Access } from "../kernel/access";

/**
 * Protected branches (lib/api/protected_branches.rb, GitLab 15.4). Every endpoint needs `admin_project`
 * (maintainers and owners; ProtectedBranchPolicy). Names are branch names or wildcards (`*`).
 * Per-user and per-group levels (`allowed_to_push`, `allowed_to_merge`, `allowed_to_unprotect`) are EE's
 * (ee/lib/ee/api/protected_branches.rb, ProtectedRefs::AccessLevelParams).
 * Differs from GitLab: a user or group named twice for one action is not refused ("has already been taken").
 */
export const protectedBranchesRoutes = router();

const ListProtected = pageParams.extend({ search: p.string().optional() });

const level = () => p.intOneOf(...ALLOWED_ACCESS_LEVELS).optional();
/** One element of `allowed_to_*` (EE's `shared_params`): a role, a user or a group; `id` and `_destroy` on PATCH. */
const grantee = () =>
  p
    .hashes({ access_level: level(), user_id: p.id().optional(), group_id: p.id().optional(), id: p.id().optional(), _destroy: p.bool().optional() })
    .optional();
const CreateProtected = z.object({
  name: p.string(),
  push_access_level: level(),
  merge_access_level: level(),
  unprotect_access_level: level(),
  allow_force_push: p.bool().optional(),
  code_owner_approval_required: p.bool().optional(),
  allowed_to_push: grantee(),
  allowed_to_merge: grantee(),
  allowed_to_unprotect: grantee(),
});
const UpdateProtected = z.object({
  allow_force_push: p.bool().optional(),
  code_owner_approval_required: p.bool().optional(),
  allowed_to_push: grantee(),
  allowed_to_merge: grantee(),
  allowed_to_unprotect: grantee(),
});

type Grantee = { access_level?: number; user_id?: number; group_id?: number; id?: number; _destroy?: boolean };
const ACTIONS: ProtectionAction[] = ["push", "merge", "unprotect"];
const LABEL: Record<ProtectionAction, string> = { push: "Push access levels", merge: "Merge access levels", unprotect: "Unprotect access levels" };

/** A grantee as a level row: a user's or group's level keeps only the access level sent with it. */
const toLevel = (action: ProtectionAction, g: Grantee): q.NewLevel => {
  const userId = g.user_id ?? null;
  const groupId = userId === null ? (g.group_id ?? null) : null;
  return { action, accessLevel: userId === null && groupId === null ? (g.access_level ?? Access.MAINTAINER) : (g.access_level ?? null), userId, groupId };
};

/**
 * `validate_user_membership` / `validate_group_membership` of the levels to write: a user must have
 * access to the project, a group must have it shared (422 with the full messages, as the API renders
 * `errors.full_messages`).
 */
async function checkGrantees(c: Ctx, project: ProjectWithAccess, levels: q.NewLevel[]): Promise<void> {
  const userIds = [...new Set(levels.flatMap((l) => (l.userId === null ? [] : [l.userId])))];
  const groupIds = [...new Set(levels.flatMap((l) => (l.groupId === null ? [] : [l.groupId])))];
  const ok = await q.grantable(c.var.db(), project.id, userIds, groupIds);
  const errors: string[] = [];
  for (const l of levels) {
    if (l.userId !== null && !ok.users.has(l.userId)) errors.push(`${LABEL[l.action]} user is not a member of the project`);
    if (l.groupId !== null && !ok.groups.has(l.groupId)) errors.push(`${LABEL[l.action]} group does not have access to the project`);
  }
  if (errors.length) throw apiError([...new Set(errors)], 422);
}

async function findProtection(c: Ctx, project: ProjectWithAccess) {
  const [found] = await q.listProtections(c.var.db(), project.id, c.req.param("name")!);
  if (!found) throw recordNotFound();
  return found;
}

/** GET /projects/:id/protected_branches */
protectedBranchesRoutes.get("/projects/:id/protected_branches", { params: ListProtected, response: [ProtectedBranch] }, async (c) => {
  const project = await authorizedProject(c, "admin_project");
  const params = await readParams(c, ListProtected);
  const page = pageOf(params);
  let rows = await q.listProtections(c.var.db(), project.id);
  // ProtectedBranchesFinder: case-insensitive substring of the name.
  if (params.search) rows = rows.filter((r) => r.name.toLowerCase().includes(params.search!.toLowerCase()));
  paginate(c, page, rows.length);
  return present(c, rows.slice(page.offset, page.offset + page.limit), protectedBranch, {});
});

/** GET /projects/:id/protected_branches/:name */
protectedBranchesRoutes.get("/projects/:id/protected_branches/:name", { response: ProtectedBranch }, async (c) => {
  const project = await authorizedProject(c, "admin_project");
  return present(c, await findProtection(c, project), protectedBranch, {});
});

/** POST /projects/:id/protected_branches (ProtectedBranches::CreateService) */
protectedBranchesRoutes.post("/projects/:id/protected_branches", { params: CreateProtected, response: ProtectedBranch, errors: [409, 422] }, async (c) => {
  const project = await authorizedProject(c, "admin_project");
  const params = await readParams(c, CreateProtected);
  if (params.name.trim() === "") throw apiError(["Name can't be blank"], 422);
  // ProtectedRefs::AccessLevelParams: `<action>_access_level` (default 40 unless `allowed_to_<action>` is
  // sent) and then each of `allowed_to_<action>`.
  const levels: q.NewLevel[] = ACTIONS.flatMap((action) => {
    const role = params[`${action}_access_level`];
    const granted = (params[`allowed_to_${action}`] ?? []) as Grantee[];
    const own = role !== undefined || granted.length === 0 ? [toLevel(action, { access_level: role ?? Access.MAINTAINER })] : [];
    return [...own, ...granted.map((g) => toLevel(action, g))];
  });
  await checkGrantees(c, project, levels);
  const created = await q.insertProtection(c.var.db(), project.id, {
    name: params.name,
    allowForcePush: params.allow_force_push ?? false,
    codeOwnerApprovalRequired: params.code_owner_approval_required ?? false,
    levels,
  });
  if (!created) throw conflict(`Protected branch '${params.name}' already exists`);
  return present(c, created, protectedBranch, {}, 201);
});

/**
 * PATCH /projects/:id/protected_branches/:name (allow_force_push, code_owner_approval_required, and EE's
 * `allowed_to_*`: an element with `id` and `_destroy` removes that level, with `id` alone changes it,
 * without `id` adds one). Levels named by an `id` the protection does not have are ignored, as
 * nested attributes are.
 */
protectedBranchesRoutes.patch("/projects/:id/protected_branches/:name", { params: UpdateProtected, response: ProtectedBranch, errors: [422] }, async (c) => {
  const project = await authorizedProject(c, "admin_project");
  const params = await readParams(c, UpdateProtected);
  const found = await findProtection(c, project);
  const flags = { allowForcePush: params.allow_force_push, codeOwnerApprovalRequired: params.code_owner_approval_required };
  const changes: q.LevelChanges = { deletes: [], updates: [], inserts: [], flags: Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) };
  const own = new Map(found.levels.map((l) => [l.id, l]));
  for (const action of ACTIONS) {
    for (const g of (params[`allowed_to_${action}`] ?? []) as Grantee[]) {
      const existing = g.id === undefined ? undefined : own.get(g.id);
      if (g.id !== undefined && (!existing || existing.action !== action)) continue;
      if (existing && g._destroy) changes.deletes.push(existing.id);
      else if (existing) changes.updates.push({ id: existing.id, ...toLevel(action, { ...g, access_level: g.access_level ?? (g.user_id ?? g.group_id ? undefined : (existing.accessLevel ?? undefined)) }) });
      else if (!g._destroy) changes.inserts.push(toLevel(action, g));
    }
  }
  const written = [...changes.updates.map((u) => ({ action: own.get(u.id)!.action, ...u })), ...changes.inserts];
  await checkGrantees(c, project, written);
  if (changes.deletes.length || written.length || Object.keys(changes.flags).length) await q.updateProtection(c.var.db(), found.id, changes);
  const [updated] = await q.listProtections(c.var.db(), project.id, found.name);
  return present(c, updated, protectedBranch, {});
});

/** DELETE /projects/:id/protected_branches/:name (`destroy_conditionally!`) */
protectedBranchesRoutes.delete("/projects/:id/protected_branches/:name", async (c) => {
  const project = await authorizedProject(c, "admin_project");
  const found = await findProtection(c, project);
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.updatedAt);
  if (!(await q.deleteProtection(c.var.db(), project.id, found.name))) throw recordNotFound();
  return c.body(null, 204);
});

