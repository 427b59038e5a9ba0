// The container registry's wire formats: the Docker Registry HTTP API v2 / OCI distribution bodies
// (errors, tag lists), the token endpoint's answer, and GitLab's REST entities
// (API::Entities::ContainerRegistry::Repository and Tag, lib/api/entities/container_registry.rb).

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

/** `GET /jwt/auth` (JwtController#auth): the signed token. */
export function registryToken(token: string) {
  return { token };
}
