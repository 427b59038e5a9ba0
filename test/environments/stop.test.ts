import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { autoStopEnvironments } from "../../functions/environments/services";
import type { Bindings } from "../../functions/kernel/env";
import { statusAndBody } from "../helpers/client";
import { ciProject } from "../helpers/ci";
import { withDb } from "../helpers/db";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";

async function setup() {
  const w = await world();
  const reporter = await w.user();
  const { project, api, sha } = await ciProject(w, "x:\n  script: [x]\n", { reporters: [reporter] });
  const deploy = async (environment: string) => {
    const res = await api.post(`/projects/${project.id}/deployments`, { json: { environment, sha, ref: "main", tag: false, status: "success" } });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: number; environment: { id: number } };
  };
  return { w, reporter, project, api, deploy };
}

describe("POST /projects/:id/environments/:environment_id/stop", () => {
  it("stops at once without on_stop jobs; a reporter changes nothing; force stops", async () => {
    const { w, reporter, project, api, deploy } = await setup();
    const d = await deploy("production");
    const stop = (who: typeof api, query: Record<string, string> = {}) => who.post(`/projects/${project.id}/environments/${d.environment.id}/stop`, { query });
    expect(((await (await stop(w.as(reporter))).json()) as { state: string }).state).toBe("available");
    expect(((await (await stop(api)).json()) as { state: string }).state).toBe("stopped");
    // A new successful deployment starts it again.
    await deploy("production");
    const single = (await (await api.get(`/projects/${project.id}/environments/${d.environment.id}`)).json()) as { state: string; last_deployment: { id: number } };
    expect(single.state).toBe("available");
    expect(((await (await stop(api, { force: "true" })).json()) as { state: string }).state).toBe("stopped");
  });
});

describe("POST /projects/:id/environments/stop_stale", () => {
  it("answers 400 for a date out of range and stops environments deployed before it", async () => {
    const { project, api, deploy } = await setup();
    const d = await deploy("old");
    expect(await statusAndBody(await api.post(`/projects/${project.id}/environments/stop_stale`, { json: { before: new Date().toISOString() } }))).toEqual([
      400,
      { message: "400 Bad request - Invalid Date" },
    ]);
    // Make the environment and its deployment look a month old.
    await withDb(async (db) => {
      await db.execute(sql`UPDATE deployments SET finished_at = now() - interval '30 days' WHERE id = ${d.id}`);
      await db.execute(sql`UPDATE environments SET updated_at = now() - interval '30 days' WHERE id = ${d.environment.id}`);
    });
    const before = new Date(Date.now() - 14 * 86400_000).toISOString();
    expect(await statusAndBody(await api.post(`/projects/${project.id}/environments/stop_stale`, { json: { before } }))).toEqual([
      200,
      { message: "Successfully requested stop for all stale environments" },
    ]);
    const env1 = (await (await api.get(`/projects/${project.id}/environments/${d.environment.id}`)).json()) as { state: string };
    expect(env1.state).toBe("stopped");
  });

  forbidsRoles(["reporter"], (w, p, user) => w.as(user).post(`/projects/${p.id}/environments/stop_stale`, { json: { before: "2020-01-01T00:00:00Z" } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).post(`/projects/${p.id}/environments/stop_stale`, { json: { before: "2020-01-01T00:00:00Z" } }));
});

describe("auto stop (the */5 cron)", () => {
  it("stops an available environment whose auto_stop_at has passed", async () => {
    const { project, api, deploy } = await setup();
    const d = await deploy("review/a");
    await withDb((db) => db.execute(sql`UPDATE environments SET auto_stop_at = now() - interval '1 minute' WHERE id = ${d.environment.id}`));
    const stopped = await withDb((db) => autoStopEnvironments(env as unknown as Bindings, db as never));
    expect(stopped).toContain(d.environment.id);
    const after = (await (await api.get(`/projects/${project.id}/environments/${d.environment.id}`)).json()) as { state: string };
    expect(after.state).toBe("stopped");
  });
});
