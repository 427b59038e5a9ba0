import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bindings } from "../../functions/kernel/env";
import { runDueSchedules } from "../../functions/pipeline_schedules/services";
import { statusAndBody, type Client } from "../helpers/client";
import { world, type TestProject, type TestUser, type World } from "../helpers/world";
import { ciProject } from "../helpers/ci";

type Json = Record<string, any>;

let w: World;
let developer: TestUser;
let reporter: TestUser;
let project: TestProject;
let api: Client;
let url: string;

beforeAll(async () => {
  w = await world();
  developer = await w.user();
  reporter = await w.user();
  ({ project, api } = await ciProject(w, "job:\n  script: [echo hi]\n", { developers: [developer], reporters: [reporter] }));
  url = `/projects/${project.id}/pipeline_schedules`;
});

describe("POST /projects/:id/pipeline_schedules", () => {
  it("creates with the caller as owner and next_run_at from the cron line", async () => {
    const res = await w.as(developer).post(url, { json: { description: "nightly", ref: "main", cron: "0 1 * * *", cron_timezone: "Europe/Berlin" } });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(201);
    expect(body).toMatchObject({ description: "nightly", ref: "main", cron: "0 1 * * *", cron_timezone: "Europe/Berlin", active: true, owner: { id: developer.id }, last_pipeline: null, variables: [] });
    expect(new Date(body.next_run_at).getUTCHours()).toBe(0); // 01:00 in Berlin (winter) is 00:00 UTC
  });

  it("answers GitLab's 400 bodies and is for developers", async () => {
    expect(await statusAndBody(await api.post(url, { json: {} }))).toEqual([400, { error: "description is missing, ref is missing, cron is missing" }]);
    expect(await statusAndBody(await api.post(url, { json: { description: "x", ref: "main", cron: "bad cron" } }))).toEqual([400, { message: { cron: [" is invalid syntax"] } }]);
    expect(await statusAndBody(await api.post(url, { json: { description: "x", ref: "main", cron: "* * * * *", cron_timezone: "Mars/Base" } }))).toEqual([400, { message: { cron_timezone: [" is invalid syntax"] } }]);
    expect((await w.as(reporter).post(url, { json: { description: "x", ref: "main", cron: "* * * * *" } })).status).toBe(403);
    expect((await w.anonymous.post(url, { json: { description: "x", ref: "main", cron: "* * * * *" } })).status).toBe(401);
  });
});

describe("GET, PUT, take_ownership, variables, play, DELETE", () => {
  it("follows the schedule policy and runs pipelines with the schedule's variables", async () => {
    const created = (await (await w.as(developer).post(url, { json: { description: "s", ref: "main", cron: "*/5 * * * *" } })).json()) as Json;
    const one = `${url}/${created.id}`;
    // Reporters read; list with scope.
    const list = await w.as(reporter).get(url, { query: { scope: "active" } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as Json[]).some((s) => s.id === created.id)).toBe(true);
    expect(((await (await w.as(reporter).get(url, { query: { scope: "inactive" } })).json()) as Json[]).length).toBe(0);
    expect(await statusAndBody(await api.get(`${url}/999999`))).toEqual([404, { message: "404 Pipeline Schedule Not Found" }]);
    // Only the owner updates; a maintainer takes ownership first.
    expect((await api.put(one, { json: { description: "mine" } })).status).toBe(403);
    expect((await w.as(developer).post(`${one}/take_ownership`)).status).toBe(403);
    expect(((await (await w.as(developer).put(one, { json: { description: "renamed" } })).json()) as Json).description).toBe("renamed");
    const taken = await api.post(`${one}/take_ownership`);
    expect(taken.status).toBe(201);
    const owner = ((await taken.json()) as Json).owner;
    expect(owner.id).not.toBe(developer.id);
    // Variables.
    const v = await api.post(`${one}/variables`, { json: { key: "NIGHTLY", value: "yes" } });
    expect(await statusAndBody(v)).toEqual([201, { variable_type: "env_var", key: "NIGHTLY", value: "yes" }]);
    expect(await statusAndBody(await api.post(`${one}/variables`, { json: { key: "NIGHTLY", value: "again" } }))).toEqual([400, { message: { key: ["has already been taken"] } }]);
    expect(((await (await api.put(`${one}/variables/NIGHTLY`, { json: { value: "sure" } })).json()) as Json).value).toBe("sure");
    expect(await statusAndBody(await api.put(`${one}/variables/NOPE`, { json: { value: "x" } }))).toEqual([404, { message: "404 Pipeline Schedule Variable Not Found" }]);
    expect((await w.as(reporter).post(`${one}/variables`, { json: { key: "X", value: "y" } })).status).toBe(403);
    // Play: a `schedule` pipeline with the variables; it becomes the last pipeline.
    expect(await statusAndBody(await w.as(developer).post(`${one}/play`))).toEqual([201, { message: "201 Created" }]);
    const details = (await (await api.get(one)).json()) as Json;
    expect(details.last_pipeline).toMatchObject({ ref: "main", source: "schedule" });
    expect(details.variables).toEqual([{ variable_type: "env_var", key: "NIGHTLY", value: "sure" }]);
    const vars = (await (await api.get(`/projects/${project.id}/pipelines/${details.last_pipeline.id}/variables`)).json()) as Json[];
    expect(vars).toEqual([{ variable_type: "env_var", key: "NIGHTLY", value: "sure" }]);
    expect(await statusAndBody(await api.delete(`${one}/variables/NIGHTLY`))).toEqual([202, { variable_type: "env_var", key: "NIGHTLY", value: "sure" }]);
    // The cron trigger runs due schedules once and moves next_run_at forward.
    const later = new Date(Date.now() + 3600_000);
    const ran = await runDueSchedules(env as unknown as Bindings, later);
    expect(ran.length).toBeGreaterThanOrEqual(1);
    const after = (await (await api.get(one)).json()) as Json;
    expect(after.last_pipeline.id).toBeGreaterThan(details.last_pipeline.id);
    expect(new Date(after.next_run_at).getTime()).toBeGreaterThan(later.getTime());
    expect(await runDueSchedules(env as unknown as Bindings, later)).toEqual([]);
    // Delete: the owner or a maintainer.
    expect((await w.as(reporter).delete(one)).status).toBe(403);
    expect((await api.delete(one)).status).toBe(204);
    expect((await api.get(one)).status).toBe(404);
  });
});
