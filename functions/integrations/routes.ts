import * as z from "zod";
import type { Ctx } from "../kernel/env";
import { ApiError, apiError, checkUnmodifiedSince, notFound } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { loadSettings } from "../shared/settings/load";
import { validHookUrl } from "../shared/webhooks/url_guard";
import { kindOf, type Kind } from "../entities/integration_kinds";
import { projectIntegration, ProjectIntegration, projectIntegrationBasic, ProjectIntegrationBasic } from "../entities/integrations";
import * as q from "./queries";

/**
 * Project integrations (lib/api/integrations.rb), under `/projects/:id/integrations` and
 * the older `/projects/:id/services`, as GitLab 15 serves both. Maintainers and owners
 * (`authorize_admin_project`). The kinds are the spec's table (./catalog.ts), by neutral slug, GitLab's
 * slugs accepted as aliases. Chat kinds with a `webhook` (Discord, Microsoft Teams, Slack, Mattermost,
 * Google Chat) post GitLab's notifications through the webhook queue (functions/shared/webhooks/chat.ts);
 * the other kinds store their settings and send nothing (not built).
 */
export const integrationsRoutes = router();

/** A slug outside the table is not a route, as in GitLab (`requirements` of the route). */
function kindParam(c: Ctx): Kind {
  const kind = kindOf(c.req.param("slug")!);
  if (!kind) throw new ApiError(404, { error: "404 Not Found" });
  return kind;
}

const schemas = new Map<string, z.ZodObject>();
function schemaOf(kind: Kind): z.ZodObject {
  let schema = schemas.get(kind.slug);
  if (!schema) {
    const shape: Record<string, z.ZodType> = {};
    for (const f of kind.fields) {
      const base = f.type === "boolean" ? p.bool() : f.values ? p.oneOf(...(f.values as [string, ...string[]])) : p.string();
      shape[f.name] = f.required ? base : base.optional();
    }
    for (const e of kind.events) shape[e] = p.bool().optional();
    schema = z.object(shape);
    schemas.set(kind.slug, schema);
  }
  return schema;
}

/**
 * BaseChatNotification `validates :webhook, public_url: true`: a local address is refused unless the
 * instance allows local requests from hooks and services; the failed save is Grape's bare 400.
 */
async function checkWebhook(c: Ctx, webhook: unknown) {
  if (typeof webhook !== "string") return;
  const settings = await loadSettings(c.var.db());
  const guard = { allowLocal: settings.allow_local_requests_from_web_hooks_and_services as boolean, allowlist: settings.outbound_local_requests_whitelist as string[] };
  if (!validHookUrl(webhook, guard)) throw apiError("400 Bad Request", 400);
}

const camel = (k: string) => k.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase());

// `/services`: the older path GitLab keeps for API v4 (lib/api/integrations.rb); documented as deprecated.
for (const prefix of ["integrations", "services"] as const) {
  /** GET /projects/:id/integrations (and /services): the active integrations. */
  integrationsRoutes.get(`/projects/:id/${prefix}`, { deprecated: prefix === "services", response: [ProjectIntegrationBasic], paginated: false }, async (c) => {
    const project = await authorizedProject(c, "admin_project", { signedIn: true });
    return present(c, await q.listActive(c.var.db(), project.id), projectIntegrationBasic);
  });

  /** PUT /projects/:id/integrations/:slug: creates or updates it, active; the required fields are 400 when missing. */
  integrationsRoutes.put(`/projects/:id/${prefix}/:slug`, { deprecated: prefix === "services", response: ProjectIntegration }, async (c) => {
    const kind = kindParam(c);
    const project = await authorizedProject(c, "admin_project", { signedIn: true });
    const params = (await readParams(c, schemaOf(kind))) as Record<string, unknown>;
    const found = await q.findIntegration(c.var.db(), project.id, kind.slug);
    const properties: Record<string, unknown> = { ...(found?.active ? found.properties : {}) };
    const values: Record<string, unknown> = { active: true };
    for (const f of kind.fields) if (params[f.name] !== undefined) properties[f.name] = params[f.name];
    await checkWebhook(c, properties.webhook);
    for (const e of kind.events) if (params[e] !== undefined) values[camel(e)] = params[e];
    const saved = await q.upsertIntegration(c.var.db(), project.id, kind.slug, { ...values, properties } as q.IntegrationValues);
    return present(c, saved, projectIntegration);
  });

  /** DELETE /projects/:id/integrations/:slug: 204; the row stays, inactive and without settings. */
  integrationsRoutes.delete(`/projects/:id/${prefix}/:slug`, { deprecated: prefix === "services" }, async (c) => {
    const kind = kindParam(c);
    const project = await authorizedProject(c, "admin_project", { signedIn: true });
    const found = await q.findIntegration(c.var.db(), project.id, kind.slug);
    if (!found) throw notFound("Service");
    checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.updatedAt);
    await q.deactivate(c.var.db(), found.id);
    return c.body(null, 204);
  });

  /** GET /projects/:id/integrations/:slug: its settings (secrets left out); `404 Service Not Found` if never set. */
  integrationsRoutes.get(`/projects/:id/${prefix}/:slug`, { deprecated: prefix === "services", response: ProjectIntegration }, async (c) => {
    const kind = kindParam(c);
    const project = await authorizedProject(c, "admin_project", { signedIn: true });
    const found = await q.findIntegration(c.var.db(), project.id, kind.slug);
    if (!found) throw notFound("Service");
    return present(c, found, projectIntegration);
  });
}

