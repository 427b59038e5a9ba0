import * as z from "zod";
import type { ProjectWithAccess } from "../kernel/abilities";
import { allowed, authorize } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { checkUnmodifiedSince, forbidden, paramsError, recordNotFound, validation } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, pathRowId, rawParams, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import type { Environment } from "./queries";
import { environment, EnvironmentEntity } from "../entities/environments";
import { ListEnvironments } from "./params";
import * as q from "./queries";
import { environmentSlug, externalUrlErrors, guessTier, nameErrors, TIERS } from "./rules";

/**
 * Environments (lib/api/environments.rb): what feature flag strategies are scoped to. Every endpoint
 * needs a signed-in caller. Not built: deployments (so `last_deployment` is null and stopping runs no
 * `on_stop` job), `review_apps` and `stop_stale`.
 */
export const environmentsRoutes = router();

const CreateEnvironment = z.object({
  name: p.string(),
  external_url: p.string().optional(),
  slug: z.any().optional(),
  tier: p.oneOf(...TIERS).optional(),
});
const UpdateEnvironment = z.object({
  name: p.string().optional(),
  external_url: p.string().optional(),
  slug: z.any().optional(),
  tier: p.oneOf(...TIERS).optional(),
});
const StopEnvironment = z.object({ force: p.bool().optional() });

/** `optional :slug, absence: { message: "is automatically generated and cannot be changed" }`. */
async function refuseSlug(c: Ctx): Promise<void> {
  if ((await rawParams(c)).slug !== undefined) throw paramsError("slug is automatically generated and cannot be changed");
}

async function findEnvironment(c: Ctx, project: ProjectWithAccess): Promise<Environment> {
  const id = c.req.param("environment_id")!;
  if (pathRowId(id) === null) throw paramsError("environment_id is invalid");
  const env = await q.findEnvironment(c.var.db(), project.id, Number(id));
  if (!env) throw recordNotFound();
  return env;
}

function errorsOf(v: { name?: string; externalUrl?: string | null }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const name = v.name === undefined ? [] : nameErrors(v.name);
  if (name.length) errors.name = name;
  const url = v.externalUrl === undefined ? [] : externalUrlErrors(v.externalUrl);
  if (url.length) errors.external_url = url;
  return errors;
}

const presentEnv = (c: Ctx, env: Environment | Environment[], project: ProjectWithAccess, extra: { single?: boolean } = {}, status: 200 | 201 = 200) =>
  present(c, env, environment, { project, ...extra }, status);

/** GET /projects/:id/environments (lib/api/environments.rb) */
environmentsRoutes.get("/projects/:id/environments", { params: ListEnvironments, response: [EnvironmentEntity] }, async (c) => {
  requireUser(c);
  const params = await readParams(c, ListEnvironments);
  // `mutually_exclusive :name, :search, message: 'cannot be used together'`
  if (params.name !== undefined && params.search !== undefined) throw paramsError("name, search cannot be used together");
  const project = await authorizedProject(c, "read_environment");
  const page = pageOf(params);
  const list = await q.listEnvironments(c.var.db(), project.id, params, page);
  paginate(c, page, list.total);
  return presentEnv(c, list.rows, project);
});

/** GET /projects/:id/environments/:environment_id (lib/api/environments.rb) */
environmentsRoutes.get("/projects/:id/environments/:environment_id", { response: EnvironmentEntity }, async (c) => {
  const project = await authorizedProject(c, "read_environment", { signedIn: true });
  return presentEnv(c, await findEnvironment(c, project), project, { single: true });
});

/** POST /projects/:id/environments (lib/api/environments.rb) */
environmentsRoutes.post("/projects/:id/environments", { params: CreateEnvironment, response: EnvironmentEntity }, async (c) => {
  requireUser(c);
  const params = await readParams(c, CreateEnvironment);
  await refuseSlug(c);
  const project = await authorizedProject(c, "create_environment");
  const name = params.name.trim();
  const externalUrl = params.external_url ?? null;
  const errors = errorsOf({ name, externalUrl });
  if (Object.keys(errors).length) throw validation(errors);
  const values = { name, externalUrl, slug: await environmentSlug(name), tier: params.tier ?? guessTier(name) };
  const created = await q.insertEnvironment(c.var.db(), project.id, values);
  if (!created) throw validation({ name: ["has already been taken"] });
  return presentEnv(c, created, project, {}, 201);
});

/** PUT /projects/:id/environments/:environment_id (lib/api/environments.rb): name (deprecated), external_url, tier. */
environmentsRoutes.put("/projects/:id/environments/:environment_id", { params: UpdateEnvironment, response: EnvironmentEntity }, async (c) => {
  requireUser(c);
  const params = await readParams(c, UpdateEnvironment);
  await refuseSlug(c);
  const project = await authorizedProject(c, "update_environment");
  const env = await findEnvironment(c, project);
  const name = params.name?.trim();
  const errors = errorsOf({ name, externalUrl: params.external_url });
  if (Object.keys(errors).length) throw validation(errors);
  const updated = await q.updateEnvironment(c.var.db(), env.id, { name, externalUrl: params.external_url, tier: params.tier });
  if (!updated) throw validation({ name: ["has already been taken"] });
  return presentEnv(c, updated, project);
});

/** DELETE /projects/:id/environments/:environment_id (lib/api/environments.rb): only a stopped environment. */
environmentsRoutes.delete("/projects/:id/environments/:environment_id", async (c) => {
  const project = await authorizedProject(c, "read_environment", { signedIn: true });
  const env = await findEnvironment(c, project);
  // EnvironmentPolicy: `rule { ~stopped }.prevent :destroy_environment`.
  authorize(c, "destroy_environment", project);
  if (env.state !== "stopped") throw forbidden();
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), env.updatedAt);
  await q.deleteEnvironment(c.var.db(), env.id);
  return c.body(null, 204);
});

/** POST /projects/:id/environments/:environment_id/stop (lib/api/environments.rb) */
environmentsRoutes.post("/projects/:id/environments/:environment_id/stop", { params: StopEnvironment, response: EnvironmentEntity, status: 200 }, async (c) => {
  requireUser(c);
  await readParams(c, StopEnvironment);
  const project = await authorizedProject(c, "read_environment");
  const env = await findEnvironment(c, project);
  // Environments::StopService does nothing for a caller without `stop_environment` (still 200).
  const stop = allowed(c.var.actor, "stop_environment", project) && env.state !== "stopped";
  const stopped = stop ? await q.updateEnvironment(c.var.db(), env.id, { state: "stopped" }) : env;
  return presentEnv(c, stopped!, project);
});
