import * as z from "zod";

/** The GitLab release Edgeforge answers as (docs/compat.md, "Instance endpoints", B1). */
export const GITLAB_VERSION = "15.4.0-ee";
/** Differs from GitLab: a fixed revision of Edgeforge's API surface, not a git commit of GitLab. */
export const REVISION = "e4e4f0f0";

/** lib/api/version.rb */
export const Version = z.object({ version: z.string(), revision: z.string() }).meta({ id: "Version" });
export function version(): z.output<typeof Version> {
  return { version: GITLAB_VERSION, revision: REVISION };
}

/** lib/api/metadata.rb (15.2+); we run no Kubernetes agent server. */
export const Metadata = z
  .object({
    version: z.string(),
    revision: z.string(),
    kas: z.object({ enabled: z.boolean(), externalUrl: z.string().nullable(), version: z.string().nullable() }),
    enterprise: z.boolean(),
  })
  .meta({ id: "Metadata" });
export function metadata(): z.output<typeof Metadata> {
  return {
    version: GITLAB_VERSION,
    revision: REVISION,
    kas: { enabled: false, externalUrl: null, version: null },
    enterprise: true,
  };
}
