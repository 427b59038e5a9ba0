import * as z from "zod";
import type { GeoNode, Namespace } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";
import { NamespaceBasic, namespaceBasic } from "./projects";
import { GITLAB_VERSION, REVISION } from "./version";

/**
 * What this instance stores, as a Geo primary's status reports it (GeoNodeStatus#load_primary_data and
 * the replicators' `*_count` / `*_checksummed_count`), which geo_nodes/queries reads in one statement. A checksummed count counts the
 * rows that carry a checksum: package files with their SHA-256, repositories with refs (a repository's
 * checksum is made of its refs' object ids, which git content-addresses). `null` where this instance
 * keeps no checksum of the kind.
 */
export type InstanceFigures = {
  repositories: number;
  repositoriesChecksummed: number;
  attachments: number;
  attachmentsChecksummed: number;
  lfsObjects: number;
  jobArtifacts: number;
  packageFiles: number;
  packageFilesChecksummed: number;
  mergeRequestDiffs: number;
};

/** GeoNode#internal_url: the stored internal URL, else the URL. */
export const internalUrl = (node: GeoNode) => node.internalUrl ?? node.url;

export type GeoNodeContext = PresentContext & { currentName: string };

/** GeoNode.current?(node): the node whose name is this instance's node name (its external URL). */
export const isCurrent = (node: { name: string }, currentName: string) => node.name === currentName || `${node.name.replace(/\/+$/, "")}/` === currentName;

/** EE::API::Entities::GeoNode (ee/lib/ee/api/entities/geo_node.rb, 15.4). */
export const GeoNodeEntity = z
  .object({
    id: z.int(),
    name: z.string(),
    url: z.string(),
    internal_url: z.string(),
    primary: z.boolean(),
    enabled: z.boolean(),
    files_max_capacity: z.int(),
    repos_max_capacity: z.int(),
    verification_max_capacity: z.int(),
    container_repositories_max_capacity: z.int(),
    selective_sync_type: z.string().nullable(),
    selective_sync_shards: z.array(z.string()),
    selective_sync_namespace_ids: z.array(z.int()),
    minimum_reverification_interval: z.int(),
    sync_object_storage: z.boolean().optional(),
    clone_protocol: z.string(),
    web_edit_url: z.string(),
    web_geo_projects_url: z.string().optional(),
    _links: z.object({ self: z.string(), status: z.string(), repair: z.string() }),
    current: z.boolean(),
  })
  .meta({ id: "GeoNode" });
export function geoNode(node: GeoNode, ctx: GeoNodeContext): z.output<typeof GeoNodeEntity> {
  const api = `${ctx.baseUrl}/api/v4/geo_nodes/${node.id}`;
  return {
    id: node.id,
    name: node.name,
    url: node.url,
    internal_url: internalUrl(node),
    primary: node.primary,
    enabled: node.enabled,
    files_max_capacity: node.filesMaxCapacity,
    repos_max_capacity: node.reposMaxCapacity,
    verification_max_capacity: node.verificationMaxCapacity,
    container_repositories_max_capacity: node.containerRepositoriesMaxCapacity,
    selective_sync_type: node.selectiveSyncType,
    selective_sync_shards: node.selectiveSyncShards,
    selective_sync_namespace_ids: node.selectiveSyncNamespaceIds,
    minimum_reverification_interval: node.minimumReverificationInterval,
    ...(node.primary ? {} : { sync_object_storage: node.syncObjectStorage }),
    // Retained by GitLab for backwards compatibility.
    clone_protocol: "http",
    web_edit_url: `${ctx.baseUrl}/admin/geo/sites/${node.id}/edit`,
    ...(node.primary ? {} : { web_geo_projects_url: `${node.url}admin/geo/replication/projects` }),
    _links: { self: api, status: `${api}/status`, repair: `${api}/repair` },
    current: isCurrent(node, ctx.currentName),
  };
}

/** What the status entity is made of: the node, what this instance stores, the selective-sync namespaces. */
export type GeoNodeStatusRow = { node: GeoNode; figures: InstanceFigures; namespaces: Namespace[]; checkedAt: Date };

/** ActionView's number_to_percentage(value, precision: 2). */
const percentage = (part: number | null, total: number | null) =>
  `${(total && part !== null ? (100 * part) / total : 0).toFixed(2)}%`;

/**
 * EE::API::Entities::GeoNodeStatus for this instance's own node, as a primary reports it: the `*_count`
 * and `*_checksummed_count` figures come from this instance's tables; the synced, failed and registry
 * counters are a secondary's and are null on a primary (as GitLab's are), their percentages "0.00%".
 * Attachments are uploads (checksummed: their SHA-256) and metric images (no checksum kept); an LFS
 * object's oid is the SHA-256 its upload was checked against, so every one is checksummed.
 * Differs from GitLab: this instance keeps no wikis, design repositories nor container repositories, so
 * their counts are null; job artifacts carry no checksum here, so their checksummed count is null; there is no Geo event log (`last_event_*` null) nor replication
 * slot; `storage_shards` is left out (one storage, Postgres).
 */
export const GeoNodeStatus = z
  .looseObject({
    geo_node_id: z.int(),
    healthy: z.boolean(),
    health: z.string(),
    health_status: z.string(),
    missing_oauth_application: z.boolean(),
    repositories_checksummed_in_percentage: z.string(),
    package_files_checksummed_in_percentage: z.string(),
    repository_verification_enabled: z.boolean(),
    last_successful_status_check_timestamp: z.int(),
    version: z.string(),
    revision: z.string(),
    selective_sync_type: z.string().nullable(),
    namespaces: z.array(NamespaceBasic),
    updated_at: z.string().nullable(),
    storage_shards_match: z.boolean(),
    _links: z.object({ self: z.string(), node: z.string() }),
  })
  .meta({ id: "GeoNodeStatus" });
/** The `<kind>_count`, `_synced_count`, … figures are the loose part of GeoNodeStatus's schema. */
export function geoNodeStatus(row: GeoNodeStatusRow, ctx: PresentContext): z.output<typeof GeoNodeStatus> {
  const { node, figures: f } = row;
  const kind = (name: string, count: number | null, checksummed: number | null) => ({
    [`${name}_count`]: count,
    [`${name}_checksum_total_count`]: count,
    [`${name}_checksummed_count`]: checksummed,
    [`${name}_checksum_failed_count`]: count === null || checksummed === null ? null : 0,
    [`${name}_synced_count`]: null,
    [`${name}_failed_count`]: null,
    [`${name}_registry_count`]: null,
    [`${name}_verification_total_count`]: null,
    [`${name}_verified_count`]: null,
    [`${name}_verification_failed_count`]: null,
    [`${name}_synced_in_percentage`]: percentage(null, count),
    [`${name}_verified_in_percentage`]: percentage(null, count),
  });
  const api = `${ctx.baseUrl}/api/v4/geo_nodes/${node.id}`;
  return {
    geo_node_id: node.id,
    healthy: true,
    health: "Healthy",
    health_status: "Healthy",
    missing_oauth_application: !node.primary && node.oauthApplicationUid === null,
    db_replication_lag_seconds: null,
    ...kind("attachments", f.attachments, f.attachmentsChecksummed),
    ...kind("lfs_objects", f.lfsObjects, f.lfsObjects),
    ...kind("job_artifacts", f.jobArtifacts, null),
    ...kind("container_repositories", null, null),
    ...kind("design_repositories", null, null),
    ...kind("repositories", f.repositories, f.repositoriesChecksummed),
    ...kind("wikis", null, null),
    ...kind("merge_request_diffs", f.mergeRequestDiffs, null),
    ...kind("package_files", f.packageFiles, f.packageFilesChecksummed),
    repositories_checked_count: null,
    repositories_checked_failed_count: null,
    repositories_checked_in_percentage: percentage(null, f.repositories),
    repositories_checksummed_in_percentage: percentage(f.repositoriesChecksummed, f.repositories),
    package_files_checksummed_in_percentage: percentage(f.packageFilesChecksummed, f.packageFiles),
    repository_verification_enabled: false,
    replication_slots_count: null,
    replication_slots_used_count: null,
    replication_slots_used_in_percentage: percentage(null, null),
    replication_slots_max_retained_wal_bytes: null,
    last_event_id: null,
    last_event_timestamp: null,
    cursor_last_event_id: null,
    cursor_last_event_timestamp: null,
    last_successful_status_check_timestamp: Math.floor(row.checkedAt.getTime() / 1000),
    version: GITLAB_VERSION,
    revision: REVISION,
    selective_sync_type: node.selectiveSyncType,
    namespaces: row.namespaces.map((ns) => namespaceBasic(ns, null, ctx)),
    updated_at: isoTime(row.checkedAt),
    storage_shards_match: true,
    _links: { self: `${api}/status`, node: api },
  };
}
