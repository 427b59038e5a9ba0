import * as z from "zod";
import type { PagesDeployment, PagesDomain as PagesDomainModel } from "../../db/schema";
import { isoTime } from "../kernel/present";

/**
 * The Pages entities (lib/api/entities/pages_domain*.rb, GitLab 15.4; pages/project_settings.rb and
 * pages/deployment.rb of GitLab 16.8, where `GET /projects/:id/pages` appeared). URLs are computed by
 * the domain (functions/pages/urls.ts) and passed in: a presenter only writes keys.
 */

/** API::Entities::PagesDomainCertificate. Differs from GitLab: `certificate_text` is a short summary, not `openssl x509 -text`. */
export const PagesDomainCertificate = z
  .object({ subject: z.string().nullable(), expired: z.boolean(), certificate: z.string(), certificate_text: z.string() })
  .meta({ id: "PagesDomainCertificate" });

/** API::Entities::PagesDomainCertificateExpiration */
export const PagesDomainCertificateExpiration = z.object({ expired: z.boolean(), expiration: z.string().nullable() }).meta({ id: "PagesDomainCertificateExpiration" });

const domainFields = {
  domain: z.string(),
  url: z.string(),
  verified: z.boolean(),
  verification_code: z.string(),
  enabled_until: z.string().nullable(),
  auto_ssl_enabled: z.boolean(),
};

/** API::Entities::PagesDomain */
export const PagesDomain = z.object({ ...domainFields, certificate: PagesDomainCertificate.optional() }).meta({ id: "PagesDomain" });

/** API::Entities::PagesDomainBasic (the administrators' list) */
export const PagesDomainBasic = z
  .object({ ...domainFields, project_id: z.int(), certificate_expiration: PagesDomainCertificateExpiration.optional() })
  .meta({ id: "PagesDomainBasic" });

type DomainCtx = { now: Date };

/** PagesDomain#url: https when it has a certificate (`certificate?`), as GitLab writes it. */
const domainUrl = (row: PagesDomainModel) => `${row.certificate ? "https" : "http"}://${row.domain}`;
const expired = (row: PagesDomainModel, now: Date) => !!row.certificateValidNotAfter && row.certificateValidNotAfter < now;

function certificateText(row: PagesDomainModel): string {
  return [
    `Subject: ${row.certificateSubject ?? ""}`,
    `Not Before: ${isoTime(row.certificateValidNotBefore) ?? ""}`,
    `Not After: ${isoTime(row.certificateValidNotAfter) ?? ""}`,
  ].join("\n");
}

function domainBase(row: PagesDomainModel) {
  return {
    domain: row.domain,
    url: domainUrl(row),
    verified: row.verifiedAt !== null,
    verification_code: row.verificationCode,
    enabled_until: isoTime(row.enabledUntil),
    auto_ssl_enabled: row.autoSslEnabled,
  };
}

export function pagesDomain(row: PagesDomainModel, ctx: DomainCtx): z.output<typeof PagesDomain> {
  return {
    ...domainBase(row),
    ...(row.certificate
      ? { certificate: { subject: row.certificateSubject, expired: expired(row, ctx.now), certificate: row.certificate, certificate_text: certificateText(row) } }
      : {}),
  };
}

export function pagesDomainBasic(row: PagesDomainModel, ctx: DomainCtx): z.output<typeof PagesDomainBasic> {
  return {
    ...domainBase(row),
    project_id: row.projectId,
    ...(row.certificate ? { certificate_expiration: { expired: expired(row, ctx.now), expiration: isoTime(row.certificateValidNotAfter) } } : {}),
  };
}

/** API::Entities::Pages::Deployment (16.8) */
export const PagesDeploymentEntity = z
  .object({ created_at: z.string(), url: z.string(), path_prefix: z.string(), root_directory: z.string() })
  .meta({ id: "PagesDeployment" });

/** API::Entities::Pages::ProjectSettings (16.8) */
export const PagesProjectSettings = z
  .object({
    url: z.string(),
    deployments: z.array(PagesDeploymentEntity),
    is_unique_domain_enabled: z.boolean(),
    force_https: z.boolean(),
    pages_default_domain_redirect: z.string().nullable(),
  })
  .meta({ id: "PagesProjectSettings" });

export type PagesSettingsRow = { url: string; deployments: PagesDeployment[] };

export function pagesProjectSettings(row: PagesSettingsRow): z.output<typeof PagesProjectSettings> {
  return {
    url: row.url,
    deployments: row.deployments.map((d) => ({ created_at: isoTime(d.createdAt)!, url: row.url, path_prefix: "", root_directory: "public" })),
    // Differs from GitLab: no unique domains, no forced HTTPS (the Worker serves both schemes as it is reached).
    is_unique_domain_enabled: false,
    force_https: false,
    pages_default_domain_redirect: null,
  };
}
