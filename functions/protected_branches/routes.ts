import { z } from "zod";
import { authorize, type ProjectWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { apiError, checkUnmodifiedSince, conflict, recordNotFound } from "../kernel/errors";
import { findProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { protectedBranch } from "./entities";
import * as q from "./queries";
import { ALLOWED_ACCESS_LEVELS, type ProtectionAction } from "../shared/protected_branches/rules";

/**
 * Protected branches (lib/api/protected_branches.rb, GitLab 15.4). Every endpoint needs `admin_project`
 * (maintainers and owners; ProtectedBranchPolicy). Names are branch names or wildcards (`*`).
 * Not built: per-user and per-group levels (`allowed_to_push` and friends, Premium).
 */
export const protectedBranchesRoutes = router();

const ListProtected = pageParams.extend({ search: p.string().optional() });

const level = () => p.intOneOf(...ALLOWED_ACCESS_LEVELS).optional();
const CreateProtected = z.object({
  name: p.string(),
  push_access_level: level(),
  merge_access_level: level(),
  unprotect_access_level: level(),
  allow_force_push: p.bool().optional(),
  code_owner_approval_required: p.bool().optional(),
});
const UpdateProtected = z.object({
  allow_force_push: p.bool().optional(),
  code_owner_approval_required: p.bool().optional(),
});

async function adminProject(c: Ctx): Promise<ProjectWithAccess> {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "admin_project", project);
  return project;
}

async function findProtection(c: Ctx, project: ProjectWithAccess) {
  const [found] = await q.listProtections(c.var.db(), project.id, c.req.param("name")!);
  if (!found) throw recordNotFound();
  return found;
}

/** GET /projects/:id/protected_branches */
protectedBranchesRoutes.get("/projects/:id/protected_branches", async (c) => {
  const project = await adminProject(c);
  const params = await readParams(c, ListProtected);
  const page = pageOf(params);
  let rows = await q.listProtections(c.var.db(), project.id);
  // ProtectedBranchesFinder: case-insensitive substring of the name.
  if (params.search) rows = rows.filter((r) => r.name.toLowerCase().includes(params.search!.toLowerCase()));
  paginate(c, page, rows.length);
  return present(c, rows.slice(page.offset, page.offset + page.limit), protectedBranch, {});
});

/** GET /projects/:id/protected_branches/:name */
protectedBranchesRoutes.get("/projects/:id/protected_branches/:name", async (c) => {
  const project = await adminProject(c);
  return present(c, await findProtection(c, project), protectedBranch, {});
});

/** POST /projects/:id/protected_branches (ProtectedBranches::CreateService) */
protectedBranchesRoutes.post("/projects/:id/protected_branches", async (c) => {
  const project = await adminProject(c);
  const params = await readParams(c, CreateProtected);
  if (params.name.trim() === "") throw apiError(["Name can't be blank"], 422);
  const levels: { action: ProtectionAction; accessLevel: number }[] = [
    { action: "push", accessLevel: params.push_access_level ?? 40 },
    { action: "merge", accessLevel: params.merge_access_level ?? 40 },
    { action: "unprotect", accessLevel: params.unprotect_access_level ?? 40 },
  ];
  const created = await q.insertProtection(c.var.db(), project.id, {
    name: params.name,
    allowForcePush: params.allow_force_push ?? false,
    codeOwnerApprovalRequired: params.code_owner_approval_required ?? false,
    levels,
  });
  if (!created) throw conflict(`Protected branch '${params.name}' already exists`);
  return present(c, created, protectedBranch, {}, 201);
});

/** PATCH /projects/:id/protected_branches/:name (allow_force_push, code_owner_approval_required) */
protectedBranchesRoutes.patch("/projects/:id/protected_branches/:name", async (c) => {
  const project = await adminProject(c);
  const params = await readParams(c, UpdateProtected);
  const found = await findProtection(c, project);
  const changes = { allowForcePush: params.allow_force_push, codeOwnerApprovalRequired: params.code_owner_approval_required };
  if (changes.allowForcePush === undefined && changes.codeOwnerApprovalRequired === undefined) return present(c, found, protectedBranch, {});
  await q.updateProtectionFlags(c.var.db(), found.id, changes);
  return present(c, { ...found, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)), updatedAt: new Date() }, protectedBranch, {});
});

/** DELETE /projects/:id/protected_branches/:name (`destroy_conditionally!`) */
protectedBranchesRoutes.delete("/projects/:id/protected_branches/:name", async (c) => {
  const project = await adminProject(c);
  const found = await findProtection(c, project);
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.updatedAt);
  if (!(await q.deleteProtection(c.var.db(), project.id, found.name))) throw recordNotFound();
  return c.body(null, 204);
});

