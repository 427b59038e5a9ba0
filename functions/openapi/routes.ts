import type { Hono } from "hono";
import type { AppEnv } from "../kernel/env";
import { onNotFound } from "../kernel/errors";
import { openApiDocument } from "../kernel/openapi";
import { router } from "../kernel/router";

/** Where the reference page's script is served (a static asset: wrangler.toml `[assets]`, scripts/assets.mjs). */
const SCALAR_SCRIPT = "/api/v4/docs/scalar.js";

/**
 * Scalar's configuration (`data-configuration`): the page loads nothing from elsewhere, so no Google or
 * Scalar fonts (the system's are used), no "Test request" client (it would send requests through Scalar's
 * proxy), and no "Ask AI" agent (it calls Scalar's servers).
 */
const SCALAR_CONFIGURATION = {
  withDefaultFonts: false,
  hideClientButton: true,
  hideTestRequestButton: true,
  telemetry: false,
  agent: { disabled: true },
  metaData: { title: "Edgeforge API reference" },
};

const escapeAttribute = (text: string) => text.replaceAll("&", "&amp;").replaceAll("'", "&#39;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** The reference page: Scalar's standalone script reads the `#api-reference` element and renders the document. */
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Edgeforge API reference</title>
  </head>
  <body>
    <noscript>The reference needs JavaScript; the document itself is at <a href="/api/v4/openapi.json">/api/v4/openapi.json</a>.</noscript>
    <script id="api-reference" data-url="/api/v4/openapi.json" data-configuration='${escapeAttribute(JSON.stringify(SCALAR_CONFIGURATION))}'></script>
    <script src="${SCALAR_SCRIPT}"></script>
  </body>
</html>
`;

/**
 * What the page may load: its own origin only. Scalar's components set inline styles, and draw icons and
 * previews as data: and blob: images.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The API's own description: the OpenAPI document generated from the routes `root` registers
 * (kernel/openapi.ts), and a reference page over it. Not GitLab's: GitLab 15.4 serves no OpenAPI
 * document (its `/-/api-docs` came later, from Grape's grape-swagger).
 */
export function openapiRoutes(root: Hono<AppEnv>) {
  const routes = router();
  // Built on the first request, then kept for the isolate's life: the routes do not change while it runs.
  let document: Promise<Record<string, unknown>> | null = null;

  /** GET /openapi.json: the OpenAPI 3.1 document of every route. */
  routes.get("/openapi.json", { summary: "The OpenAPI 3.1 document of this API" }, async (c) => {
    document ??= openApiDocument(root).catch((error: unknown) => {
      document = null;
      throw error;
    });
    return c.json(await document);
  });

  /**
   * GET /docs: the reference page over the document (Scalar's API reference). Its script is a static
   * asset of this Worker (GET /docs/scalar.js); the page loads nothing from elsewhere, which its
   * Content-Security-Policy also enforces.
   */
  routes.get("/docs", { summary: "The API reference page (Scalar), over /api/v4/openapi.json" }, (c) =>
    c.html(PAGE, 200, { "Content-Security-Policy": CONTENT_SECURITY_POLICY, "Cache-Control": "no-cache" }),
  );

  /**
   * GET /docs/scalar.js: @scalar/api-reference's standalone script (3.4 MiB, 1 MiB gzipped), served from
   * the ASSETS binding, outside the Worker's bundle. The asset's path is this URL's (scripts/assets.mjs),
   * so the request is handed on as it came (conditional requests get their 304). Without the binding
   * (a Worker deployed without its assets) it is an unknown route.
   */
  routes.get("/docs/scalar.js", { summary: "The reference page's script (a static asset)" }, async (c) => {
    if (!c.env.ASSETS) return onNotFound(c);
    const asset = await c.env.ASSETS.fetch(new Request(new URL(SCALAR_SCRIPT, c.req.url), { headers: c.req.raw.headers }));
    return asset.status === 404 ? onNotFound(c) : asset;
  });
  return routes;
}
