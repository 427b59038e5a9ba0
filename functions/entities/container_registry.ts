// The container registry's wire formats: the Docker Registry HTTP API v2 / OCI distribution bodies
// (errors, tag lists), the token endpoint's answer, and GitLab's REST entities
// (API::Entities::ContainerRegistry::Repository and Tag, lib/api/entities/container_registry.rb).

import * as z from "zod";
import type { ContainerRepository } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";

/** The distribution spec's error codes and their messages (docker/distribution registry/api/errcode). */
export const REGISTRY_ERRORS = {
  BLOB_UNKNOWN: "blob unknown to registry",
  BLOB_UPLOAD_INVALID: "blob upload invalid",
  BLOB_UPLOAD_UNKNOWN: "blob upload unknown to registry",
  DIGEST_INVALID: "provided digest did not match uploaded content",
  MANIFEST_BLOB_UNKNOWN: "blob unknown to registry",
  MANIFEST_INVALID: "manifest invalid",
  MANIFEST_UNKNOWN: "manifest unknown",
  NAME_INVALID: "invalid repository name",
  NAME_UNKNOWN: "repository name not known to registry",
  SIZE_INVALID: "provided length did not match content length",
  TAG_INVALID: "manifest tag did not match URI",
  UNAUTHORIZED: "authentication required",
  DENIED: "requested access to the resource is denied",
  UNSUPPORTED: "The operation is unsupported.",
  RANGE_INVALID: "invalid content range",
} as const;

export type RegistryErrorCode = keyof typeof REGISTRY_ERRORS;

/** `{"errors":[{"code","message","detail"}]}` */
export function registryErrors(code: RegistryErrorCode, detail?: unknown, message?: string) {
  return { errors: [{ code, message: message ?? REGISTRY_ERRORS[code], ...(detail === undefined ? {} : { detail }) }] };
}

/** `GET /v2/<name>/tags/list` */
export function tagList(name: string, tags: string[]) {
  return { name, tags };
}

/** `GET /v2/_catalog` */
export function catalog(repositories: string[]) {
  return { repositories };
}

/** `GET /jwt/auth` (JwtController#auth): the signed token. */
export function registryToken(token: string) {
  return { token };
}


/** A tag with the manifest it points at. */
export type RegistryTagRow = { name: string; digest: string; configDigest: string | null; totalSize: number; createdAt: Date };
export type RegistryRepositoryRow = ContainerRepository & { projectFullPath: string; tagsCount: number; size: number; tags: RegistryTagRow[] };

/** What the registry's entities need: its host (`registry.host_port`), and who may delete. */
export type RegistryContext = PresentContext & { registryHost: string; canAdmin?: (projectId: number) => boolean; tags?: boolean; tagsCount?: boolean; size?: boolean };

/** ContainerRepository#path: the project path and the name, lowercase. */
export const repositoryPath = (row: Pick<RegistryRepositoryRow, "projectFullPath" | "name">) => [row.projectFullPath, row.name].filter(Boolean).join("/").toLowerCase();

export const RegistryTag = z
  .object({ name: z.string(), path: z.string(), location: z.string() })
  .meta({ id: "ContainerRegistryTag" });

export const RegistryTagDetails = RegistryTag.extend({
  revision: z.string().nullable(),
  short_revision: z.string().nullable(),
  digest: z.string(),
  created_at: z.string().nullable(),
  total_size: z.number(),
}).meta({ id: "ContainerRegistryTagDetails" });

export const RegistryRepository = z
  .object({
    id: z.number(),
    name: z.string(),
    path: z.string(),
    project_id: z.number(),
    location: z.string(),
    created_at: z.string().nullable(),
    cleanup_policy_started_at: z.string().nullable(),
    status: z.string().nullable(),
    tags_count: z.number().optional(),
    tags: z.array(RegistryTag).optional(),
    delete_api_path: z.string().optional(),
    size: z.number().optional(),
  })
  .meta({ id: "ContainerRegistryRepository" });

/** API::Entities::ContainerRegistry::Tag */
export function registryTag(row: { repository: Pick<RegistryRepositoryRow, "projectFullPath" | "name">; tag: RegistryTagRow }, ctx: RegistryContext): z.output<typeof RegistryTag> {
  const path = repositoryPath(row.repository);
  return { name: row.tag.name, path: `${path}:${row.tag.name}`, location: `${ctx.registryHost}/${path}:${row.tag.name}` };
}

/**
 * API::Entities::ContainerRegistry::TagDetails. `revision` is the image config's digest (hex) and
 * `created_at` the time the manifest was pushed (GitLab reads the config's `created`).
 */
export function registryTagDetails(row: { repository: Pick<RegistryRepositoryRow, "projectFullPath" | "name">; tag: RegistryTagRow }, ctx: RegistryContext): z.output<typeof RegistryTagDetails> {
  const revision = row.tag.configDigest ? row.tag.configDigest.replace(/^sha256:/, "") : null;
  return {
    ...registryTag(row, ctx),
    revision,
    short_revision: revision ? revision.slice(0, 9) : null,
    digest: row.tag.digest,
    created_at: isoTime(row.tag.createdAt),
    total_size: Number(row.tag.totalSize),
  };
}

/** API::Entities::ContainerRegistry::Repository */
export function registryRepository(row: RegistryRepositoryRow, ctx: RegistryContext): z.output<typeof RegistryRepository> {
  const path = repositoryPath(row);
  return {
    id: row.id,
    name: row.name,
    path,
    project_id: row.projectId,
    location: `${ctx.registryHost}/${path}`,
    created_at: isoTime(row.createdAt),
    cleanup_policy_started_at: null,
    status: null,
    ...(ctx.tagsCount ? { tags_count: row.tagsCount } : {}),
    ...(ctx.tags ? { tags: row.tags.map((tag) => registryTag({ repository: row, tag }, ctx)) } : {}),
    ...(ctx.canAdmin?.(row.projectId) ? { delete_api_path: `${ctx.baseUrl}/api/v4/projects/${row.projectId}/registry/repositories/${row.id}` } : {}),
    ...(ctx.size ? { size: row.size } : {}),
  };
}
