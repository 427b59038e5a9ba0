import { describe, expect, it } from "vitest";
import { request, statusAndBody } from "../helpers/client";
import { ciProject, claim, createPipeline, finish, projectRunner } from "../helpers/ci";
import { world } from "../helpers/world";

const ONE_JOB = "build:\n  script: [make]\n";

/** A group runner registered with the group's registration token. */
async function groupRunner(api: ReturnType<Awaited<ReturnType<typeof world>>["as"]>, groupId: number) {
  const reset = await api.post(`/groups/${groupId}/runners/reset_registration_token`);
  expect(reset.status).toBe(201);
  const { token } = (await reset.json()) as { token: string };
  const res = await request("POST", "/runners", null, { json: { token, description: "group runner" } });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: number; token: string };
}

describe("PUT /runners/:id", () => {
  it("updates a project runner for its maintainers and shows the details", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, ONE_JOB);
    const runner = await projectRunner(api, project.id);
    const res = await api.put(`/runners/${runner.id}`, { json: { description: "renamed", paused: true, tag_list: "a,b", run_untagged: false, locked: true, access_level: "ref_protected", maximum_timeout: 3600 } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: runner.id, description: "renamed", paused: true, active: false, tag_list: ["a", "b"], run_untagged: false, locked: true, access_level: "ref_protected", maximum_timeout: 3600 });
    expect(await (await api.put(`/runners/${runner.id}`, { json: { active: true } })).json()).toMatchObject({ active: true, paused: false });
  });

  it("answers GitLab's 400 bodies", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, ONE_JOB);
    const runner = await projectRunner(api, project.id);
    expect(await statusAndBody(await api.put(`/runners/${runner.id}`, { json: {} }))).toEqual([
      400,
      { error: "description, active, paused, tag_list, run_untagged, locked, access_level, maximum_timeout are missing, at least one parameter must be provided" },
    ]);
    expect(await statusAndBody(await api.put(`/runners/${runner.id}`, { json: { active: true, paused: false } }))).toEqual([400, { error: "active, paused are mutually exclusive" }]);
    expect(await statusAndBody(await api.put(`/runners/${runner.id}`, { json: { maximum_timeout: 60 } }))).toEqual([400, { message: { maximum_timeout: ["needs to be at least 10 minutes"] } }]);
    expect(await statusAndBody(await api.put(`/runners/${runner.id}`, { json: { run_untagged: false } }))).toEqual([
      400,
      { message: { tags_list: ["can not be empty when runner is not allowed to pick untagged jobs"] } },
    ]);
    expect(await statusAndBody(await api.put(`/runners/${runner.id}`, { json: { access_level: "all" } }))).toEqual([400, { error: "access_level does not have a valid value" }]);
  });

  it("is refused to developers (403), for instance runners to non-admins (403), unknown runners 404", async () => {
    const w = await world();
    const dev = await w.user();
    const { api, project } = await ciProject(w, ONE_JOB, { developers: [dev] });
    const runner = await projectRunner(api, project.id);
    expect(await statusAndBody(await w.as(dev).put(`/runners/${runner.id}`, { json: { description: "x" } }))).toEqual([403, { message: "403 Forbidden - No access granted" }]);
    const instance = (await (await w.root.post("/user/runners", { json: { runner_type: "instance_type" } })).json()) as { id: number };
    expect(await statusAndBody(await api.put(`/runners/${instance.id}`, { json: { description: "x" } }))).toEqual([403, { message: "403 Forbidden - Runner is instance type" }]);
    expect((await w.root.put(`/runners/${instance.id}`, { json: { description: "shared" } })).status).toBe(200);
    // Instance runners are shown to every signed-in user.
    expect((await w.as(dev).get(`/runners/${instance.id}`)).status).toBe(200);
    expect(await statusAndBody(await api.put(`/runners/999999999`, { json: { description: "x" } }))).toEqual([404, { message: "404 Runner Not Found" }]);
    expect((await request("PUT", `/runners/${runner.id}`, null, { json: { description: "x" } })).status).toBe(401);
  });
});

describe("GET /runners/:id/jobs", () => {
  it("lists the runner's jobs with their projects, filtered by status, paginated", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, ONE_JOB);
    const runner = await projectRunner(api, project.id);
    await createPipeline(api, project.id);
    const first = await claim(runner.token);
    await finish(first, "success");
    await createPipeline(api, project.id);
    const second = await claim(runner.token);
    const res = await api.get(`/runners/${runner.id}/jobs`, { query: { per_page: 1 } });
    expect(res.headers.get("X-Total")).toBe("2");
    const [top] = (await res.json()) as Record<string, unknown>[];
    expect(top).toMatchObject({ id: second.id, status: "running", name: "build", project: { id: project.id, path_with_namespace: project.fullPath } });
    const ids = async (query: Record<string, string>) => ((await (await api.get(`/runners/${runner.id}/jobs`, { query })).json()) as { id: number }[]).map((j) => j.id);
    expect(await ids({ status: "success" })).toEqual([first.id]);
    expect(await ids({ sort: "asc" })).toEqual([first.id, second.id]);
    expect(await statusAndBody(await api.get(`/runners/${runner.id}/jobs`, { query: { status: "nope" } }))).toEqual([400, { error: "status does not have a valid value" }]);
  });

  it("is refused to non-maintainers (403)", async () => {
    const w = await world();
    const dev = await w.user();
    const { api, project } = await ciProject(w, ONE_JOB, { developers: [dev] });
    const runner = await projectRunner(api, project.id);
    expect(await statusAndBody(await w.as(dev).get(`/runners/${runner.id}/jobs`))).toEqual([403, { message: "403 Forbidden - No access granted" }]);
    expect((await w.root.get(`/runners/${runner.id}/jobs`)).status).toBe(200);
  });
});

describe("GET /groups/:id/runners and POST /groups/:id/runners/reset_registration_token", () => {
  it("registers group runners with the group's token and lists them with the instance's, for owners", async () => {
    const w = await world();
    const owner = await w.user();
    const maintainer = await w.user();
    const parent = await w.group({ owners: [owner] });
    const child = await w.group({ parent, owners: [owner], maintainers: [maintainer] });
    const api = w.as(owner);
    const parentRunner = await groupRunner(api, parent.id);
    const childRunner = await groupRunner(api, child.id);
    const shown = (await (await api.get(`/runners/${childRunner.id}`)).json()) as Record<string, unknown>;
    expect(shown).toMatchObject({ runner_type: "group_type" });
    const ids = ((await (await api.get(`/groups/${child.id}/runners`, { query: { type: "group_type" } })).json()) as { id: number }[]).map((r) => r.id);
    expect(ids).toEqual([childRunner.id, parentRunner.id]);
    const parentIds = ((await (await api.get(`/groups/${parent.id}/runners`, { query: { type: "group_type" } })).json()) as { id: number }[]).map((r) => r.id);
    expect(parentIds).toEqual([parentRunner.id]);
    expect(await statusAndBody(await w.as(maintainer).get(`/groups/${child.id}/runners`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(maintainer).post(`/groups/${child.id}/runners/reset_registration_token`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${child.id}/runners`))).toEqual([404, { message: "404 Group Not Found" }]);
    expect(await statusAndBody(await api.get(`/groups/${child.id}/runners`, { query: { type: "bad" } }))).toEqual([400, { error: "type does not have a valid value" }]);
  });
});

describe("POST /projects/:id/runners", () => {
  it("enables a project runner the maintainer owns elsewhere; twice is a 400", async () => {
    const w = await world();
    const owner = await w.user();
    const a = await w.project({ owner });
    const b = await w.project({ owner });
    const api = w.as(owner);
    const runner = await projectRunner(api, a.id);
    const res = await api.post(`/projects/${b.id}/runners`, { json: { runner_id: runner.id } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ id: runner.id, runner_type: "project_type" });
    const shown = (await (await api.get(`/runners/${runner.id}`)).json()) as { projects: { id: number }[] };
    expect(shown.projects.map((p) => p.id).sort()).toEqual([a.id, b.id].sort());
    expect(await statusAndBody(await api.post(`/projects/${b.id}/runners`, { json: { runner_id: runner.id } }))).toEqual([400, { message: { assign_to: ["Validation failed: Runner has already been taken"] } }]);
  });

  it("refuses group runners, locked runners, runners the caller does not own, and bad input", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const mine = await w.project({ owner });
    const theirs = await w.project();
    const api = w.as(owner);
    const gr = await groupRunner(api, group.id);
    expect(await statusAndBody(await api.post(`/projects/${mine.id}/runners`, { json: { runner_id: gr.id } }))).toEqual([403, { message: "403 Forbidden - Runner is a group runner" }]);
    const other = await projectRunner(w.root, theirs.id);
    expect(await statusAndBody(await api.post(`/projects/${mine.id}/runners`, { json: { runner_id: other.id } }))).toEqual([403, { message: "403 Forbidden - No access granted" }]);
    const own = await projectRunner(api, mine.id);
    const second = await w.project({ owner });
    await api.put(`/runners/${own.id}`, { json: { locked: true } });
    expect(await statusAndBody(await api.post(`/projects/${second.id}/runners`, { json: { runner_id: own.id } }))).toEqual([403, { message: "403 Forbidden - Runner is locked" }]);
    expect(await statusAndBody(await api.post(`/projects/${mine.id}/runners`, { json: {} }))).toEqual([400, { error: "runner_id is missing" }]);
    expect(await statusAndBody(await api.post(`/projects/${mine.id}/runners`, { json: { runner_id: 999999999 } }))).toEqual([404, { message: "404 Runner Not Found" }]);
    expect(await statusAndBody(await api.post(`/projects/${theirs.id}/runners`, { json: { runner_id: own.id } }))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("DELETE /projects/:id/runners/:runner_id", () => {
  it("disables the runner in one project, never its last one", async () => {
    const w = await world();
    const owner = await w.user();
    const dev = await w.user();
    const a = await w.project({ owner, developers: [dev] });
    const b = await w.project({ owner });
    const api = w.as(owner);
    const runner = await projectRunner(api, a.id);
    await api.post(`/projects/${b.id}/runners`, { json: { runner_id: runner.id } });
    expect(await statusAndBody(await w.as(dev).delete(`/projects/${a.id}/runners/${runner.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await api.delete(`/projects/${a.id}/runners/${runner.id}`)).status).toBe(204);
    expect(await statusAndBody(await api.delete(`/projects/${a.id}/runners/${runner.id}`))).toEqual([404, { message: "404 Runner Not Found" }]);
    expect(await statusAndBody(await api.delete(`/projects/${b.id}/runners/${runner.id}`))).toEqual([
      403,
      { message: "403 Forbidden - Only one project associated with the runner. Please remove the runner instead" },
    ]);
  });
});
