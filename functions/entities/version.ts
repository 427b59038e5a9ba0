/** The GitLab release Edgeforge answers as (GITLAB-COMPAT.md B1). */
export const GITLAB_VERSION = "15.4.0-ee";
/** Differs from GitLab: a fixed revision of Edgeforge's API surface, not a git commit of GitLab. */
export const REVISION = "e4e4f0f0";

/** lib/api/version.rb */
export function version() {
  return { version: GITLAB_VERSION, revision: REVISION };
}

/** lib/api/metadata.rb (15.2+); we run no Kubernetes agent server. */
export function metadata() {
  return {
    version: GITLAB_VERSION,
    revision: REVISION,
    kas: { enabled: false, externalUrl: null, version: null },
    enterprise: true,
  };
}
