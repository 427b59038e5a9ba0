import { recordNotFound, validation } from "../kernel/errors";
import type { Executor } from "../kernel/db";
import { isCurrent } from "../entities/geo_nodes";
import * as q from "./queries";
import type { GeoNode, GeoNodeValues } from "./queries";

/** The parameters of POST and PUT /geo_nodes (`namespace_ids` is `selective_sync_namespace_ids`). */
export type GeoNodeParams = {
  name?: string;
  url?: string;
  internal_url?: string | null;
  primary?: boolean;
  enabled?: boolean;
  files_max_capacity?: number;
  repos_max_capacity?: number;
  verification_max_capacity?: number;
  container_repositories_max_capacity?: number;
  sync_object_storage?: boolean;
  selective_sync_type?: string | null;
  selective_sync_shards?: string[];
  selective_sync_namespace_ids?: number[];
  minimum_reverification_interval?: number;
};

/** Geo::NodeNameSanitizer#name_with_slash: a URL with exactly one ending slash. */
export const withEndingSlash = (value: string) => `${value.trim().replace(/\/+$/, "")}/`;

/** AddressableUrlValidator with GitLab's defaults (localhost and local networks allowed): the message, or null. */
function urlError(value: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(value.trim());
  } catch {
    return "must be a valid URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "is blocked: Only allowed schemes are http, https";
  return null;
}

/** `random` bytes as hex, for the OAuth application a secondary gets (Doorkeeper's uid). */
const randomUid = () => [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");

/**
 * Geo::NodeCreateService / Geo::NodeUpdateService with GeoNode's validations (ee/app/models/geo_node.rb),
 * in its order: the columns to write, or 400 with GitLab's validation body. `existing` is null on create,
 * when the defaults apply. `currentName` is this instance's node name (its external URL).
 */
export async function planGeoNode(db: Executor, existing: GeoNode | null, params: GeoNodeParams, currentName: string): Promise<GeoNodeValues> {
  const base: GeoNodeValues = existing
    ? (({ id: _id, createdAt: _created, updatedAt: _updated, ...columns }) => columns)(existing)
    : {
        name: "",
        url: "",
        internalUrl: null,
        primary: false,
        enabled: true,
        filesMaxCapacity: 10,
        reposMaxCapacity: 25,
        verificationMaxCapacity: 100,
        containerRepositoriesMaxCapacity: 10,
        syncObjectStorage: false,
        selectiveSyncType: null,
        selectiveSyncShards: [],
        selectiveSyncNamespaceIds: [],
        minimumReverificationInterval: 7,
        oauthApplicationUid: null,
      };
  const next: GeoNodeValues = { ...base };
  // `strip_attributes! :name`.
  if (params.name !== undefined) next.name = params.name.trim();
  if (params.url !== undefined) next.url = params.url.trim() === "" ? "" : withEndingSlash(params.url);
  if (params.primary !== undefined) next.primary = params.primary;
  if (params.enabled !== undefined) next.enabled = params.enabled;
  if (params.files_max_capacity !== undefined) next.filesMaxCapacity = params.files_max_capacity;
  if (params.repos_max_capacity !== undefined) next.reposMaxCapacity = params.repos_max_capacity;
  if (params.verification_max_capacity !== undefined) next.verificationMaxCapacity = params.verification_max_capacity;
  if (params.container_repositories_max_capacity !== undefined) next.containerRepositoriesMaxCapacity = params.container_repositories_max_capacity;
  if (params.sync_object_storage !== undefined) next.syncObjectStorage = params.sync_object_storage;
  if (params.selective_sync_type !== undefined) next.selectiveSyncType = params.selective_sync_type === "" ? null : params.selective_sync_type;
  if (params.selective_sync_shards !== undefined) next.selectiveSyncShards = params.selective_sync_shards;
  if (params.selective_sync_namespace_ids !== undefined) next.selectiveSyncNamespaceIds = [...new Set(params.selective_sync_namespace_ids)];
  if (params.minimum_reverification_interval !== undefined) next.minimumReverificationInterval = params.minimum_reverification_interval;
  // GeoNode#internal_url=: null when blank or equal to the URL (it then reads as the URL).
  const internal = params.internal_url !== undefined ? params.internal_url : existing ? existing.internalUrl : null;
  next.internalUrl = internal === null || internal.trim() === "" || withEndingSlash(internal) === next.url ? null : withEndingSlash(internal);

  const found = await q.conflicts(db, next.name, existing?.id ?? null, next.selectiveSyncNamespaceIds ?? []);
  // `namespace_ids=` finds every namespace: an unknown id is ActiveRecord::RecordNotFound.
  if (params.selective_sync_namespace_ids !== undefined && found.missingNamespaces) throw recordNotFound();

  const errors: Record<string, string[]> = {};
  const add = (key: string, text: string) => (errors[key] ??= []).push(text);
  if (next.name === "") add("name", "can't be blank");
  else if (found.nameTaken) add("name", "has already been taken");
  if ([...next.name].length > 255) add("name", "is too long (maximum is 255 characters)");
  if (next.url === "") add("url", "can't be blank");
  else {
    const error = urlError(next.url);
    if (error) add("url", error);
  }
  if (next.internalUrl !== null) {
    const error = urlError(next.internalUrl);
    if (error) add("internal_url", error);
  }
  if (next.primary && found.primaryTaken) add("primary", "node already exists");
  if (next.primary && !next.enabled) add("enabled", "Geo primary node cannot be disabled");
  if (next.selectiveSyncType !== null && next.selectiveSyncType !== "namespaces" && next.selectiveSyncType !== "shards")
    add("selective_sync_type", "is not included in the list");
  for (const [key, value] of [
    ["repos_max_capacity", next.reposMaxCapacity],
    ["files_max_capacity", next.filesMaxCapacity],
    ["verification_max_capacity", next.verificationMaxCapacity],
    ["container_repositories_max_capacity", next.containerRepositoriesMaxCapacity],
  ] as const)
    if ((value ?? 0) < 0) add(key, "must be greater than or equal to 0");
  if ((next.minimumReverificationInterval ?? 7) < 1) add("minimum_reverification_interval", "must be greater than or equal to 1");
  // GeoNode#require_current_node_to_be_primary: "Prevent locking yourself out".
  if (!next.primary && isCurrent(next, currentName)) add("base", "Current node must be the primary node or you will be locking yourself out");
  if (Object.keys(errors).length > 0) throw validation(errors);

  // GeoNode#update_dependents_attributes: a secondary keeps (or gets) an OAuth application, a primary has none.
  next.oauthApplicationUid = next.primary ? null : (next.oauthApplicationUid ?? randomUid());
  return next;
}

/** GeoNode#repair (= save): a secondary that lost its OAuth application gets a new one. */
export function repairValues(node: GeoNode): Partial<GeoNodeValues> | null {
  if (node.primary || node.oauthApplicationUid !== null) return null;
  return { oauthApplicationUid: randomUid() };
}
