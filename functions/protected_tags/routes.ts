import * as z from "zod";
import type { ProjectWithAccess } from "../kernel/abilities";
import { Access } from "../kernel/access";
import type { Ctx } from "../kernel/env";
import { apiError, checkUnmodifiedSince, recordNotFound } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { protectedTag, ProtectedTag } from "../entities/protected_tags";
import { ALLOWED_ACCESS_LEVELS } from "../shared/protected_branches/rules";
import * as q from "./queries";

/**
 * Protected tags (lib/api/protected_tags.rb, GitLab 15.4; `allowed_to_create` is EE's). Every endpoint
 * needs `admin_project` (maintainers and owners). Names are tag names or wildcards (`*`). What they
 * protect is enforced by shared/protected_tags on tag creation and deletion through the API, on
 * releases, and on `git push`.
 */
export const protectedTagsRoutes = router();

const CreateProtectedTag = z.object({
  name: p.string(),
  create_access_level: p.intOneOf(...ALLOWED_ACCESS_LEVELS).optional(),
  allowed_to_create: p.hashes({ access_level: p.intOneOf(...ALLOWED_ACCESS_LEVELS).optional(), user_id: p.id().optional(), group_id: p.id().optional() }).optional(),
});

async function findProtectedTag(c: Ctx, project: ProjectWithAccess) {
  const [found] = await q.listProtectedTags(c.var.db(), project.id, c.req.param("name")!);
  if (!found) throw recordNotFound(); // find_by!
  return found;
}

/** GET /projects/:id/protected_tags */
protectedTagsRoutes.get("/projects/:id/protected_tags", { params: pageParams, response: [ProtectedTag] }, async (c) => {
  const project = await authorizedProject(c, "admin_project");
  const page = pageOf(await readParams(c, pageParams));
  const rows = await q.listProtectedTags(c.var.db(), project.id);
  paginate(c, page, rows.length);
  return present(c, rows.slice(page.offset, page.offset + page.limit), protectedTag, {});
});

/** GET /projects/:id/protected_tags/:name */
protectedTagsRoutes.get("/projects/:id/protected_tags/:name", { response: ProtectedTag }, async (c) => {
  const project = await authorizedProject(c, "admin_project");
  return present(c, await findProtectedTag(c, project), protectedTag, {});
});

/**
 * POST /projects/:id/protected_tags (ProtectedTags::CreateService). `create_access_level` (default
 * maintainers) is always one level; EE's `allowed_to_create` adds a role, a user (who must have access
 * to the project) or a group (that the project is shared with) each. A taken name is 422, not 409.
 */
protectedTagsRoutes.post("/projects/:id/protected_tags", { params: CreateProtectedTag, response: ProtectedTag, errors: [422] }, async (c) => {
  const project = await authorizedProject(c, "admin_project");
  const params = await readParams(c, CreateProtectedTag);
  const levels: q.NewLevel[] = [{ accessLevel: params.create_access_level ?? Access.MAINTAINER, userId: null, groupId: null }];
  for (const g of params.allowed_to_create ?? []) {
    const userId = g.user_id ?? null;
    const groupId = userId === null ? (g.group_id ?? null) : null;
    levels.push({ accessLevel: userId === null && groupId === null ? (g.access_level ?? Access.MAINTAINER) : (g.access_level ?? null), userId, groupId });
  }
  const errors: string[] = [];
  if (params.name.trim() === "") errors.push("Name can't be blank");
  const ok = await q.grantable(c.var.db(), project.id, levels.flatMap((l) => (l.userId === null ? [] : [l.userId])), levels.flatMap((l) => (l.groupId === null ? [] : [l.groupId])));
  for (const l of levels) {
    if (l.userId !== null && !ok.users.has(l.userId)) errors.push("Create access levels user is not a member of the project");
    if (l.groupId !== null && !ok.groups.has(l.groupId)) errors.push("Create access levels group does not have access to the project");
  }
  if (errors.length) throw apiError([...new Set(errors)], 422);
  if (!(await q.insertProtectedTag(c.var.db(), project.id, params.name, levels))) throw apiError(["Name has already been taken"], 422);
  const [created] = await q.listProtectedTags(c.var.db(), project.id, params.name);
  return present(c, created, protectedTag, {}, 201);
});

/** DELETE /projects/:id/protected_tags/:name (`destroy_conditionally!`) */
protectedTagsRoutes.delete("/projects/:id/protected_tags/:name", async (c) => {
  const project = await authorizedProject(c, "admin_project");
  const found = await findProtectedTag(c, project);
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.updatedAt);
  if (!(await q.deleteProtectedTag(c.var.db(), project.id, found.name))) throw recordNotFound();
  return c.body(null, 204);
});
