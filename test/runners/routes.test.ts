import { describe, expect, it } from "vitest";
import { request, statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { ciProject, createPipeline, finish, projectRunner, requestJob, type Claimed } from "../pipelines/helpers";
import { compositeStatus } from "../../functions/pipelines/status";

describe("POST /runners, /runners/verify, DELETE /runners", () => {
  it("registers with a registration token, verifies, unregisters", async () => {
    const w = await world();
    const admin = await w.user({ admin: true });
    expect((await w.as(w.stranger).post("/runners/reset_registration_token")).status).toBe(403);
    const reset = await w.as(admin).post("/runners/reset_registration_token");
    const { token: registration } = (await reset.json()) as { token: string };
    expect(registration).toMatch(/^GR1348941/);
    expect(await statusAndBody(await request("POST", "/runners", null, { json: { token: "wrong" } }))).toEqual([403, { message: "403 Forbidden" }]);
    const res = await request("POST", "/runners", null, { json: { token: registration, description: "r", tag_list: "a, b", info: { name: "gitlab-runner", version: "15.4.0" } } });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json");
    const runner = (await res.json()) as { id: number; token: string; token_expires_at: null };
    expect(runner.token).toMatch(/^glrt-/);
    expect(await statusAndBody(await request("POST", "/runners/verify", null, { json: { token: runner.token } }))).toEqual([200, { id: runner.id, token: runner.token, token_expires_at: null }]);
    const shown = (await (await w.as(admin).get(`/runners/${runner.id}`)).json()) as Record<string, unknown>;
    expect(shown).toMatchObject({ id: runner.id, description: "r", tag_list: ["a", "b"], runner_type: "instance_type", is_shared: true, version: "15.4.0" });
    expect((await request("DELETE", "/runners", null, { json: { token: runner.token } })).status).toBe(204);
    expect((await request("POST", "/runners/verify", null, { json: { token: runner.token } })).status).toBe(403);
    expect((await request("POST", "/jobs/request", null, { json: { token: runner.token } })).status).toBe(403);
  });
});

describe("POST /user/runners", () => {
  it("creates project runners for maintainers; instance runners for admins only", async () => {
    const w = await world();
    const dev = await w.user();
    const { api, project } = await ciProject(w, "a:\n  script: x\n", { developers: [dev] });
    const mine = await projectRunner(api, project.id, { tags: ["docker"] });
    expect(mine.token).toMatch(/^glrt-/);
    expect((await w.as(dev).post("/user/runners", { json: { runner_type: "project_type", project_id: project.id } })).status).toBe(403);
    expect((await api.post("/user/runners", { json: { runner_type: "instance_type" } })).status).toBe(403);
    expect(await statusAndBody(await api.post("/user/runners", { json: { runner_type: "other" } }))).toEqual([400, { error: "runner_type does not have a valid value" }]);
    const list = (await (await api.get(`/projects/${project.id}/runners`)).json()) as { id: number }[];
    expect(list.map((r) => r.id)).toContain(mine.id);
    expect((await api.delete(`/runners/${mine.id}`)).status).toBe(204);
    expect((await api.get(`/runners/${mine.id}`)).status).toBe(404);
  });

  it("hands out only jobs whose tags the runner has", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, "a:\n  tags: [gpu]\n  script: x\n");
    const plain = await projectRunner(api, project.id, { tags: ["docker"] });
    const gpu = await projectRunner(api, project.id, { tags: ["gpu", "docker"] });
    await createPipeline(api, project.id);
    expect((await requestJob(plain.token)).status).toBe(204);
    expect((await requestJob(gpu.token)).job?.job_info.name).toBe("a");
  });
});

describe("races through the HTTP entry point", () => {
  it("32 runners polling at once never receive the same job; 32 concurrent updates leave GitLab's composite status", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, "work:\n  parallel: 40\n  script: x\n");
    const runners = [];
    for (let i = 0; i < 32; i++) runners.push(await projectRunner(api, project.id));
    const p = await createPipeline(api, project.id);
    const answers = await Promise.all(runners.map((r) => requestJob(r.token)));
    const jobs = answers.map((a) => a.job).filter((j): j is Claimed => j !== null);
    const ids = jobs.map((j) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(32);

    // Half succeed, a quarter fail, a quarter fail but are allowed to by exit code? No: plain failures.
    const outcomes = jobs.map((j, i) => (i % 4 === 0 ? "failed" : "success") as "failed" | "success");
    const puts = await Promise.all(jobs.map((j, i) => finish(j, outcomes[i], outcomes[i] === "failed" ? { failure_reason: "script_failure", exit_code: 1 } : {})));
    expect(puts.map((r) => r.status)).toEqual(jobs.map(() => 200));

    const all = (await (await api.get(`/projects/${project.id}/pipelines/${p.id}/jobs`, { query: { per_page: 100 } })).json()) as { status: string; allow_failure: boolean }[];
    expect(all).toHaveLength(40);
    const expected = compositeStatus(all.map((j) => ({ status: j.status, allowFailure: j.allow_failure })));
    expect(expected).toBe("running"); // 8 jobs still pending, some failed
    const body = (await (await api.get(`/projects/${project.id}/pipelines/${p.id}`)).json()) as { status: string };
    expect(body.status).toBe(expected);
    expect(all.filter((j) => j.status === "success")).toHaveLength(24);
    expect(all.filter((j) => j.status === "failed")).toHaveLength(8);
  }, 60_000);
});
