import { Hono } from "hono";
import { authorize } from "../kernel/abilities";
import { generateToken } from "../kernel/auth";
import type { AppEnv, Ctx } from "../kernel/env";
import { unauthorized } from "../kernel/errors";
import { findProject } from "../kernel/lookup";
import { pathRowId, rawParams } from "../kernel/params";
import { present, presentContext } from "../kernel/present";
import { router } from "../kernel/router";
import type { FeatureFlagsClient } from "./queries";
import { clientFeatureFlags, featureFlagsClient, FeatureFlagsClientEntity } from "../entities/unleash";
import * as q from "./queries";
import { featuresForEnvironment } from "./services";

/**
 * The Unleash client API (lib/api/unleash.rb): applications read a project's flags with the project's
 * instance id (`UNLEASH-INSTANCEID` header or `instance_id`) and name their environment with the app
 * name (`UNLEASH-APPNAME` or `app_name`). No personal token is involved, so this sub-app is a plain
 * Hono app rather than `router()` (whose guard asks a user for every write).
 */
export const unleashRoutes = new Hono<AppEnv>();

async function clientOf(c: Ctx): Promise<{ client: FeatureFlagsClient; appName: string | null; params: Record<string, unknown> }> {
  const params = await rawParams(c);
  const projectId = c.req.param("project_id")!;
  const token = c.req.header("unleash-instanceid") ?? (typeof params.instance_id === "string" ? params.instance_id : null);
  const appName = c.req.header("unleash-appname") ?? (typeof params.app_name === "string" ? params.app_name : null);
  if (!token || pathRowId(projectId) === null) throw unauthorized();
  const client = await q.findClient(c.var.db(), Number(projectId), token);
  if (!client) throw unauthorized();
  return { client, appName, params };
}

async function features(c: Ctx) {
  const { client, appName } = await clientOf(c);
  const flags = appName ? await q.flagsForClient(c.var.db(), client.projectId) : [];
  return c.json(clientFeatureFlags(featuresForEnvironment(flags, appName || null), presentContext(c)));
}

/** GET /feature_flags/unleash/:project_id/client/features (lib/api/unleash.rb) */
unleashRoutes.get("/feature_flags/unleash/:project_id/client/features", features);
/** GET /feature_flags/unleash/:project_id/features (lib/api/unleash.rb, the v2 clients' path) */
unleashRoutes.get("/feature_flags/unleash/:project_id/features", features);

/**
 * POST /feature_flags/unleash/:project_id/client/register (lib/api/unleash.rb).
 * Differs from GitLab: GitLab answers 200 and keeps nothing; here the application, its instance, SDK,
 * strategies and interval are recorded (operations_unleash_clients).
 */
unleashRoutes.post("/feature_flags/unleash/:project_id/client/register", async (c) => {
  const { client, appName, params } = await clientOf(c);
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);
  const started = str(params.started) ? new Date(params.started as string) : null;
  await q.registerClient(c.var.db(), client.projectId, {
    appName: str(params.appName) ?? appName ?? "",
    instanceId: str(params.instanceId) ?? "",
    sdkVersion: str(params.sdkVersion),
    strategies: Array.isArray(params.strategies) ? params.strategies.filter((s): s is string => typeof s === "string") : [],
    interval: Number.isInteger(params.interval) ? (params.interval as number) : null,
    startedAt: started && !Number.isNaN(started.getTime()) ? started : null,
  });
  return c.body(null, 200);
});

/**
 * POST /feature_flags/unleash/:project_id/client/metrics (lib/api/unleash.rb).
 * Differs from GitLab: the yes/no counts of each flag are added to hourly rows (operations_unleash_metrics).
 */
unleashRoutes.post("/feature_flags/unleash/:project_id/client/metrics", async (c) => {
  const { client, appName, params } = await clientOf(c);
  const bucket = (params.bucket ?? {}) as { start?: unknown; toggles?: Record<string, { yes?: unknown; no?: unknown }> };
  const start = typeof bucket.start === "string" ? new Date(bucket.start) : new Date();
  const hour = new Date(Number.isNaN(start.getTime()) ? Date.now() : start.getTime());
  hour.setUTCMinutes(0, 0, 0);
  const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? Math.min(v as number, 2147483647) : 0);
  const toggles = Object.entries(bucket.toggles && typeof bucket.toggles === "object" ? bucket.toggles : {})
    .slice(0, 1000)
    .map(([name, t]) => ({ name, yes: count(t?.yes), no: count(t?.no) }));
  const app = typeof params.appName === "string" ? params.appName : (appName ?? "");
  await q.addMetrics(c.var.db(), client.projectId, app, hour, toggles);
  return c.body(null, 200);
});

/**
 * Our extension (no web interface to show it): where a project's Unleash clients point.
 * GitLab shows the same on its feature flags page (`project.feature_flags_client`).
 */
export const featureFlagsClientRoutes = router();

/** GET /projects/:id/feature_flags_client (extension): `{api_url, instance_id}`, Maintainer or higher. */
featureFlagsClientRoutes.get("/projects/:id/feature_flags_client", { response: FeatureFlagsClientEntity }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "admin_feature_flags_client", project);
  const client = await q.ensureClient(c.var.db(), project.id, generateToken(""));
  return present(c, client, featureFlagsClient, { projectId: project.id });
});

/** POST /projects/:id/feature_flags_client/reset_token (extension): a new instance id. */
featureFlagsClientRoutes.post("/projects/:id/feature_flags_client/reset_token", { response: FeatureFlagsClientEntity, status: 200 }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "admin_feature_flags_client", project);
  const client = await q.resetClientToken(c.var.db(), project.id, generateToken(""));
  return present(c, client, featureFlagsClient, { projectId: project.id });
});
