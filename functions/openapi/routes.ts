import type { Hono } from "hono";
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

  // Not built: the reference page (GET /docs, Scalar). Its script (1.3 MiB gzipped) would take the Worker
  // upload past its 1 MiB gzip budget; it needs to be served as a static asset instead. Unknown route: 404.
  return routes;
}
