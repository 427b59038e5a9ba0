import * as z from "zod";
import { authorize, allowed } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import { apiError, checkUnmodifiedSince, forbidden, notFound } from "../../kernel/errors";
import { findNamespace, findProject, type NamespaceWithAccess, authorizedProject } from "../../kernel/lookup";
import type { Ctx } from "../../kernel/env";
import { keysetUnavailable, pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, rawParams, readParams, validateParams } from "../../kernel/params";
import { baseUrl, present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { project, projectBasic, projectWithAccess, publicGroupDetails, ProjectWithAccess, BasicProjectDetails, Project, PublicGroupDetails } from "../../entities/projects";
import * as q from "../queries";
import { ListForks } from "../params";
import { columnOrder } from "./list";
import * as s from "../services";
import { transferProject } from "../../shared/project_transfer";

/** Forks and transfers (lib/api/projects.rb; app/services/projects/fork_service.rb, transfer_service.rb). */
export const forkRoutes = router();

async function reload(c: Ctx, projectId: number) {
  const row = await q.loadProjectRow(c.var.db(), c.var.actor, projectId);
  if (!row) throw notFound("Project");
  return row;
}

const ForkProject = z.object({
  namespace: p.string().optional(),
  namespace_id: p.int().optional(),
  namespace_path: p.string().optional(),
  path: p.string().optional(),
  name: p.string().optional(),
  description: p.string().optional(),
  visibility: p.oneOf("private", "internal", "public").optional(),
  mr_default_target_self: p.bool().optional(),
});

/**
 * POST /projects/:id/fork: 201 with the fork (Entities::Project). A project the caller may read but
 * not fork is `404 Not Found` (`not_found! unless can?(:fork_project)`).
 * Differs from GitLab: `branches` (fork only some branches, 15.8+) is not a parameter of 15.4.
 */
forkRoutes.post("/projects/:id/fork", { params: ForkProject, response: Project, errors: [409] }, async (c) => {
  const params = await readParams(c, ForkProject);
  const actor = requireUser(c);
  const source = await findProject(c, c.req.param("id")!);
  if (!allowed(actor, "fork_project", source)) throw notFound();
  const wanted = params.namespace_id ?? params.namespace_path ?? params.namespace;
  const namespace: NamespaceWithAccess | null = wanted !== undefined && wanted !== "" ? await findNamespace(c, String(wanted)) : null;
  const fork = await s.forkProject(
    c.var.db(),
    actor.user,
    source,
    {
      namespace,
      name: params.name,
      path: params.path,
      description: params.description,
      visibility: params.visibility,
      mrDefaultTargetSelf: params.mr_default_target_self,
    },
    baseUrl(c),
  );
  return present(c, await reload(c, fork.id), project, {}, 201);
});

/**
 * GET /projects/:id/forks (ForkProjectsFinder): the direct forks the caller may see.
 * Differs from GitLab: `pagination=keyset` answers 405 (contract P6), `order_by=similarity` orders by
 * created_at.
 */
forkRoutes.get("/projects/:id/forks", { params: ListForks, response: [z.union([ProjectWithAccess, BasicProjectDetails])] }, async (c) => {
  const params = await readParams(c, ListForks);
  const actor = c.var.actor;
  const source = await findProject(c, c.req.param("id")!);
  if (params.pagination === "keyset") throw keysetUnavailable();
  const page = pageOf(params);
  const { rows, total } = await q.listProjects(c.var.db(), actor, { kind: "all", forkedFrom: source.id }, params, columnOrder(params), page);
  paginate(c, page, total);
  return present(c, rows, params.simple || !actor ? projectBasic : projectWithAccess);
});

/**
 * POST /projects/:id/fork/:forked_from_id: marks an existing project as a fork (201 with it); `409
 * Project already forked` when it is one already.
 */
forkRoutes.post("/projects/:id/fork/:forked_from_id", { response: Project, errors: [409] }, async (c) => {
  const actor = requireUser(c);
  const target = await authorizedProject(c, "admin_project");
  const source = await findProject(c, c.req.param("forked_from_id")!);
  if (!allowed(actor, "fork_project", source)) throw forbidden();
  // ForkService#link_existing_project: a project never becomes a fork of itself.
  if (target.forkedFromProjectId !== null || source.id === target.id || !(await q.linkFork(c.var.db(), target.id, source.id)))
    throw apiError("Project already forked", 409);
  return present(c, await reload(c, target.id), project, {}, 201);
});

/** DELETE /projects/:id/fork (Projects::UnlinkForkService): 204, or 304 when the project is not a fork. */
forkRoutes.delete("/projects/:id/fork", async (c) => {
  const target = await findProject(c, c.req.param("id")!);
  authorize(c, "remove_fork_project", target);
  checkUnmodifiedSince(c.req.header("If-Unmodified-Since"), target.updatedAt);
  if (!(await q.unlinkFork(c.var.db(), target.id, requireUser(c).user.id))) return new Response(null, { status: 304 });
  return c.body(null, 204);
});

const TransferProject = z.object({ namespace: p.string().describe("The ID or path of the new namespace") });

/** PUT /projects/:id/transfer (Projects::TransferService): 200 with the moved project. */
forkRoutes.put("/projects/:id/transfer", { params: TransferProject, response: Project }, async (c) => {
  const params = validateParams(await rawParams(c), TransferProject);
  const actor = requireUser(c);
  const found = await authorizedProject(c, "change_namespace");
  const target = await findNamespace(c, params.namespace);
  await transferProject(c.var.db(), actor.user, found, target);
  return present(c, await reload(c, found.id), project);
});

const TransferLocations = z.object({ search: p.string().optional(), ...pageParams.shape });

/**
 * GET /projects/:id/transfer_locations (lib/api/projects.rb, 15.4): `change_namespace` on the project
 * or 403; the groups the caller may transfer it into, without its current group; PublicGroupDetails,
 * paginated. Differs from GitLab: groups reached through group shares (15.5, behind a flag) are not
 * offered; `with_custom_attributes` is not read.
 */
forkRoutes.get("/projects/:id/transfer_locations", { params: TransferLocations, response: [PublicGroupDetails] }, async (c) => {
  const params = await readParams(c, TransferLocations);
  const found = await authorizedProject(c, "change_namespace");
  const page = pageOf(params);
  const exceptGroupId = found.namespace.type === "Group" ? found.namespace.id : null;
  const { rows, total } = await q.projectTransferLocations(c.var.db(), c.var.actor!.user.id, exceptGroupId, params.search, page);
  paginate(c, page, total);
  return present(c, rows, publicGroupDetails);
});
