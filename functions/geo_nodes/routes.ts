import * as z from "zod";
import { requireAdmin } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, isUniqueViolation, notFound, validation } from "../kernel/errors";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, rawParams, readParamsWithPath, validateParams } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { router } from "../kernel/router";
import { geoNode, GeoNodeEntity, geoNodeStatus, GeoNodeStatus, isCurrent, type GeoNodeStatusRow } from "../entities/geo_nodes";
import * as q from "./queries";
import { planGeoNode, repairValues, withEndingSlash, type GeoNodeParams } from "./services";

/**
 * Geo nodes (ee/lib/api/geo_nodes.rb): administrators only (401 anonymous, 403 others).
 * This instance's own node is the one named after its external URL (GitLab's default `geo_node_name`).
 * Not built: the Geo node token (`authenticate_by_gitlab_geo_node_token!`, a secondary calling its
 * primary) and `GET /geo_nodes/current/failures` (a secondary's project registry; this instance never
 * runs as a syncing secondary): both answer like unknown routes.
 */
export const geoNodesRoutes = router();

/** Geo nodes name the instance they run on by its external URL (GeoNode.current_node_name). */
const currentName = (c: Ctx) => withEndingSlash(baseUrl(c));

const NodeFields = {
  enabled: p.bool().optional(),
  internal_url: p.string().nullable().optional(),
  files_max_capacity: p.int().optional(),
  repos_max_capacity: p.int().optional(),
  verification_max_capacity: p.int().optional(),
  container_repositories_max_capacity: p.int().optional(),
  sync_object_storage: p.bool().optional(),
  selective_sync_type: p.string().nullable().optional(),
  selective_sync_shards: p.strings({ comma: true }).optional(),
  selective_sync_namespace_ids: p.ints({ comma: true }).optional(),
  minimum_reverification_interval: p.int().optional(),
};
const CreateNode = z.object({ primary: p.bool().optional(), name: p.string(), url: p.string(), ...NodeFields });
// The spec's PUT: `name` and `url` required, the other fields of create without their defaults.
// Differs from GitLab: GitLab 15.4 declares `name` and `url` optional and has no `primary` on PUT.
const UpdateNode = z.object({ id: p.id(), name: p.string(), url: p.string(), primary: p.bool().optional(), ...NodeFields });
const OneNode = z.object({ id: p.id() });

/**
 * Writes are for the primary: on a Geo secondary (this instance's node is not the primary) GitLab's
 * database is read-only and Gitlab::Middleware::ReadOnly refuses every write.
 */
async function requirePrimaryInstance(c: Ctx): Promise<void> {
  const own = await q.findGeoNodeByName(c.var.db(), [currentName(c), currentName(c).replace(/\/$/, "")]);
  if (own && !own.primary) throw apiError("You cannot perform write operations on a read-only instance", 403);
}

/** A concurrent write that won the name or the primary between the check and the write: the same 400. */
function raced(err: unknown): never {
  if (isUniqueViolation(err, "index_geo_nodes_on_lower_name")) throw validation({ name: ["has already been taken"] });
  if (isUniqueViolation(err, "index_geo_nodes_on_primary")) throw validation({ primary: ["node already exists"] });
  throw err;
}

/** `GeoNode.find(params[:id])` or `not_found!('GeoNode')`. */
async function findNode(c: Ctx, id: number) {
  const node = await q.findGeoNode(c.var.db(), id);
  if (!node) throw notFound("GeoNode");
  return node;
}

/** The status of this instance's own node, computed from what it stores (GeoNodeStatus.current_node_status). */
async function ownStatus(c: Ctx, node: q.GeoNode): Promise<GeoNodeStatusRow> {
  const db = c.var.db();
  const [figures, namespaces] = await Promise.all([q.instanceFigures(db), q.namespacesByIds(db, node.selectiveSyncNamespaceIds)]);
  return { node, figures, namespaces, checkedAt: new Date() };
}

/** POST /geo_nodes */
geoNodesRoutes.post("/geo_nodes", { params: CreateNode, response: GeoNodeEntity }, async (c) => {
  requireAdmin(c);
  const params = validateParams(await rawParams(c), CreateNode);
  await requirePrimaryInstance(c);
  const db = c.var.db();
  const values = await planGeoNode(db, null, params as GeoNodeParams, currentName(c));
  const created = await q.insertGeoNode(db, values).catch(raced);
  return present(c, created, geoNode, { currentName: currentName(c) }, 201);
});

/** GET /geo_nodes */
geoNodesRoutes.get("/geo_nodes", { params: pageParams, response: [GeoNodeEntity] }, async (c) => {
  requireAdmin(c);
  const page = pageOf(validateParams(await rawParams(c), pageParams));
  const list = await q.listGeoNodes(c.var.db(), page);
  paginate(c, page, list.total);
  return present(c, list.rows, geoNode, { currentName: currentName(c) });
});

/**
 * GET /geo_nodes/status: `GeoNodeStatus.all`. This instance reports its own node's status, computed on
 * each request; secondaries report theirs to their primary over the Geo API, which is not built, so
 * only this instance's own node (when it is registered) has one.
 */
geoNodesRoutes.get("/geo_nodes/status", { params: pageParams, response: [GeoNodeStatus] }, async (c) => {
  requireAdmin(c);
  const page = pageOf(validateParams(await rawParams(c), pageParams));
  const list = await q.listGeoNodes(c.var.db(), { page: 1, perPage: 100, offset: 0, limit: 100 });
  const own = list.rows.filter((node) => isCurrent(node, currentName(c)));
  const statuses = await Promise.all(own.map((node) => ownStatus(c, node)));
  const shown = statuses.slice(page.offset, page.offset + page.limit);
  paginate(c, page, statuses.length);
  return present(c, shown, geoNodeStatus);
});

/** GET /geo_nodes/:id */
geoNodesRoutes.get("/geo_nodes/:id", { params: OneNode, response: GeoNodeEntity }, async (c) => {
  requireAdmin(c);
  const { id } = validateParams({ id: c.req.param("id") }, OneNode);
  return present(c, await findNode(c, id), geoNode, { currentName: currentName(c) });
});

/** GET /geo_nodes/:id/status: the own node's live status; another node has none here. */
const NodeStatus = z.object({ id: p.id(), refresh: p.bool().optional() });
geoNodesRoutes.get("/geo_nodes/:id/status", { params: NodeStatus, response: GeoNodeStatus }, async (c) => {
  requireAdmin(c);
  const { id } = await readParamsWithPath(c, NodeStatus, [], []);
  const node = await findNode(c, id);
  if (!isCurrent(node, currentName(c))) throw notFound("Status for Geo node not found");
  return present(c, await ownStatus(c, node), geoNodeStatus);
});

/**
 * POST /geo_nodes/:id/repair: a secondary without its OAuth application gets one (GeoNode#repair);
 * anything else is left as it is. 200 with the node, as the spec says.
 * Differs from GitLab: GitLab 15.4 answers with the node's status entity here (null for a secondary that
 * never reported), the spec and GitLab's documentation with the node.
 */
geoNodesRoutes.post("/geo_nodes/:id/repair", { params: OneNode, response: GeoNodeEntity, status: 200 }, async (c) => {
  requireAdmin(c);
  const { id } = validateParams({ id: c.req.param("id") }, OneNode);
  const node = await findNode(c, id);
  await requirePrimaryInstance(c);
  const changes = repairValues(node);
  const repaired = changes ? ((await q.updateGeoNode(c.var.db(), node.id, changes)) ?? node) : node;
  return present(c, repaired, geoNode, { currentName: currentName(c) });
});

/** PUT /geo_nodes/:id: the fields sent, no defaults. */
geoNodesRoutes.put("/geo_nodes/:id", { params: UpdateNode, response: GeoNodeEntity }, async (c) => {
  requireAdmin(c);
  const params = await readParamsWithPath(c, UpdateNode, [], []);
  const node = await findNode(c, params.id);
  await requirePrimaryInstance(c);
  const db = c.var.db();
  const values = await planGeoNode(db, node, params as GeoNodeParams, currentName(c));
  const updated = (await q.updateGeoNode(db, node.id, values).catch(raced)) ?? node;
  return present(c, updated, geoNode, { currentName: currentName(c) });
});

/** DELETE /geo_nodes/:id: 204. */
geoNodesRoutes.delete("/geo_nodes/:id", { params: OneNode }, async (c) => {
  requireAdmin(c);
  const { id } = validateParams({ id: c.req.param("id") }, OneNode);
  const node = await findNode(c, id);
  await requirePrimaryInstance(c);
  await q.deleteGeoNode(c.var.db(), node.id);
  return c.body(null, 204);
});
