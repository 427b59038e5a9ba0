import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { unique, world } from "../helpers/world";
import { CERTIFICATE, KEY, OTHER_KEY } from "./fixtures";
import { pagesProject, published, runPagesJob, siteOf, visit } from "./support";

type Domain = { domain: string; url: string; verified: boolean; verification_code: string; enabled_until: string | null; auto_ssl_enabled: boolean; certificate?: Record<string, unknown>; project_id?: number };

const domainName = () => `${unique("site").toLowerCase()}.example.org`;

describe("GET /projects/:id/pages", () => {
  it("shows the site's URL and current deployment to maintainers", async () => {
    const w = await world();
    const developer = await w.user();
    const { api, project, runner } = await pagesProject(w, { developers: [developer] });
    const empty = (await (await api.get(`/projects/${project.id}/pages`)).json()) as Record<string, unknown>;
    const { host, prefix } = siteOf(project.fullPath);
    expect(empty).toEqual({ url: `http://${host}${prefix}`, deployments: [], is_unique_domain_enabled: false, force_https: false, pages_default_domain_redirect: null });
    await runPagesJob(runner.token, api, project.id, { "index.html": "x" });
    const body = await published(api, project.id);
    expect(body.deployments).toEqual([{ created_at: expect.any(String), url: `http://${host}${prefix}`, path_prefix: "", root_directory: "public" }]);
    expect(await statusAndBody(await w.as(developer).get(`/projects/${project.id}/pages`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/pages`))).toEqual([401, { message: "401 Unauthorized" }]);
  });

  it("answers 404 for a private project the caller cannot read", async () => {
    const w = await world();
    const { project } = await pagesProject(w, { visibility: "private" });
    const stranger = await w.user();
    expect(await statusAndBody(await w.as(stranger).get(`/projects/${project.id}/pages`))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("DELETE /projects/:id/pages", () => {
  it("unpublishes the site (administrators, as GitLab 15.4), deleting its files", async () => {
    const w = await world();
    const admin = await w.user({ admin: true });
    const { api, project, runner } = await pagesProject(w);
    await runPagesJob(runner.token, api, project.id, { "index.html": "x" });
    await published(api, project.id);
    const { host, prefix } = siteOf(project.fullPath);
    expect((await visit(host, `${prefix}/`)).status).toBe(200);
    expect(await statusAndBody(await api.delete(`/projects/${project.id}/pages`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.delete(`/projects/${project.id}/pages`))).toEqual([401, { message: "401 Unauthorized" }]);
    const res = await w.as(admin).delete(`/projects/${project.id}/pages`);
    expect(res.status).toBe(204);
    expect((await visit(host, `${prefix}/`)).status).toBe(404);
    expect(((await (await api.get(`/projects/${project.id}/pages`)).json()) as { deployments: unknown[] }).deployments).toEqual([]);
    expect(await statusAndBody(await w.as(admin).delete(`/projects/999999999/pages`))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("POST /projects/:id/pages/domains", () => {
  it("creates a domain with a verification code, unverified", async () => {
    const w = await world();
    const { api, project } = await pagesProject(w);
    const domain = domainName();
    const res = await api.post(`/projects/${project.id}/pages/domains`, { json: { domain } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Domain;
    expect(body).toEqual({ domain, url: `http://${domain}`, verified: false, verification_code: expect.stringMatching(/^[0-9a-f]{32}$/), enabled_until: null, auto_ssl_enabled: false });
    expect(await statusAndBody(await api.post(`/projects/${project.id}/pages/domains`, { json: { domain: domain.toUpperCase() } }))).toEqual([400, { message: { domain: ["has already been taken"] } }]);
  });

  it("stores a certificate and key and shows the certificate's subject and expiry", async () => {
    const w = await world();
    const { api, project } = await pagesProject(w);
    const domain = domainName();
    const res = await api.post(`/projects/${project.id}/pages/domains`, { json: { domain, certificate: CERTIFICATE, key: KEY, auto_ssl_enabled: false } });
    const body = (await res.json()) as Domain;
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.url).toBe(`https://${domain}`);
    expect(body.certificate).toEqual({ subject: "/CN=cert.example.org", expired: false, certificate: CERTIFICATE, certificate_text: expect.stringContaining("Subject: /CN=cert.example.org") });
    const admin = await w.user({ admin: true });
    const listed = (await (await w.as(admin).get("/pages/domains", { query: { domain } })).json()) as Domain[];
    expect(listed).toEqual([expect.objectContaining({ domain, project_id: project.id, certificate_expiration: { expired: false, expiration: expect.stringMatching(/^2126-/) } })]);
  });

  it("refuses bad input with GitLab's 400 bodies", async () => {
    const w = await world();
    const { api, project } = await pagesProject(w);
    const post = (json: Record<string, unknown>) => api.post(`/projects/${project.id}/pages/domains`, { json });
    expect(await statusAndBody(await post({}))).toEqual([400, { error: "domain is missing" }]);
    expect(await statusAndBody(await post({ domain: domainName(), certificate: CERTIFICATE }))).toEqual([400, { error: "certificate, key provide all or none of parameters" }]);
    expect(await statusAndBody(await post({ domain: "not a domain" }))).toEqual([400, { message: { domain: ["is invalid"] } }]);
    expect((await statusAndBody(await post({ domain: "x.pages.localhost" })))[0]).toBe(400);
    expect(await statusAndBody(await post({ domain: domainName(), certificate: "nope", key: KEY }))).toEqual([400, { message: { certificate: ["must be a valid PEM certificate"] } }]);
    expect(await statusAndBody(await post({ domain: domainName(), certificate: CERTIFICATE, key: OTHER_KEY }))).toEqual([400, { message: { key: ["doesn't match the certificate"] } }]);
    expect(await statusAndBody(await post({ domain: domainName(), auto_ssl_enabled: "maybe" }))).toEqual([400, { error: "auto_ssl_enabled is invalid" }]);
  });

  it("is for maintainers: 403 for developers, 401 anonymous, 404 for a private project's strangers", async () => {
    const w = await world();
    const developer = await w.user();
    const stranger = await w.user();
    const { project } = await pagesProject(w, { visibility: "private", developers: [developer] });
    const json = { domain: domainName() };
    expect(await statusAndBody(await w.as(developer).post(`/projects/${project.id}/pages/domains`, { json }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.post(`/projects/${project.id}/pages/domains`, { json }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(stranger).post(`/projects/${project.id}/pages/domains`, { json }))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("GET /projects/:id/pages/domains", () => {
  it("lists the project's domains by name, paginated", async () => {
    const w = await world();
    const developer = await w.user();
    const { api, project } = await pagesProject(w, { developers: [developer] });
    const names = [`b-${domainName()}`, `a-${domainName()}`, `c-${domainName()}`];
    for (const domain of names) expect((await api.post(`/projects/${project.id}/pages/domains`, { json: { domain } })).status).toBe(201);
    const res = await api.get(`/projects/${project.id}/pages/domains`, { query: { per_page: 2 } });
    expect(res.headers.get("x-total")).toBe("3");
    expect(res.headers.get("x-next-page")).toBe("2");
    expect(((await res.json()) as Domain[]).map((d) => d.domain)).toEqual([...names].sort().slice(0, 2));
    expect(await statusAndBody(await w.as(developer).get(`/projects/${project.id}/pages/domains`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await api.get(`/projects/${project.id}/pages/domains`, { query: { per_page: 0 } }))).toEqual([400, { error: "per_page does not have a valid value" }]);
  });
});

describe("GET /projects/:id/pages/domains/:domain", () => {
  it("shows one domain; 404 PagesDomain for another project's or an unknown one", async () => {
    const w = await world();
    const { api, project } = await pagesProject(w);
    const other = await pagesProject(w);
    const domain = domainName();
    await api.post(`/projects/${project.id}/pages/domains`, { json: { domain } });
    const res = await api.get(`/projects/${project.id}/pages/domains/${domain}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Domain).domain).toBe(domain);
    expect(await statusAndBody(await other.api.get(`/projects/${other.project.id}/pages/domains/${domain}`))).toEqual([404, { message: "404 PagesDomain Not Found" }]);
  });
});

describe("PUT /projects/:id/pages/domains/:domain", () => {
  it("changes auto_ssl_enabled, adds and removes a certificate", async () => {
    const w = await world();
    const { api, project } = await pagesProject(w);
    const domain = domainName();
    await api.post(`/projects/${project.id}/pages/domains`, { json: { domain } });
    const put = (json: Record<string, unknown>) => api.put(`/projects/${project.id}/pages/domains/${domain}`, { json });
    expect(((await (await put({ auto_ssl_enabled: true })).json()) as Domain).auto_ssl_enabled).toBe(true);
    const withCert = (await (await put({ certificate: CERTIFICATE, key: KEY })).json()) as Domain;
    expect(withCert.certificate?.subject).toBe("/CN=cert.example.org");
    // A certificate sent alone keeps the stored key.
    expect((await put({ certificate: CERTIFICATE })).status).toBe(200);
    expect(await statusAndBody(await put({ key: OTHER_KEY }))).toEqual([400, { message: { key: ["doesn't match the certificate"] } }]);
    const removed = (await (await put({ certificate: "", key: "" })).json()) as Domain;
    expect(removed.certificate).toBeUndefined();
    expect(removed.url).toBe(`http://${domain}`);
    expect(await statusAndBody(await api.put(`/projects/${project.id}/pages/domains/missing.example.org`, { json: {} }))).toEqual([404, { message: "404 PagesDomain Not Found" }]);
  });
});

describe("DELETE /projects/:id/pages/domains/:domain", () => {
  it("deletes the domain (maintainers)", async () => {
    const w = await world();
    const developer = await w.user();
    const { api, project } = await pagesProject(w, { developers: [developer] });
    const domain = domainName();
    await api.post(`/projects/${project.id}/pages/domains`, { json: { domain } });
    expect(await statusAndBody(await w.as(developer).delete(`/projects/${project.id}/pages/domains/${domain}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await api.delete(`/projects/${project.id}/pages/domains/${domain}`)).status).toBe(204);
    expect(await statusAndBody(await api.get(`/projects/${project.id}/pages/domains/${domain}`))).toEqual([404, { message: "404 PagesDomain Not Found" }]);
  });
});

describe("GET /pages/domains", () => {
  it("lists every project's domains for administrators only", async () => {
    const w = await world();
    const admin = await w.user({ admin: true });
    const { api, project } = await pagesProject(w);
    const domain = domainName();
    await api.post(`/projects/${project.id}/pages/domains`, { json: { domain } });
    const res = await w.as(admin).get("/pages/domains", { query: { per_page: 1 } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-per-page")).toBe("1");
    expect(Number(res.headers.get("x-total"))).toBeGreaterThanOrEqual(1);
    const one = (await (await w.as(admin).get("/pages/domains", { query: { domain: domain.toUpperCase() } })).json()) as Domain[];
    expect(one).toEqual([{ domain, url: `http://${domain}`, project_id: project.id, verified: false, verification_code: expect.any(String), enabled_until: null, auto_ssl_enabled: false }]);
    expect(await statusAndBody(await w.as(admin).get("/pages/domains", { query: { domain: "none.example.org" } }))).toEqual([404, { message: "404 PagesDomain Not Found" }]);
    expect(await statusAndBody(await api.get("/pages/domains"))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.get("/pages/domains"))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});
