import type { MiddlewareHandler } from "hono";
import { Access } from "../kernel/access";
import { canReadProject } from "../kernel/abilities";
import { authenticate } from "../kernel/auth";
import type { AppEnv, Ctx } from "../kernel/env";
import { projectWithAccess } from "../kernel/lookup";
import * as q from "./queries";
import { pagesDomainName, siteCandidates } from "./urls";

/**
 * Serving Pages sites from the Worker (docs/pages.md): mounted before every other route, it takes the
 * requests whose Host is `<namespace>.<PAGES_DOMAIN>` or a custom domain of a project, and lets every
 * other request through untouched (no statement). One statement finds the site and its current
 * deployment; the file comes from R2 under that deployment's prefix.
 */
export const pagesHosts: MiddlewareHandler<AppEnv> = async (c, next) => {
  const url = new URL(c.req.url);
  const host = url.hostname.toLowerCase();
  const pagesDomain = pagesDomainName(c.env);
  const segments = url.pathname.split("/").slice(1);
  let decoded: string[];
  try {
    decoded = segments.map((s) => decodeURIComponent(s));
  } catch {
    return c.body(null, 400);
  }
  if (host.endsWith(`.${pagesDomain}`)) {
    const namespace = host.slice(0, -pagesDomain.length - 1);
    // Only a top-level namespace is a subdomain (GitLab Pages' rule); `a.b.<domain>` names nothing.
    if (namespace.includes(".")) return notFoundPage(c);
    const { paths, root } = siteCandidates(namespace, pagesDomain, decoded.filter((s) => s !== ""));
    const site = await q.siteOnNamespaceHost(c.var.db(), paths, root);
    if (!site) return notFoundPage(c);
    const isRoot = site.fullPath.toLowerCase() === root;
    const depth = isRoot ? 0 : site.fullPath.split("/").length - 1;
    return serveSite(c, site, decoded.slice(depth), isRoot ? "/" : `/${segments.slice(0, depth).join("/")}/`);
  }
  if (!isCustomDomainCandidate(c, host)) return next();
  const site = await q.siteOnCustomDomain(c.var.db(), host);
  if (!site) return next();
  return serveSite(c, site, decoded, "/");
};

/**
 * A Host that may be a project's custom domain: not the instance's own (EXTERNAL_URL's host), not a
 * loopback name or an IP address. Custom domains are served only when EXTERNAL_URL is set: without it
 * the Worker cannot tell its own name from another, and would look up every request's Host.
 */
function isCustomDomainCandidate(c: Ctx, host: string): boolean {
  if (!c.env.EXTERNAL_URL) return false;
  if (host === new URL(c.env.EXTERNAL_URL).hostname.toLowerCase()) return false;
  if (host === "localhost" || host.endsWith(".localhost") || !host.includes(".")) return false;
  return !/^[\d.]+$/.test(host) && !host.startsWith("[");
}

/**
 * `pages_access_level` (ProjectFeature, `read_pages_content`): public sites are everyone's; `enabled`
 * follows the project's visibility; `private` is members' (and administrators'); `disabled` is nobody's.
 */
async function mayRead(c: Ctx, site: q.Site): Promise<"yes" | "sign_in" | "no"> {
  if (site.pagesAccessLevel === "disabled") return "no";
  if (site.pagesAccessLevel === "public" || (site.pagesAccessLevel === "enabled" && site.visibilityLevel >= 20)) return "yes";
  // Differs from GitLab: no OAuth round trip through the instance; a personal access token is taken as
  // `private_token` (query) or `PRIVATE-TOKEN` (header), as the API takes it.
  await authenticate(c, async () => {});
  const actor = c.var.actor;
  if (!actor) return "sign_in";
  const project = await projectWithAccess(c.var.db(), actor.user.id, { id: site.projectId });
  if (!project) return "no";
  if (site.pagesAccessLevel === "private") return actor.isAdmin || project.accessLevel >= Access.GUEST ? "yes" : "no";
  return canReadProject(actor, project) ? "yes" : "no";
}

async function serveSite(c: Ctx, site: q.Site, path: string[], base: string): Promise<Response> {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return new Response("Method Not Allowed", { status: 405, headers: { Allow: "GET, HEAD" } });
  const access = await mayRead(c, site);
  if (access === "no") return notFoundPage(c);
  if (access === "sign_in") return new Response("401 Unauthorized\n", { status: 401, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
  if (path.some((s) => s === "." || s === "..")) return notFoundPage(c);
  const isPublic = site.pagesAccessLevel === "public" || (site.pagesAccessLevel === "enabled" && site.visibilityLevel >= 20);
  const cacheControl = isPublic ? "max-age=600" : "private, no-store";
  const rel = path.join("/");
  const dir = rel === "" || rel.endsWith("/");
  const found = dir ? await file(c, site.prefix, `${rel}index.html`) : await file(c, site.prefix, rel);
  if (found) return respond(c, site.prefix, found, cacheControl, 200);
  if (!dir) {
    // `/docs` of a directory redirects to `/docs/` (relative links in its index.html assume it); `/about` serves `about.html`.
    const index = await head(c, site.prefix, `${rel}/index.html`);
    if (index) {
      const url = new URL(c.req.url);
      return c.redirect(`${base}${rel}/${url.search}`, 302);
    }
    const html = await file(c, site.prefix, `${rel}.html`);
    if (html) return respond(c, site.prefix, html, cacheControl, 200);
  }
  const custom = await file(c, site.prefix, "404.html", false);
  if (custom) return respond(c, site.prefix, custom, cacheControl, 404);
  return notFoundPage(c);
}

type Found = { key: string; object: R2Object | R2ObjectBody };

/** The object at the path, or null; conditional on the request's `If-None-Match` when `conditional`. */
async function file(c: Ctx, prefix: string, rel: string, conditional = true): Promise<Found | null> {
  const key = prefix + rel;
  const object = await c.env.BLOBS.get(key, conditional ? { onlyIf: c.req.raw.headers } : undefined);
  return object ? { key, object } : null;
}

async function head(c: Ctx, prefix: string, rel: string): Promise<R2Object | null> {
  return c.env.BLOBS.head(prefix + rel);
}

const acceptsGzip = (c: Ctx) => /\bgzip\b/i.test(c.req.header("accept-encoding") ?? "");

/**
 * The file's answer: its content type, ETag (R2's), `Cache-Control`, and 304 when `If-None-Match`
 * matched. A file published with a `.gz` sibling is answered with the sibling's bytes and
 * `Content-Encoding: gzip` to clients that accept gzip (GitLab Pages' `gzip_static`).
 */
async function respond(c: Ctx, prefix: string, found: Found, cacheControl: string, status: number): Promise<Response> {
  let { object } = found;
  const headers = new Headers({ "Cache-Control": cacheControl, "X-Content-Type-Options": "nosniff" });
  if (object.customMetadata?.gz === "1") {
    headers.set("Vary", "Accept-Encoding");
    if (acceptsGzip(c)) {
      const gz = await c.env.BLOBS.get(`${found.key}.gz`, status === 200 ? { onlyIf: c.req.raw.headers } : undefined);
      if (gz) {
        object = gz;
        headers.set("Content-Encoding", "gzip");
      }
    }
  }
  headers.set("Content-Type", object.httpMetadata?.contentType ?? "application/octet-stream");
  headers.set("ETag", object.httpEtag);
  if (!("body" in object)) return new Response(null, { status: 304, headers });
  headers.set("Content-Length", String(object.size));
  // The encoded bytes go out as they are stored (workerd would otherwise compress them again).
  return new Response(c.req.method === "HEAD" ? null : object.body, { status, headers, encodeBody: headers.has("Content-Encoding") ? "manual" : "automatic" });
}

function notFoundPage(c: Ctx): Response {
  void c;
  return new Response("404 The page you're looking for could not be found.\n", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}
