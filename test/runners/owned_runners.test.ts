// GET /runners (owned runners and the filters of lib/api/ci/runners.rb) and the two ways to reset a
// runner's authentication token: by id (its managers) and by the current token (the runner itself).
import { describe, expect, it } from "vitest";
import { request, statusAndBody } from "../helpers/client";
import { projectRunner, requestJob } from "../helpers/ci";
import { world } from "../helpers/world";

const ids = async (res: Response) => ((await res.json()) as { id: number }[]).map((r) => r.id);

describe("GET /runners", () => {
  it("lists the runners of the projects the caller maintains and the groups the caller owns, newest first", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const subgroup = await w.group({ parent: group });
    const project = await w.project({ owner });
    const api = w.as(owner);
    const projectOne = await projectRunner(api, project.id);
    const groupOne = (await (await api.post("/user/runners", { json: { runner_type: "group_type", group_id: subgroup.id } })).json()) as { id: number };
    // An instance runner and another user's project runner are not owned.
    await w.root.post("/user/runners", { json: { runner_type: "instance_type" } });
    const stranger = await w.user();
    await projectRunner(w.as(stranger), (await w.project({ owner: stranger })).id);
    const res = await api.get("/runners");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("2");
    expect(await ids(res)).toEqual([groupOne.id, projectOne.id]);
    const [listed] = (await (await api.get("/runners?type=project_type")).json()) as Record<string, unknown>[];
    expect(listed).toMatchObject({ id: projectOne.id, runner_type: "project_type", is_shared: false, status: "never_contacted" });
    expect(await ids(await api.get("/runners?per_page=1&page=2"))).toEqual([projectOne.id]);
  });

  it("filters by scope, type, status, paused and tag_list", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const api = w.as(owner);
    const tagged = await projectRunner(api, project.id, { tags: ["linux", "docker"] });
    const paused = await projectRunner(api, project.id);
    const contacted = await projectRunner(api, project.id);
    expect((await api.put(`/runners/${paused.id}`, { json: { paused: true } })).status).toBe(200);
    await requestJob(contacted.token);
    expect(await ids(await api.get("/runners?status=online"))).toEqual([contacted.id]);
    expect(await ids(await api.get("/runners?scope=online"))).toEqual([contacted.id]);
    expect(await ids(await api.get("/runners?status=never_contacted"))).toEqual([paused.id, tagged.id]);
    expect(await ids(await api.get("/runners?scope=paused"))).toEqual([paused.id]);
    expect(await ids(await api.get("/runners?paused=false"))).toEqual([contacted.id, tagged.id]);
    expect(await ids(await api.get("/runners?tag_list=docker,linux"))).toEqual([tagged.id]);
    expect(await ids(await api.get("/runners?type=group_type"))).toEqual([]);
    expect(await ids(await api.get("/runners?status=stale"))).toEqual([]);
  });

  it("answers GitLab's 400 bodies and 401 without a user", async () => {
    const w = await world();
    const api = w.as(await w.user());
    expect(await statusAndBody(await api.get("/runners?scope=shared"))).toEqual([400, { error: "scope does not have a valid value" }]);
    expect(await statusAndBody(await api.get("/runners?status=busy"))).toEqual([400, { error: "status does not have a valid value" }]);
    expect(await statusAndBody(await api.get("/runners?type=shared"))).toEqual([400, { error: "type does not have a valid value" }]);
    expect((await request("GET", "/runners", null)).status).toBe(401);
    // `shared` is a scope of the admin's list.
    expect((await w.root.get("/runners/all?scope=shared")).status).toBe(200);
  });
});

describe("POST /runners/:id/reset_authentication_token", () => {
  it("gives the runner a new token for its maintainers (201); the old one stops working", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const api = w.as(owner);
    const runner = await projectRunner(api, project.id);
    const res = await api.post(`/runners/${runner.id}/reset_authentication_token`);
    expect(res.status).toBe(201);
    const body = (await res.json()) as { token: string; token_expires_at: null };
    expect(body).toEqual({ token: expect.stringMatching(/^glrt-/), token_expires_at: null });
    expect((await request("POST", "/runners/verify", null, { json: { token: runner.token } })).status).toBe(403);
    expect(await statusAndBody(await request("POST", "/runners/verify", null, { json: { token: body.token } }))).toEqual([200, { id: runner.id, token: body.token, token_expires_at: null }]);
  });

  it("403 for developers and for instance runners of non-admins, 404 unknown, 401 anonymous", async () => {
    const w = await world();
    const owner = await w.user();
    const dev = await w.user();
    const project = await w.project({ owner, developers: [dev] });
    const runner = await projectRunner(w.as(owner), project.id);
    expect(await statusAndBody(await w.as(dev).post(`/runners/${runner.id}/reset_authentication_token`))).toEqual([403, { message: "403 Forbidden - No access granted" }]);
    const instance = (await (await w.root.post("/user/runners", { json: { runner_type: "instance_type" } })).json()) as { id: number };
    expect((await w.as(owner).post(`/runners/${instance.id}/reset_authentication_token`)).status).toBe(403);
    expect((await w.root.post(`/runners/${instance.id}/reset_authentication_token`)).status).toBe(201);
    expect(await statusAndBody(await w.as(owner).post("/runners/999999999/reset_authentication_token"))).toEqual([404, { message: "404 Runner Not Found" }]);
    expect((await request("POST", `/runners/${runner.id}/reset_authentication_token`, null)).status).toBe(401);
  });
});

describe("POST /runners/reset_authentication_token", () => {
  it("swaps the runner's current token for a new one; an unknown token is 403; a missing one 400", async () => {
    const w = await world();
    const owner = await w.user();
    const runner = await projectRunner(w.as(owner), (await w.project({ owner })).id);
    const res = await request("POST", "/runners/reset_authentication_token", null, { json: { token: runner.token } });
    expect(res.status).toBe(201);
    const { token } = (await res.json()) as { token: string };
    expect(token).not.toBe(runner.token);
    expect((await request("POST", "/runners/verify", null, { json: { token } })).status).toBe(200);
    expect(await statusAndBody(await request("POST", "/runners/reset_authentication_token", null, { json: { token: runner.token } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await request("POST", "/runners/reset_authentication_token", null, { json: {} }))).toEqual([400, { error: "token is missing" }]);
  });
});
