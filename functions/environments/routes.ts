import * as z from "zod";
import type { ProjectWithAccess } from "../kernel/abilities";
import { allowed, authorize } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { badRequest, checkUnmodifiedSince, forbidden, paramsError, recordNotFound, validation } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, pathRowId, rawParams, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import type { Environment } from "./queries";
import { environment, EnvironmentEntity } from "../entities/environments";
import { ListEnvironments } from "./params";
import * as q from "./queries";
import { environmentSlug, environmentType, externalUrlErrors, guessTier, nameErrors, TIERS } from "../shared/environments/rules";
import { stopEnvironment, stopStaleEnvironments } from "./services";

/**
 * Environments (lib/api/environments.rb, docs/deployments.md): made by hand or by CI jobs with
 * `environment:`, what deployments go to and feature flag strategies are scoped to. Every endpoint
 * needs a signed-in caller. Not built: `review_apps`.
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
const StopEnvironment = z.object({ force: p.bool().optional().describe("Stop the environment without running its `on_stop` jobs") });
const StopStale = z.object({ before: p.datetime().describe("Stop environments last modified or deployed to before this time") });

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

/** The single read, with `last_deployment` (lib/api/environments.rb `last_deployment: true`). */
async function presentSingle(c: Ctx, env: Environment, project: ProjectWithAccess) {
  const last = await q.lastDeployment(c.var.db(), project.id, env.id);
  return present(c, env, environment, { project, single: true, lastDeployment: last.row ? { ...last.row, environment: env } : null, commits: last.commits });
}

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
  return presentSingle(c, await findEnvironment(c, project), project);
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
  const values = { name, externalUrl, slug: await environmentSlug(name), tier: params.tier ?? guessTier(name), environmentType: environmentType(name) };
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
  const updated = await q.updateEnvironment(c.var.db(), env.id, {
    name,
    externalUrl: params.external_url,
    tier: params.tier,
    ...(name === undefined ? {} : { environmentType: environmentType(name) }),
  });
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

/**
 * POST /projects/:id/environments/:environment_id/stop (lib/api/environments.rb, Environments::StopService):
 * plays the `on_stop` jobs (the environment is `stopping` until they succeed) or stops at once; `force`
 * stops without them.
 */
environmentsRoutes.post("/projects/:id/environments/:environment_id/stop", { params: StopEnvironment, response: EnvironmentEntity, status: 200 }, async (c) => {
  requireUser(c);
  const params = await readParams(c, StopEnvironment);
  const project = await authorizedProject(c, "read_environment");
  const env = await findEnvironment(c, project);
  // Environments::StopService does nothing for a caller without `stop_environment` (still 200).
  const stopped = allowed(c.var.actor, "stop_environment", project)
    ? await stopEnvironment(c.env, c.var.db(), env, c.var.actor!.user.id, params.force ?? false)
    : env;
  return presentEnv(c, stopped, project);
});

/**
 * POST /projects/:id/environments/stop_stale (lib/api/environments.rb, Environments::StopStaleService):
 * `before` must lie between five years and one week ago. Differs from GitLab: the environments are
 * stopped before the answer instead of by a background worker.
 */
environmentsRoutes.post("/projects/:id/environments/stop_stale", { params: StopStale, status: 200 }, async (c) => {
  const actor = requireUser(c);
  const params = await readParams(c, StopStale);
  const project = await authorizedProject(c, "stop_environment");
  const now = Date.now();
  const week = 7 * 86400_000;
  if (params.before.getTime() < now - 5 * 365.25 * 86400_000 || params.before.getTime() > now - week) throw badRequest("Invalid Date");
  await stopStaleEnvironments(c.env, c.var.db(), project.id, params.before, actor.user.id);
  return c.json({ message: "Successfully requested stop for all stale environments" }, 200);
});
