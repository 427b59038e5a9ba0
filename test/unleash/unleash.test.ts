import { describe, expect, it } from "vitest";
import { BASE, statusAndBody, worker } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { operationsUnleashClients, operationsUnleashMetrics } from "../../db/schema";
import { eq } from "drizzle-orm";

async function setup() {
  const w = await world();
  const maintainer = await w.user();
  const project = await w.project({ maintainers: [maintainer] });
  const client = (await (await w.as(maintainer).get(`/projects/${project.id}/feature_flags_client`)).json()) as { api_url: string; instance_id: string };
  const unleash = (path: string, init: { app?: string; instance?: string; method?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = {};
    if (init.app) headers["UNLEASH-APPNAME"] = init.app;
    if (init.instance ?? client.instance_id) headers["UNLEASH-INSTANCEID"] = init.instance ?? client.instance_id;
    if (init.body) headers["Content-Type"] = "application/json";
    return fetchWorker(`${client.api_url}${path}`, { method: init.method ?? "GET", headers, body: init.body ? JSON.stringify(init.body) : undefined });
  };
  return { w, maintainer, project, client, unleash };
}

/** A request to the Worker's entry point by absolute URL, without a personal token (as Unleash clients send). */
async function fetchWorker(url: string, init: RequestInit = {}): Promise<Response> {
  return worker.fetch(new Request(url, init));
}

describe("GET /projects/:id/feature_flags_client", () => {
  it("answers the API URL and a stable instance id; reset_token rotates it", async () => {
    const { w, maintainer, project, client, unleash } = await setup();
    expect(client.api_url).toBe(`${BASE}/api/v4/feature_flags/unleash/${project.id}`);
    expect(client.instance_id).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(await (await w.as(maintainer).get(`/projects/${project.id}/feature_flags_client`)).json()).toEqual(client);
    const reset = await w.as(maintainer).post(`/projects/${project.id}/feature_flags_client/reset_token`);
    expect(reset.status).toBe(200);
    const rotated = (await reset.json()) as typeof client;
    expect(rotated.instance_id).not.toBe(client.instance_id);
    expect(await statusAndBody(await unleash("/client/features", { app: "production" }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect((await unleash("/client/features", { app: "production", instance: rotated.instance_id })).status).toBe(200);
  });

  forbidsRoles(["developer"], (w, p, user) => w.as(user).get(`/projects/${p.id}/feature_flags_client`));
  forbidsRoles(["developer"], (w, p, user) => w.as(user).post(`/projects/${p.id}/feature_flags_client/reset_token`));
  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/feature_flags_client`));
});

describe("GET /feature_flags/unleash/:project_id/client/features", () => {
  it("serves the flags whose strategies are scoped to the app name's environment", async () => {
    const { w, maintainer, project, unleash } = await setup();
    const list = await (await w.as(maintainer).post(`/projects/${project.id}/feature_flags_user_lists`, { json: { name: "beta", user_xids: "7,8" } })).json() as { id: number; iid: number };
    const create = (json: unknown) => w.as(maintainer).post(`/projects/${project.id}/feature_flags`, { json });
    await create({
      name: "prod_only",
      version: "new_version_flag",
      description: "only prod",
      strategies: [
        { name: "default", parameters: {}, scopes: [{ environment_scope: "production" }] },
        { name: "userWithId", parameters: { userIds: "1" }, scopes: [{ environment_scope: "review/*" }] },
      ],
    });
    await create({
      name: "everywhere_list",
      version: "new_version_flag",
      active: false,
      strategies: [{ name: "gitlabUserList", parameters: {}, user_list_id: list.id, scopes: [{ environment_scope: "*" }] }],
    });
    await create({
      name: "legacy",
      scopes: [
        { environment_scope: "*", active: false, strategies: [{ name: "default", parameters: {} }] },
        { environment_scope: "production", active: true, strategies: [{ name: "userWithId", parameters: { userIds: "5" } }] },
      ],
    });
    const prod = await unleash("/client/features", { app: "production" });
    expect(prod.status).toBe(200);
    expect(await prod.json()).toEqual({
      version: 1,
      features: [
        { name: "prod_only", description: "only prod", enabled: true, strategies: [{ name: "default", parameters: {} }] },
        { name: "everywhere_list", enabled: false, strategies: [{ name: "userWithId", parameters: { userIds: "7,8" } }] },
        { name: "legacy", enabled: true, strategies: [{ name: "userWithId", parameters: { userIds: "5" } }] },
      ],
    });
    const review = await (await unleash("/features", { app: "review/app-1" })).json() as { features: { name: string; enabled: boolean; strategies: unknown }[] };
    expect(review.features.map((f: { name: string; enabled: boolean }) => [f.name, f.enabled])).toEqual([
      ["prod_only", true],
      ["everywhere_list", false],
      ["legacy", false],
    ]);
    expect(review.features[0].strategies).toEqual([{ name: "userWithId", parameters: { userIds: "1" } }]);
    expect(await (await unleash("/client/features")).json()).toEqual({ version: 1, features: [] });
  });

  it("answers 401 without a valid instance id", async () => {
    const { project, unleash } = await setup();
    expect(await statusAndBody(await unleash("/client/features", { app: "production", instance: "wrong" }))).toEqual([401, { message: "401 Unauthorized" }]);
    const other = await fetchWorker(`${BASE}/api/v4/feature_flags/unleash/${project.id + 100000}/client/features`, { headers: { "UNLEASH-INSTANCEID": "x" } });
    expect(other.status).toBe(401);
  });
});

describe("POST /feature_flags/unleash/:project_id/client/register", () => {
  it("records the application instance", async () => {
    const { w, project, unleash } = await setup();
    const body = { appName: "production", instanceId: "pod-1", sdkVersion: "unleash-client-node:6", strategies: ["default"], started: "2026-01-01T00:00:00.000Z", interval: 15000 };
    const res = await unleash("/client/register", { method: "POST", app: "production", body });
    expect(res.status).toBe(200);
    const rows = await w.db((db) => db.select().from(operationsUnleashClients).where(eq(operationsUnleashClients.projectId, project.id)));
    expect(rows).toMatchObject([{ appName: "production", instanceId: "pod-1", sdkVersion: "unleash-client-node:6", strategies: ["default"], interval: 15000 }]);
  });
});

describe("POST /feature_flags/unleash/:project_id/client/metrics", () => {
  it("adds yes/no counts per flag and hour", async () => {
    const { w, project, unleash } = await setup();
    const body = (yes: number) => ({ appName: "production", instanceId: "pod-1", bucket: { start: "2026-01-01T10:15:00Z", stop: "2026-01-01T10:16:00Z", toggles: { dark: { yes, no: 1 } } } });
    expect((await unleash("/client/metrics", { method: "POST", app: "production", body: body(2) })).status).toBe(200);
    await unleash("/client/metrics", { method: "POST", app: "production", body: body(3) });
    const rows = await w.db((db) => db.select().from(operationsUnleashMetrics).where(eq(operationsUnleashMetrics.projectId, project.id)));
    expect(rows).toMatchObject([{ featureName: "dark", yes: 5, no: 2, hour: new Date("2026-01-01T10:00:00Z") }]);
  });
});
