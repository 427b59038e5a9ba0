import { z } from "zod";
import { authorize } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { ApiError, checkUnmodifiedSince, notFound } from "../kernel/errors";
import { findProject } from "../kernel/lookup";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { kindOf, type Kind } from "./catalog";
import { projectIntegration, projectIntegrationBasic } from "./entities";
import * as q from "./queries";

/**
 * Project integrations (lib/api/integrations.rb; spec 1: 4.14), under `/projects/:id/integrations` and
 * the older `/projects/:id/services`, as GitLab 15 serves both. Maintainers and owners
 * (`authorize_admin_project`). The kinds are the spec's table (./catalog.ts), by neutral slug, GitLab's
 * slugs accepted as aliases. Settings are stored; no integration sends anything yet.
 */
export const integrationsRoutes = router();

async function projectFor(c: Ctx) {
  requireUser(c);
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "admin_project", project);
  return project;
}

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

const camel = (k: string) => k.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase());

for (const prefix of ["integrations", "services"] as const) {
  /** GET /projects/:id/integrations (and /services): the active integrations. */
  integrationsRoutes.get(`/projects/:id/${prefix}`, async (c) => {
    const project = await projectFor(c);
    return present(c, await q.listActive(c.var.db(), project.id), projectIntegrationBasic);
  });

  /** PUT /projects/:id/integrations/:slug: creates or updates it, active; the required fields are 400 when missing. */
  integrationsRoutes.put(`/projects/:id/${prefix}/:slug`, async (c) => {
    const kind = kindParam(c);
    const project = await projectFor(c);
    const params = (await readParams(c, schemaOf(kind))) as Record<string, unknown>;
    const found = await q.findIntegration(c.var.db(), project.id, kind.slug);
    const properties: Record<string, unknown> = { ...(found?.active ? found.properties : {}) };
    const values: Record<string, unknown> = { active: true };
    for (const f of kind.fields) if (params[f.name] !== undefined) properties[f.name] = params[f.name];
    for (const e of kind.events) if (params[e] !== undefined) values[camel(e)] = params[e];
    const saved = await q.upsertIntegration(c.var.db(), project.id, kind.slug, { ...values, properties } as q.IntegrationValues);
    return present(c, saved, projectIntegration);
  });

  /** DELETE /projects/:id/integrations/:slug: 204; the row stays, inactive and without settings. */
  integrationsRoutes.delete(`/projects/:id/${prefix}/:slug`, async (c) => {
    const kind = kindParam(c);
    const project = await projectFor(c);
    const found = await q.findIntegration(c.var.db(), project.id, kind.slug);
    if (!found) throw notFound("Service");
    checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.updatedAt);
    await q.deactivate(c.var.db(), found.id);
    return c.body(null, 204);
  });

  /** GET /projects/:id/integrations/:slug: its settings (secrets left out); `404 Service Not Found` if never set. */
  integrationsRoutes.get(`/projects/:id/${prefix}/:slug`, async (c) => {
    const kind = kindParam(c);
    const project = await projectFor(c);
    const found = await q.findIntegration(c.var.db(), project.id, kind.slug);
    if (!found) throw notFound("Service");
    return present(c, found, projectIntegration);
  });
}

