import * as z from "zod";
import { authorize } from "../kernel/abilities";
import { requireAdmin, requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { notFound, validation } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams, readParamsWithPath } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { router } from "../kernel/router";
import { PagesDomain, pagesDomain, PagesDomainBasic, pagesDomainBasic, PagesProjectSettings, pagesProjectSettings } from "../entities/pages";
import { parseCertificate } from "./certificates";
import * as q from "./queries";
import { unpublishPages } from "./services";
import { pagesDomainName, pagesUrl } from "./urls";

/**
 * Pages settings and custom domains (lib/api/pages.rb, lib/api/pages_domains.rb, GitLab 15.4;
 * `GET /projects/:id/pages` from 16.8). The sites themselves are served by functions/pages/serve.ts.
 */
export const pagesRoutes = router();

const domainParam = { domain: p.string().describe("The domain") };
const DomainPath = z.object(domainParam);
const ListAllDomains = pageParams.extend({ domain: p.string().optional().describe("The domain of the GitLab Pages site to filter on.") });
const CreateDomain = z.object({
  domain: p.string().describe("The domain"),
  certificate: p.string().optional().describe("The certificate (PEM)"),
  key: p.string().optional().describe("The certificate's private key (PEM)"),
  auto_ssl_enabled: p.bool().default(false).describe("Enables automatic generation of SSL certificates issued by Let's Encrypt for custom domains."),
});
const UpdateDomain = z.object({
  domain: p.string().describe("The domain"),
  certificate: p.string().nullable().optional().describe("The certificate (PEM); empty removes it"),
  key: p.string().nullable().optional().describe("The certificate's private key (PEM)"),
  auto_ssl_enabled: p.bool().optional().describe("Enables automatic generation of SSL certificates issued by Let's Encrypt for custom domains."),
});

/** `find_pages_domain!` */
async function findDomain(c: Ctx, projectId: number, domain: string) {
  const found = await q.findDomain(c.var.db(), projectId, domain);
  if (!found) throw notFound("PagesDomain");
  return found;
}

/** The certificate columns for a PEM pair, or the model's 400 (`render_validation_error!`). */
function certificateValues(certificate: string | null, key: string | null): Pick<q.DomainValues, "certificate" | "key" | "certificateSubject" | "certificateValidNotBefore" | "certificateValidNotAfter"> {
  if (!certificate) return { certificate: null, key: null, certificateSubject: null, certificateValidNotBefore: null, certificateValidNotAfter: null };
  const { parsed, errors } = parseCertificate(certificate, key);
  if (!key) errors.key = ["can't be blank"];
  if (!parsed || Object.keys(errors).length) throw validation(errors);
  return { certificate, key, certificateSubject: parsed.subject, certificateValidNotBefore: parsed.notBefore, certificateValidNotAfter: parsed.notAfter };
}

/** PagesDomain's `validate :validate_domain` (a host name with a dot, not under the Pages domain itself). */
function domainErrors(c: Ctx, domain: string): Record<string, string[]> {
  const d = domain.toLowerCase();
  if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/.test(d)) return { domain: ["is invalid"] };
  const pages = pagesDomainName(c.env);
  if (d === pages || d.endsWith(`.${pages}`)) return { domain: [`${pages} and its subdomains cannot be used as custom pages domains. Please compare our documentation at https://docs.gitlab.com/ee/administration/pages/#advanced-configuration against your configuration.`] };
  return {};
}

/** A random code for the TXT record `_gitlab-pages-verification-code.<domain>` (PagesDomain#generate_verification_code). */
function verificationCode(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** GET /projects/:id/pages (16.8): the site's URL and its current deployment (Maintainer+). */
pagesRoutes.get("/projects/:id/pages", { response: PagesProjectSettings }, async (c) => {
  const project = await authorizedProject(c, "read_pages", { signedIn: true });
  const deployment = await q.currentDeployment(c.var.db(), project.id);
  const url = pagesUrl(baseUrl(c), pagesDomainName(c.env), project.fullPath);
  return present(c, { url, deployments: deployment ? [deployment] : [] }, pagesProjectSettings);
});

/** DELETE /projects/:id/pages (`authenticated_with_can_read_all_resources!`, `remove_pages`): administrators, as GitLab 15.4. */
pagesRoutes.delete("/projects/:id/pages", { status: 204 }, async (c) => {
  requireAdmin(c);
  const project = await authorizedProject(c, "remove_pages");
  await unpublishPages(c.env, c.var.db(), project.id);
  return c.body(null, 204);
});

/** GET /pages/domains (administrators): every custom domain, or the one named by `domain`. */
pagesRoutes.get("/pages/domains", { params: ListAllDomains, paginated: true, response: [PagesDomainBasic] }, async (c) => {
  const params = await readParams(c, ListAllDomains);
  requireAdmin(c);
  if (params.domain) {
    const found = await q.findDomainAnywhere(c.var.db(), params.domain);
    if (!found) throw notFound("PagesDomain");
    return present(c, [found], pagesDomainBasic, { now: new Date() });
  }
  const page = pageOf(params);
  const { rows, total } = await q.listAllDomains(c.var.db(), page);
  paginate(c, page, total);
  return present(c, rows, pagesDomainBasic, { now: new Date() });
});

/** GET /projects/:id/pages/domains */
pagesRoutes.get("/projects/:id/pages/domains", { params: pageParams, paginated: true, response: [PagesDomain] }, async (c) => {
  const params = await readParams(c, pageParams);
  requireUser(c);
  const project = await authorizedProject(c, "read_pages");
  const page = pageOf(params);
  const { rows, total } = await q.listProjectDomains(c.var.db(), project.id, page);
  paginate(c, page, total);
  return present(c, rows, pagesDomain, { now: new Date() });
});

/** GET /projects/:id/pages/domains/:domain */
pagesRoutes.get("/projects/:id/pages/domains/:domain", { params: DomainPath, response: PagesDomain }, async (c) => {
  const { domain } = await readParamsWithPath(c, DomainPath);
  requireUser(c);
  const project = await authorizedProject(c, "read_pages");
  return present(c, await findDomain(c, project.id, domain), pagesDomain, { now: new Date() });
});

/** POST /projects/:id/pages/domains (Pages::Domains::CreateService) */
pagesRoutes.post("/projects/:id/pages/domains", { params: CreateDomain, response: PagesDomain, status: 201 }, async (c) => {
  const params = await readParams(c, CreateDomain, [{ allOrNoneOf: ["certificate", "key"] }]);
  requireUser(c);
  const project = await authorizedProject(c, "update_pages");
  const errors = domainErrors(c, params.domain);
  if (Object.keys(errors).length) throw validation(errors);
  const cert = certificateValues(params.certificate ?? null, params.key ?? null);
  const created = await q.insertDomain(c.var.db(), project.id, params.domain, verificationCode(), { ...cert, autoSslEnabled: params.auto_ssl_enabled });
  if (!created) throw validation({ domain: ["has already been taken"] });
  return present(c, created, pagesDomain, { now: new Date() }, 201);
});

/** PUT /projects/:id/pages/domains/:domain (Pages::Domains::UpdateService): a certificate without a key keeps the stored key. */
pagesRoutes.put("/projects/:id/pages/domains/:domain", { params: UpdateDomain, response: PagesDomain }, async (c) => {
  const params = await readParamsWithPath(c, UpdateDomain);
  requireUser(c);
  const project = await authorizedProject(c, "update_pages");
  const found = await findDomain(c, project.id, params.domain);
  const changes: Partial<q.DomainValues> = {};
  if (params.certificate !== undefined || params.key !== undefined) {
    const certificate = params.certificate === undefined ? found.certificate : params.certificate || null;
    const key = params.key === undefined || (params.certificate && !params.key) ? found.key : params.key || null;
    Object.assign(changes, certificateValues(certificate, certificate ? key : null));
  }
  if (params.auto_ssl_enabled !== undefined) changes.autoSslEnabled = params.auto_ssl_enabled;
  const updated = Object.keys(changes).length ? await q.updateDomain(c.var.db(), found.id, changes) : found;
  return present(c, updated ?? found, pagesDomain, { now: new Date() });
});

/** DELETE /projects/:id/pages/domains/:domain */
pagesRoutes.delete("/projects/:id/pages/domains/:domain", { params: DomainPath, status: 204 }, async (c) => {
  const { domain } = await readParamsWithPath(c, DomainPath);
  requireUser(c);
  const project = await authorizedProject(c, "update_pages");
  const found = await findDomain(c, project.id, domain);
  await q.deleteDomain(c.var.db(), found.id);
  return c.body(null, 204);
});
