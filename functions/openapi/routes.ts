import type { Hono, MiddlewareHandler } from "hono";
import { Scalar } from "@scalar/hono-api-reference";
import type { AppEnv } from "../kernel/env";
import { openApiDocument } from "../kernel/openapi";
import { router } from "../kernel/router";

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
   * GET /docs: Scalar's reference page over the document. Its script is served by the Worker itself
   * (GET /docs/scalar.js), and the page loads nothing from elsewhere (no fonts, no telemetry).
   */
  routes.get(
    "/docs",
    { summary: "The API reference page (Scalar)" },
    Scalar({
      url: "/api/v4/openapi.json",
      cdn: "/api/v4/docs/scalar.js",
      pageTitle: "Edgeforge API reference",
      withDefaultFonts: false,
      telemetry: false,
      hideClientButton: true,
      agent: { disabled: true },
      mcp: { disabled: true },
    } as Parameters<typeof Scalar>[0]) as unknown as MiddlewareHandler<AppEnv>,
  );

  /**
   * GET /docs/scalar.js: @scalar/api-reference's standalone script (4.6 MiB, 1.3 MiB gzipped). It is a
   * module of its own beside the bundle, imported on the first request only (wrangler.toml `[[rules]]`
   * Text), so the main bundle does not carry it.
   */
  routes.get("/docs/scalar.js", { summary: "The reference page's script" }, async (c) => {
    // @ts-expect-error -- a Text module (wrangler.toml [[rules]]): its default export is the file's text.
    const script = ((await import("../../node_modules/@scalar/api-reference/dist/browser/standalone.js")) as { default: string }).default;
    return c.body(script, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=3600" });
  });
  return routes;
}
