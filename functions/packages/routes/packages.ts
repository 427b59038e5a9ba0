import * as z from "zod";
import { allowed, authorize, type ProjectWithAccess } from "../../kernel/abilities";
import type { Ctx } from "../../kernel/env";
import { checkUnmodifiedSince, notFound, paramsError, recordNotFound } from "../../kernel/errors";
import { findGroup, findProject, authorizedProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { Access } from "../../kernel/access";
import { PackageEntity, packageEntity, packageFile, PackageFileEntity, packagePipeline, PackagePipelineEntity, type PackageRow } from "../../entities/packages";
import { ListGroupPackages, ListProjectPackages } from "../params";
import * as q from "../queries";
import { removeFiles } from "../services";

/**
 * The package registry's common API (lib/api/project_packages.rb, group_packages.rb,
 * package_files.rb).
 */
export const packagesRoutes = router();

function packageId(c: Ctx): number {
  const id = c.req.param("package_id")!;
  if (!/^\d+$/.test(id) || Number(id) > 2147483647) throw paramsError("package_id is invalid");
  return Number(id);
}

async function findPackage(c: Ctx, project: ProjectWithAccess, withVersions = true): Promise<PackageRow> {
  const found = await q.findPackage(c.var.db(), project.id, packageId(c), withVersions);
  if (!found) throw recordNotFound();
  return found;
}

const canDestroyIn = (c: Ctx, project: ProjectWithAccess) => () => allowed(c.var.actor, "destroy_package", project);

/** GET /projects/:id/packages (lib/api/project_packages.rb); anonymous callers see public projects' packages. */
packagesRoutes.get("/projects/:id/packages", { params: ListProjectPackages, response: [PackageEntity] }, async (c) => {
  const params = await readParams(c, ListProjectPackages);
  const project = await authorizedProject(c, "read_package");
  const page = pageOf(params);
  const list = await q.listProjectPackages(c.var.db(), project.id, params, page);
  paginate(c, page, list.total);
  return present(c, list.rows, packageEntity, { canDestroy: canDestroyIn(c, project) });
});

/**
 * GET /groups/:id/packages (lib/api/group_packages.rb): packages of the projects whose registry the
 * caller reads. `delete_api_path` for the projects where the caller is Developer or higher (from the
 * same rule as `destroy_package`).
 */
packagesRoutes.get("/groups/:id/packages", { params: ListGroupPackages, response: [PackageEntity] }, async (c) => {
  const params = await readParams(c, ListGroupPackages);
  const group = await findGroup(c, c.req.param("id")!);
  const page = pageOf(params);
  const list = await q.listGroupPackages(c.var.db(), group.id, params.exclude_subgroups, c.var.actor, params, page);
  paginate(c, page, list.total);
  const actor = c.var.actor;
  // Group membership gives at least that level in every project of the group.
  const canDestroy = () => !!actor && (actor.isAdmin || group.accessLevel >= Access.DEVELOPER);
  return present(c, list.rows, packageEntity, { canDestroy, group: true });
});

/** GET /projects/:id/packages/:package_id (lib/api/project_packages.rb): with `versions`. */
packagesRoutes.get("/projects/:id/packages/:package_id", { response: PackageEntity }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_package", project);
  return present(c, await findPackage(c, project), packageEntity, { canDestroy: canDestroyIn(c, project) });
});

/** GET /projects/:id/packages/:package_id/package_files (lib/api/package_files.rb) */
packagesRoutes.get("/projects/:id/packages/:package_id/package_files", { params: pageParams, response: [PackageFileEntity] }, async (c) => {
  const params = await readParams(c, pageParams);
  const project = await authorizedProject(c, "read_package");
  const pkg = await findPackage(c, project, false);
  const page = pageOf(params);
  const list = await q.listPackageFiles(c.var.db(), pkg.id, page);
  paginate(c, page, list.total);
  return present(c, list.rows, packageFile);
});

/**
 * GET /projects/:id/packages/:package_id/pipelines (lib/api/project_packages.rb): the pipelines whose
 * jobs published the package, newest first. Differs from GitLab (16.1+): offset pagination like every
 * other list here, where GitLab pages by cursor.
 */
packagesRoutes.get("/projects/:id/packages/:package_id/pipelines", { params: pageParams, response: [PackagePipelineEntity] }, async (c) => {
  const params = await readParams(c, pageParams);
  const project = await authorizedProject(c, "read_package");
  const pkg = await findPackage(c, project, false);
  const page = pageOf(params);
  const list = await q.listPackagePipelines(c.var.db(), pkg.id, page);
  paginate(c, page, list.total);
  return present(c, list.rows, packagePipeline);
});

/** DELETE /projects/:id/packages/:package_id (lib/api/project_packages.rb): 204; the files leave R2 too. */
packagesRoutes.delete("/projects/:id/packages/:package_id", async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_package", project);
  const pkg = await findPackage(c, project, false);
  authorize(c, "destroy_package", project);
  const keys = await q.deletePackage(c.var.db(), pkg.id);
  await removeFiles(c.env.BLOBS, keys);
  return c.body(null, 204);
});

/**
 * DELETE /projects/:id/packages/:package_id/package_files/:package_file_id (lib/api/package_files.rb):
 * 204. As GitLab: read access to the project's packages, then `destroy_package` (403, before the
 * package is looked up), then the package (404) and its file (404); `If-Unmodified-Since`
 * (`destroy_conditionally!`, 412). The row goes, then the R2 object; the package stays, even without
 * files. Differs from GitLab (15.x with `packages_installable_package_files`): the file is deleted at
 * once instead of being marked `pending_destruction` for a cleanup worker.
 */
packagesRoutes.delete("/projects/:id/packages/:package_id/package_files/:package_file_id", async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_package", project);
  // Both ids are Grape `Integer` parameters, validated before the endpoint's own authorization.
  packageId(c);
  const fileId = c.req.param("package_file_id")!;
  if (!/^\d+$/.test(fileId)) throw paramsError("package_file_id is invalid");
  authorize(c, "destroy_package", project);
  const pkg = await findPackage(c, project, false);
  const db = c.var.db();
  const file = Number(fileId) > 2147483647 ? null : await q.findPackageFile(db, pkg.id, Number(fileId));
  if (!file) throw notFound();
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), file.updatedAt);
  const key = await q.deletePackageFile(db, file.id);
  if (key) await removeFiles(c.env.BLOBS, [key]);
  return c.body(null, 204);
});
