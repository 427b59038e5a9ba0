import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { ciProject } from "../helpers/ci";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";

type Dep = { id: number; iid: number; status: string; ref: string; sha: string; environment: { name: string }; user: { id: number } | null; deployable: null };

async function setup() {
  const w = await world();
  const reporter = await w.user();
  const { project, api, sha, owner } = await ciProject(w, "x:\n  script: [x]\n", { reporters: [reporter] });
  const create = async (json: Record<string, unknown>) => {
    const res = await api.post(`/projects/${project.id}/deployments`, { json: { environment: "production", sha, ref: "main", tag: false, status: "success", ...json } });
    expect(res.status).toBe(201);
    return (await res.json()) as Dep;
  };
  return { w, api, project, sha, owner, reporter, create };
}

describe("POST /projects/:id/deployments", () => {
  it("creates the environment and a deployment; a success starts the environment", async () => {
    const { api, project, sha, owner, create } = await setup();
    const d = await create({ status: "running" });
    expect(d).toMatchObject({ iid: 1, status: "running", ref: "main", sha, environment: { name: "production" }, user: { id: owner.id }, deployable: null });
    const envs = (await (await api.get(`/projects/${project.id}/environments`)).json()) as { name: string; tier: string }[];
    expect(envs).toMatchObject([{ name: "production", tier: "production" }]);
    expect((await create({})).iid).toBe(2);
  });

  it("answers 400 for a bad sha, ref, status or environment name", async () => {
    const { api, project, sha } = await setup();
    const post = (json: Record<string, unknown>) => api.post(`/projects/${project.id}/deployments`, { json: { environment: "production", sha, ref: "main", tag: false, status: "success", ...json } });
    expect(await statusAndBody(await post({ sha: "0".repeat(40), ref: "nope" }))).toEqual([
      400,
      { message: { sha: ["The commit does not exist"], ref: ["The branch or tag does not exist"] } },
    ]);
    expect(await statusAndBody(await post({ status: "created" }))).toEqual([400, { error: "status does not have a valid value" }]);
    expect(await statusAndBody(await post({ environment: "/bad" }))).toEqual([
      400,
      { message: { name: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'"] } },
    ]);
  });

  requiresAuthentication((w) => w.anonymous.post(`/projects/1/deployments`, { json: {} }));
  forbidsRoles(["guest", "reporter"], (w, p, user) =>
    w.as(user).post(`/projects/${p.id}/deployments`, { json: { environment: "x", sha: "a", ref: "main", tag: false, status: "success" } }),
  );
  hidesPrivateProject((w, p) => w.as(w.stranger).post(`/projects/${p.id}/deployments`, { json: { environment: "x", sha: "a", ref: "main", tag: false, status: "success" } }));
});

describe("GET /projects/:id/deployments", () => {
  it("lists with filters, sorts and pages; flat statement count", async () => {
    const { w, reporter, project, create } = await setup();
    await create({});
    await create({ environment: "staging", status: "failed" });
    await create({ status: "running" });
    const get = (query: Record<string, string | number>) => w.as(reporter).get(`/projects/${project.id}/deployments`, { query });
    const iids = async (query: Record<string, string | number>) => ((await (await get(query)).json()) as Dep[]).map((d) => d.iid);
    expect(await iids({})).toEqual([1, 2, 3]);
    expect(await iids({ sort: "desc" })).toEqual([3, 2, 1]);
    expect(await iids({ environment: "staging" })).toEqual([2]);
    expect(await iids({ status: "running" })).toEqual([3]);
    expect(await iids({ order_by: "finished_at", status: "success", finished_after: "2000-01-01T00:00:00Z" })).toEqual([1]);
    const one = await get({ per_page: 1 });
    const many = await get({ per_page: 100 });
    expect(one.headers.get("x-total")).toBe("3");
    expect(one.headers.get("x-query-count")).toBe(many.headers.get("x-query-count"));
    expect(await statusAndBody(await get({ finished_after: "2000-01-01T00:00:00Z" }))).toEqual([
      400,
      { message: "400 Bad request - `finished_at` filter and `finished_at` sorting must be paired" },
    ]);
    expect(await statusAndBody(await get({ order_by: "moon" }))).toEqual([400, { error: "order_by does not have a valid value" }]);
  });

  requiresAuthentication((w) => w.anonymous.get(`/projects/1/deployments`));
  forbidsRoles(["guest"], (w, p, user) => w.as(user).get(`/projects/${p.id}/deployments`));
  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/deployments`));
});

describe("GET /projects/:id/deployments/:deployment_id", () => {
  it("shows one; 404 for another project's", async () => {
    const { w, reporter, project, create } = await setup();
    const d = await create({});
    const res = await w.as(reporter).get(`/projects/${project.id}/deployments/${d.id}`);
    expect(await statusAndBody(res)).toEqual([200, d]);
    expect(await statusAndBody(await w.as(reporter).get(`/projects/${project.id}/deployments/999999`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("PUT /projects/:id/deployments/:deployment_id", () => {
  it("moves the status as the state machine allows", async () => {
    const { api, project, create } = await setup();
    const d = await create({ status: "running" });
    const put = (status: string) => api.put(`/projects/${project.id}/deployments/${d.id}`, { json: { status } });
    expect(((await (await put("success")).json()) as Dep).status).toBe("success");
    expect(await statusAndBody(await put("running"))).toEqual([400, { message: { status: ['cannot transition via "run"'] } }]);
  });

  it("answers 403 for a reporter", async () => {
    const { w, reporter, project, create } = await setup();
    const d = await create({});
    expect(await statusAndBody(await w.as(reporter).put(`/projects/${project.id}/deployments/${d.id}`, { json: { status: "failed" } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
  });
});

describe("DELETE /projects/:id/deployments/:deployment_id", () => {
  it("deletes a finished deployment that is not the environment's last; refuses running and last", async () => {
    const { api, project, create } = await setup();
    const first = await create({});
    const running = await create({ status: "running" });
    const last = await create({});
    const del = (id: number) => api.delete(`/projects/${project.id}/deployments/${id}`);
    expect(await statusAndBody(await del(running.id))).toEqual([400, { message: "Cannot destroy running deployment" }]);
    expect(await statusAndBody(await del(last.id))).toEqual([400, { message: "Deployment currently deployed to environment" }]);
    expect((await del(first.id)).status).toBe(204);
    expect((await api.get(`/projects/${project.id}/deployments/${first.id}`)).status).toBe(404);
  });

  it("answers 403 for a reporter", async () => {
    const { w, reporter, project, create } = await setup();
    const d = await create({});
    expect(await statusAndBody(await w.as(reporter).delete(`/projects/${project.id}/deployments/${d.id}`))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("GET /projects/:id/deployments/:deployment_id/merge_requests", () => {
  it("lists nothing for a deployment that did not succeed", async () => {
    const { api, project, create } = await setup();
    const d = await create({ status: "failed" });
    expect(await statusAndBody(await api.get(`/projects/${project.id}/deployments/${d.id}/merge_requests`))).toEqual([200, []]);
  });
});
