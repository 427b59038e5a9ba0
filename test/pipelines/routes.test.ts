import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { ciProject, claim, createPipeline, eventually, finish, patchTrace, projectRunner, requestJob } from "../helpers/ci";

const TWO_STAGES = `
stages: [build, test]
build:
  stage: build
  script: [echo build]
test:
  stage: test
  script: [echo test]
`;

describe("POST /projects/:id/pipeline", () => {
  it("creates a pipeline that shows pending, with its variables", async () => {
    const w = await world();
    const { api, project, sha } = await ciProject(w, TWO_STAGES);
    const body = await createPipeline(api, project.id, "main", [{ key: "DEPLOY", value: "yes" }]);
    expect(body).toMatchObject({ project_id: project.id, ref: "main", sha, status: "pending", source: "api", tag: false, yaml_errors: null, iid: 1 });
    expect(body.user).toMatchObject({ username: expect.any(String) });
    const vars = await api.get(`/projects/${project.id}/pipelines/${body.id}/variables`);
    expect(await vars.json()).toEqual([{ variable_type: "env_var", key: "DEPLOY", value: "yes" }]);
    const jobs = (await (await api.get(`/projects/${project.id}/pipelines/${body.id}/jobs`)).json()) as { name: string; status: string }[];
    expect(jobs.map((j) => [j.name, j.status])).toEqual([
      ["test", "created"],
      ["build", "pending"],
    ]);
  });

  it("answers GitLab's 400 bodies", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, TWO_STAGES);
    expect(await statusAndBody(await api.post(`/projects/${project.id}/pipeline`, { json: { ref: "nope" } }))).toEqual([400, { message: { base: ["Reference not found"] } }]);
    expect(await statusAndBody(await api.post(`/projects/${project.id}/pipeline`, { json: {} }))).toEqual([400, { error: "ref is missing" }]);
    await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "broken", start_branch: "main", commit_message: "break [skip ci]", actions: [{ action: "update", file_path: ".gitlab-ci.yml", content: "job:\n  stage: nope\n  script: x\n" }] },
    });
    expect(await statusAndBody(await api.post(`/projects/${project.id}/pipeline`, { json: { ref: "broken" } }))).toEqual([
      400,
      { message: { base: ["job job: chosen stage does not exist; available stages are .pre, build, test, deploy, .post"] } },
    ]);
    const list = (await (await api.get(`/projects/${project.id}/pipelines`)).json()) as unknown[];
    expect(list).toEqual([]);
  });

  it("needs developer access", async () => {
    const w = await world();
    const reporter = await w.user();
    const { project } = await ciProject(w, TWO_STAGES, { reporters: [reporter] });
    expect(await statusAndBody(await w.as(reporter).post(`/projects/${project.id}/pipeline`, { json: { ref: "main" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(`/projects/${project.id}/pipeline`, { json: { ref: "main" } }))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("GET /projects/:id/pipelines", () => {
  it("filters, orders and paginates with a flat statement count", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, TWO_STAGES);
    const a = await createPipeline(api, project.id);
    const b = await createPipeline(api, project.id);
    await api.post(`/projects/${project.id}/pipelines/${a.id}/cancel`);
    const ids = async (query: Record<string, string>) => ((await (await api.get(`/projects/${project.id}/pipelines`, { query })).json()) as { id: number }[]).map((p) => p.id);
    expect(await ids({})).toEqual([b.id, a.id]);
    expect(await ids({ sort: "asc" })).toEqual([a.id, b.id]);
    expect(await ids({ status: "canceled" })).toEqual([a.id]);
    expect(await ids({ scope: "finished" })).toEqual([a.id]);
    expect(await ids({ scope: "branches" })).toEqual([b.id]);
    expect(await ids({ scope: "tags" })).toEqual([]);
    expect(await ids({ ref: "other" })).toEqual([]);
    expect(await ids({ yaml_errors: "true" })).toEqual([]);
    expect(await ids({ source: "api" })).toEqual([b.id, a.id]);
    const one = await api.get(`/projects/${project.id}/pipelines`, { query: { per_page: 1 } });
    const many = await api.get(`/projects/${project.id}/pipelines`, { query: { per_page: 100 } });
    expect(one.headers.get("X-Total")).toBe("2");
    expect(one.headers.get("X-Query-Count")).toBe(many.headers.get("X-Query-Count"));
    expect(Number(one.headers.get("X-Query-Count"))).toBeLessThanOrEqual(6);
    expect(await statusAndBody(await api.get(`/projects/${project.id}/pipelines`, { query: { scope: "bad" } }))).toEqual([400, { error: "scope does not have a valid value" }]);
  });
});

describe("GET /projects/:id/pipelines/:pipeline_id", () => {
  it("shows the full pipeline; unknown ids are 404 Not found", async () => {
    const w = await world();
    const { api, project, sha } = await ciProject(w, TWO_STAGES);
    const p = await createPipeline(api, project.id);
    const body = (await (await api.get(`/projects/${project.id}/pipelines/${p.id}`)).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ id: p.id, sha, before_sha: "0000000000000000000000000000000000000000", status: "pending", coverage: null, committed_at: expect.any(String) });
    expect(await statusAndBody(await api.get(`/projects/${project.id}/pipelines/999999999`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("DELETE /projects/:id/pipelines/:pipeline_id", () => {
  it("answers 204 for owners, 403 for developers", async () => {
    const w = await world();
    const dev = await w.user();
    const { api, project } = await ciProject(w, TWO_STAGES, { developers: [dev] });
    const p = await createPipeline(api, project.id);
    expect((await w.as(dev).delete(`/projects/${project.id}/pipelines/${p.id}`)).status).toBe(403);
    expect((await api.delete(`/projects/${project.id}/pipelines/${p.id}`)).status).toBe(204);
    expect((await api.get(`/projects/${project.id}/pipelines/${p.id}`)).status).toBe(404);
  });
});

describe("runner protocol through a pipeline", () => {
  it("runs build then test: claim, trace, finish, composite status", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, TWO_STAGES);
    const runner = await projectRunner(api, project.id);
    const p = await createPipeline(api, project.id);
    const build = await claim(runner.token);
    expect(build.job_info).toMatchObject({ name: "build", stage: "build", pipeline_id: p.id });
    expect(build.token).toMatch(/^glcbt-/);
    const vars = Object.fromEntries(build.variables.map((v) => [v.key, v.value]));
    expect(vars).toMatchObject({ CI: "true", CI_JOB_NAME: "build", CI_COMMIT_REF_NAME: "main", CI_PIPELINE_SOURCE: "api", CI_PROJECT_ID: String(project.id) });
    expect(build.steps[0].script).toEqual(["echo build"]);

    // Nothing else to take while build runs; X-GitLab-Last-Update comes back.
    const idle = await requestJob(runner.token);
    expect(idle.status).toBe(204);
    expect(idle.lastUpdate).toMatch(/^\d+$/);

    const first = await patchTrace(build, 0, "hello ");
    expect(first.status).toBe(202);
    expect(first.headers.get("Range")).toBe("0-6");
    const gap = await patchTrace(build, 10, "x");
    expect(gap.status).toBe(416);
    expect(gap.headers.get("Range")).toBe("0-6");
    expect((await patchTrace(build, 6, "world\n")).status).toBe(202);

    const running = (await (await api.get(`/projects/${project.id}/pipelines/${p.id}`)).json()) as { status: string };
    expect(running.status).toBe("running");
    expect((await finish(build, "success")).status).toBe(200);
    const again = await finish(build, "success");
    expect(again.status).toBe(403);
    expect(again.headers.get("Job-Status")).toBe("success");

    const trace = await api.get(`/projects/${project.id}/jobs/${build.id}/trace`);
    expect(await trace.text()).toBe("hello world\n");

    const test = await claim(runner.token);
    expect(test.job_info.name).toBe("test");
    await finish(test, "failed", { failure_reason: "script_failure", exit_code: 1 });
    const done = await eventually(
      async () => (await (await api.get(`/projects/${project.id}/pipelines/${p.id}`)).json()) as { status: string; finished_at: string | null },
      (b) => b.status === "failed",
    );
    expect(done.status).toBe("failed");
    expect(done.finished_at).not.toBeNull();
    const jobs = (await (await api.get(`/projects/${project.id}/jobs`)).json()) as { id: number; name: string; status: string; failure_reason?: string }[];
    expect(jobs.map((j) => [j.name, j.status, j.failure_reason])).toEqual([
      ["test", "failed", "script_failure"],
      ["build", "success", undefined],
    ]);

    // Retry the pipeline: the failed job is cloned and pending again.
    const retried = await api.post(`/projects/${project.id}/pipelines/${p.id}/retry`);
    expect(retried.status).toBe(201);
    expect(((await retried.json()) as { status: string }).status).toBe("running");
    const all = (await (await api.get(`/projects/${project.id}/pipelines/${p.id}/jobs`, { query: { include_retried: true } })).json()) as { name: string; status: string }[];
    expect(all.map((j) => [j.name, j.status])).toEqual([
      ["test", "pending"],
      ["test", "failed"],
      ["build", "success"],
    ]);
    const latest = (await (await api.get(`/projects/${project.id}/pipelines/${p.id}/jobs`, { query: { "scope[]": ["pending", "success"] } })).json()) as { name: string }[];
    expect(latest.map((j) => j.name)).toEqual(["test", "build"]);
  });
});

describe("GET /projects/:id/pipelines/latest", () => {
  it("shows the newest pipeline of the ref at its current commit; none is 403", async () => {
    const w = await world();
    const reporter = await w.user();
    const { api, project, sha } = await ciProject(w, TWO_STAGES, { reporters: [reporter] });
    expect(await statusAndBody(await api.get(`/projects/${project.id}/pipelines/latest`))).toEqual([403, { message: "403 Forbidden" }]);
    await createPipeline(api, project.id);
    const b = await createPipeline(api, project.id);
    const latest = (await (await w.as(reporter).get(`/projects/${project.id}/pipelines/latest`)).json()) as Record<string, unknown>;
    expect(latest).toMatchObject({ id: b.id, sha, ref: "main", detailed_status: expect.objectContaining({ group: "pending" }) });
    await api.post(`/projects/${project.id}/repository/branches`, { json: { branch: "other", ref: "main" } });
    const other = await createPipeline(api, project.id, "other");
    expect(((await (await api.get(`/projects/${project.id}/pipelines/latest`, { query: { ref: "other" } })).json()) as { id: number }).id).toBe(other.id);
    // A new commit on main: its pipeline is not the commit's, so there is no latest.
    await api.post(`/projects/${project.id}/repository/commits`, { json: { branch: "main", commit_message: "more [skip ci]", actions: [{ action: "create", file_path: "x", content: "x" }] } });
    expect((await api.get(`/projects/${project.id}/pipelines/latest`)).status).toBe(403);
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/pipelines/latest`))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});
