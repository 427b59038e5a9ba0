import { GroupDetail } from "../../entities/groups";
import * as z from "zod";
import { authorizeGroup } from "../../kernel/abilities";
import { requireAdmin, requireUser } from "../../kernel/auth";
import { apiError } from "../../kernel/errors";
import { findGroup, findProject, authorizedGroup } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, rawParams, readParams, readParamsWithPath } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { publicGroupDetails, PublicGroupDetails } from "../../entities/projects";
import { transferProject } from "../../shared/project_transfer";
import * as q from "../queries";
import { canCreateGroup, canCreateSubgroup } from "../rules";
import { transferGroup } from "../services";
import { presentDetail } from "./group";

/**
 * POST /groups/:id/transfer (lib/api/groups.rb, app/services/groups/transfer_service.rb). GitLab 15.4
 * has no `PUT /groups/:id/transfer` (the PUT is the project transfer).
 */
export const transferRoutes = router();

const TransferGroup = z.object({ group_id: p.int().optional() });

/** `Transfer failed: …` (TransferService::ERROR_MESSAGES), 400. */
const failed = (text: string) => apiError(`Transfer failed: ${text}`, 400);

/**
 * POST /groups/:id/transfer: under `group_id`, or to the top level without it; GroupDetail (without
 * projects), 201. The refusals in TransferService#ensure_allowed_transfer's order.
 * Deliberate difference from GitLab: a project (not only a group) at the new full path also refuses
 * the transfer with the same message (GitLab fails later on the route's uniqueness); the check for
 * registry images is not made (there is no container registry).
 */
transferRoutes.post("/groups/:id/transfer", { params: TransferGroup, response: GroupDetail }, async (c) => {
  const actor = requireUser(c);
  const params = await readParamsWithPath(c, TransferGroup);
  const group = await authorizedGroup(c, "admin_group");
  const parent = params.group_id !== undefined ? await findGroup(c, String(params.group_id)) : null;
  if (!parent && group.parentId === null) throw failed("Group is already a root group.");
  if (parent && parent.id === group.parentId) throw failed("Group is already associated to the parent group.");
  if (parent ? !canCreateSubgroup(actor, parent) : !canCreateGroup(actor)) throw failed("You don't have enough permissions.");
  const db = c.var.db();
  const newFullPath = parent ? `${parent.fullPath}/${group.path}` : group.path;
  const sameParentPath = "The parent group already has a subgroup or a project with the same path.";
  if (await q.transferPathTaken(db, newFullPath, group.id)) throw failed(sameParentPath);
  if (parent && parent.traversalIds.includes(group.id)) throw failed("Cannot transfer group to one of its subgroup.");
  // `group_with_npm_packages?`: npm package names are scoped by the root group.
  const differentRoot = (parent?.traversalIds[0] ?? null) !== group.traversalIds[0];
  if (differentRoot && (await q.subtreeHasNpmPackages(db, group.id))) throw failed("Group contains projects with NPM packages.");
  const moved = await transferGroup(db, group, { parent, userId: actor.user.id });
  if (!moved) throw failed(sameParentPath);
  return presentDetail(c, moved, { withProjects: false, withCustomAttributes: false }, 201);
});

/**
 * POST /groups/:id/projects/:project_id (lib/api/groups.rb, "Transfer a project to the group
 * namespace. Available only for admin."): Projects::TransferService into the group, as
 * `PUT /projects/:id/transfer` does it (same refusals, `Failed to transfer project {…}`, 400);
 * GroupDetail with its projects, 201. `:project_id` is the id or the full path, slashes allowed.
 */
transferRoutes.post("/groups/:id/projects/:project_id{.+}", { response: GroupDetail }, async (c) => {
  const actor = requireAdmin(c);
  await rawParams(c);
  const group = await findGroup(c, c.req.param("id"));
  const project = await findProject(c, c.req.param("project_id"));
  await transferProject(c.var.db(), actor.user, project, group);
  return presentDetail(c, group, { withProjects: true, withCustomAttributes: false }, 201);
});

const TransferLocations = z.object({ search: p.string().optional(), ...pageParams.shape });

/**
 * GET /groups/:id/transfer_locations (lib/api/groups.rb, GitLab 15.4): `admin_group` or 403; the
 * groups it may move under (Groups::AcceptingGroupTransfersFinder), paginated, PublicGroupDetails.
 * Differs from GitLab: groups shared with the caller's groups are not offered (15.5, behind a flag).
 */
transferRoutes.get("/groups/:id/transfer_locations", { params: TransferLocations, response: [PublicGroupDetails] }, async (c) => {
  const params = await readParams(c, TransferLocations);
  const group = await findGroup(c, c.req.param("id"));
  // A GET: anonymous callers reach `authorize!` (403 on a public group), not `authenticate!`.
  authorizeGroup(c, "admin_group", group);
  const page = pageOf(params);
  const { rows, total } = await q.transferLocations(c.var.db(), c.var.actor!.user.id, group, params.search, page);
  paginate(c, page, total);
  return present(c, rows, publicGroupDetails);
});
