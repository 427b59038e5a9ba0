import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";

type Env = { id: number; name: string; slug: string; external_url: string | null; tier: string; state: string; project: { id: number }; last_deployment?: null };

async function setup() {
  const w = await world();
  const dev = await w.user();
  const reporter = await w.user();
  const project = await w.project({ developers: [dev], reporters: [reporter] });
  const create = async (name: string, extra: Record<string, unknown> = {}) => {
    const res = await w.as(dev).post(`/projects/${project.id}/environments`, { json: { name, ...extra } });
    expect(res.status).toBe(201);
    return (await res.json()) as Env;
  };
  return { w, dev, reporter, project, create };
}

describe("POST /projects/:id/environments", () => {
  it("creates with a slug and a guessed tier", async () => {
    const { project, create } = await setup();
    const prod = await create("production", { external_url: "https://example.com" });
    expect(prod).toMatchObject({ name: "production", slug: "production", tier: "production", state: "available", external_url: "https://example.com", project: { id: project.id } });
    const review = await create("review/feature-1");
    expect(review.tier).toBe("development");
    expect(review.slug).toMatch(/^review-feature-1-[0-9a-z]{6}$/);
    expect((await create("qa", { tier: "staging" })).tier).toBe("staging");
  });

  it("answers 400 for a taken or invalid name and a given slug", async () => {
    const { w, dev, project, create } = await setup();
    await create("taken");
    const post = (json: unknown) => w.as(dev).post(`/projects/${project.id}/environments`, { json });
    expect(await statusAndBody(await post({ name: "taken" }))).toEqual([400, { message: { name: ["has already been taken"] } }]);
    expect(await statusAndBody(await post({ name: "/bad" }))).toEqual([
      400,
      { message: { name: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'"] } },
    ]);
    expect(await statusAndBody(await post({ name: "x", slug: "y" }))).toEqual([400, { error: "slug is automatically generated and cannot be changed" }]);
    expect(await statusAndBody(await post({ name: "x", tier: "moon" }))).toEqual([400, { error: "tier does not have a valid value" }]);
  });

  forbidsRoles(["guest", "reporter"], (w, p, user) => w.as(user).post(`/projects/${p.id}/environments`, { json: { name: "x" } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).post(`/projects/${p.id}/environments`, { json: { name: "x" } }));
});

describe("GET /projects/:id/environments", () => {
  it("lists with name, search and states filters; flat statement count", async () => {
    const { w, reporter, project, create } = await setup();
    const prod = await create("production");
    await create("staging");
    await create("review/app");
    await w.as(reporter).get(`/projects/${project.id}/environments`);
    const names = async (query: Record<string, string | number>) =>
      ((await (await w.as(reporter).get(`/projects/${project.id}/environments`, { query })).json()) as Env[]).map((e) => e.name);
    expect(await names({})).toEqual(["production", "staging", "review/app"]);
    expect(await names({ name: "staging" })).toEqual(["staging"]);
    expect(await names({ search: "REV" })).toEqual(["review/app"]);
    await w.root.post(`/projects/${project.id}/environments/${prod.id}/stop`);
    expect(await names({ states: "stopped" })).toEqual(["production"]);
    const one = await w.as(reporter).get(`/projects/${project.id}/environments`, { query: { per_page: 1 } });
    const many = await w.as(reporter).get(`/projects/${project.id}/environments`, { query: { per_page: 100 } });
    expect(one.headers.get("x-total")).toBe("3");
    expect(one.headers.get("x-query-count")).toBe(many.headers.get("x-query-count"));
    expect(Number(many.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    const both = await w.as(reporter).get(`/projects/${project.id}/environments`, { query: { name: "a", search: "b" } });
    expect(await statusAndBody(both)).toEqual([400, { error: "name, search cannot be used together" }]);
  });

  requiresAuthentication((w) => w.anonymous.get(`/projects/1/environments`));
  forbidsRoles(["guest"], (w, p, user) => w.as(user).get(`/projects/${p.id}/environments`));
  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/environments`));
});

describe("GET /projects/:id/environments/:environment_id", () => {
  it("reads one with last_deployment; 404 for another project's", async () => {
    const { w, reporter, project, create } = await setup();
    const env = await create("production");
    expect(await (await w.as(reporter).get(`/projects/${project.id}/environments/${env.id}`)).json()).toMatchObject({ id: env.id, last_deployment: null });
    const other = await w.project({ reporters: [reporter] });
    expect(await statusAndBody(await w.as(reporter).get(`/projects/${other.id}/environments/${env.id}`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("PUT /projects/:id/environments/:environment_id", () => {
  it("changes external_url, tier and name", async () => {
    const { w, dev, project, create } = await setup();
    const env = await create("staging");
    const res = await w.as(dev).put(`/projects/${project.id}/environments/${env.id}`, { json: { external_url: "https://s.example.com", tier: "testing", name: "stage" } });
    expect(await res.json()).toMatchObject({ id: env.id, name: "stage", slug: env.slug, external_url: "https://s.example.com", tier: "testing" });
  });

  forbidsRoles(["reporter"], (w, p, user) => w.as(user).put(`/projects/${p.id}/environments/1`, { json: { tier: "other" } }));
});

describe("POST /projects/:id/environments/:environment_id/stop", () => {
  it("stops; a reporter's stop changes nothing (StopService)", async () => {
    const { w, dev, reporter, project, create } = await setup();
    const env = await create("production");
    expect(await (await w.as(reporter).post(`/projects/${project.id}/environments/${env.id}/stop`)).json()).toMatchObject({ state: "available" });
    expect(await (await w.as(dev).post(`/projects/${project.id}/environments/${env.id}/stop`)).json()).toMatchObject({ state: "stopped" });
  });
});

describe("DELETE /projects/:id/environments/:environment_id", () => {
  it("deletes a stopped environment (204); 403 while available", async () => {
    const { w, dev, project, create } = await setup();
    const env = await create("production");
    expect(await statusAndBody(await w.as(dev).delete(`/projects/${project.id}/environments/${env.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    await w.as(dev).post(`/projects/${project.id}/environments/${env.id}/stop`);
    expect((await w.as(dev).delete(`/projects/${project.id}/environments/${env.id}`)).status).toBe(204);
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/environments/${env.id}`))).toEqual([404, { message: "404 Not found" }]);
  });
});
