import { describe, expect, it } from "vitest";
import { transition } from "../../functions/shared/ci/commit_status";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { smallRepo } from "../helpers/commits";
import { mergeFixture } from "../helpers/api";
import { ciProject, createPipeline, eventually } from "../helpers/ci";

type Json = Record<string, any>;
const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

describe("commit status transitions", () => {
  it("follows GitLab's state machine, with its InvalidTransition wording", () => {
    expect(transition("created", "running")).toEqual({ ok: true, status: "running", started: true, finished: false });
    expect(transition("pending", "success")).toEqual({ ok: true, status: "success", started: false, finished: true });
    expect(transition("pending", "pending")).toEqual({
      ok: false,
      message: 'Cannot transition status via :enqueue from :pending (Reason(s): Status cannot transition via "enqueue")',
    });
    expect(transition("running", "running")).toMatchObject({ ok: false, message: expect.stringContaining(":run from :running") });
  });
});

describe("POST /projects/:id/statuses/:sha", () => {
  it("creates a status on the first branch holding the commit, then moves the open one", async () => {
    const w = await world();
    const { api, project, owner, commits } = await smallRepo(w);
    const sha = commits[0].id;
    const res = await api.post(`/projects/${project.id}/statuses/${sha}`, { json: { state: "running", context: "ci/lint", target_url: "https://ci.example/1", coverage: "87.5" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      sha,
      ref: "main",
      status: "running",
      name: "ci/lint",
      target_url: "https://ci.example/1",
      description: null,
      allow_failure: false,
      coverage: 87.5,
      pipeline_id: expect.any(Number),
      finished_at: null,
      author: { id: owner.id, username: owner.username },
    });
    expect(body.started_at).not.toBeNull();
    const done = (await (await api.post(`/projects/${project.id}/statuses/${sha}`, { json: { state: "success", name: "ci/lint", ref: "main" } })).json()) as Json;
    expect([done.id, done.status, done.finished_at !== null]).toEqual([body.id, "success", true]);
    const again = await api.post(`/projects/${project.id}/statuses/${sha}`, { json: { state: "pending", name: "ci/lint", ref: "main" } });
    expect(((await again.json()) as Json).id).not.toBe(body.id);
    expect(queryCount(again)).toBeLessThanOrEqual(6);
  });

  it("answers GitLab's errors: missing state, bad state, unknown commit, invalid transition, guests", async () => {
    const w = await world();
    const guest = await w.user();
    const { api, project, commits } = await smallRepo(w, { guests: [guest] });
    const url = `/projects/${project.id}/statuses/${commits[0].id}`;
    expect(await statusAndBody(await api.post(url, { json: {} }))).toEqual([400, { error: "state is missing" }]);
    expect(await statusAndBody(await api.post(url, { json: { state: "done" } }))).toEqual([400, { error: "state does not have a valid value" }]);
    expect(await statusAndBody(await api.post(`/projects/${project.id}/statuses/${"0".repeat(40)}`, { json: { state: "pending" } }))).toEqual([
      404,
      { message: "404 Commit Not Found" },
    ]);
    await api.post(url, { json: { state: "pending" } });
    expect(await statusAndBody(await api.post(url, { json: { state: "pending", ref: "main" } }))).toEqual([
      400,
      { message: 'Cannot transition status via :enqueue from :pending (Reason(s): Status cannot transition via "enqueue")' },
    ]);
    expect((await w.as(guest).post(url, { json: { state: "pending" } })).status).toBe(403);
    expect((await w.anonymous.post(url, { json: { state: "pending" } })).status).toBe(401);
  });
});

describe("GET /projects/:id/repository/commits/:sha/statuses", () => {
  it("lists the latest status per name, or all, with filters", async () => {
    const w = await world();
    const { api, project, commits } = await smallRepo(w);
    const sha = commits[0].id;
    const post = (json: Json) => api.post(`/projects/${project.id}/statuses/${sha}`, { json });
    await post({ state: "success", name: "a" });
    await post({ state: "failed", name: "a" });
    await post({ state: "pending", name: "b" });
    const latest = await api.get(`/projects/${project.id}/repository/commits/${sha}/statuses`);
    expect(((await latest.json()) as Json[]).map((s) => [s.name, s.status])).toEqual([
      ["a", "failed"],
      ["b", "pending"],
    ]);
    expect(queryCount(latest)).toBeLessThanOrEqual(6);
    const all = (await (await api.get(`/projects/${project.id}/repository/commits/${sha}/statuses`, { query: { all: true } })).json()) as Json[];
    expect(all.map((s) => s.status)).toEqual(["success", "failed", "pending"]);
    const named = (await (await api.get(`/projects/${project.id}/repository/commits/main/statuses`, { query: { name: "b" } })).json()) as Json[];
    expect(named.map((s) => s.name)).toEqual(["b"]);
    expect(await statusAndBody(await api.get(`/projects/${project.id}/repository/commits/nope/statuses`))).toEqual([404, { message: "404 Commit Not Found" }]);
  });
});

describe("commit statuses and pipelines", () => {
  it("lists the commit's CI jobs with its external statuses, and attaches a status to the pipeline named by pipeline_id", async () => {
    const w = await world();
    const { api, project, sha } = await ciProject(w, "build:\n  stage: build\n  script: [make]\ntest:\n  stage: test\n  script: [make test]\n");
    const pipeline = await createPipeline(api, project.id);
    const post = await api.post(`/projects/${project.id}/statuses/${sha}`, { json: { state: "running", name: "ci/external", pipeline_id: pipeline.id } });
    expect(post.status).toBe(201);
    expect(await post.json()).toMatchObject({ pipeline_id: pipeline.id, ref: "main", status: "running", name: "ci/external" });
    const listed = (await (await api.get(`/projects/${project.id}/repository/commits/${sha}/statuses`)).json()) as Json[];
    expect(listed.map((s) => [s.name, s.status, s.pipeline_id, s.ref, s.sha])).toEqual([
      ["build", "pending", pipeline.id, "main", sha],
      ["test", "created", pipeline.id, "main", sha],
      ["ci/external", "running", pipeline.id, "main", sha],
    ]);
    const tests = (await (await api.get(`/projects/${project.id}/repository/commits/${sha}/statuses`, { query: { stage: "test" } })).json()) as Json[];
    expect(tests.map((s) => s.name)).toEqual(["test"]);
    // The external status counts in the pipeline's status.
    const p = (await (await api.get(`/projects/${project.id}/pipelines/${pipeline.id}`)).json()) as Json;
    expect(p.status).toBe("running");
  });

  it("creates an external pipeline for a commit without one, whose status follows its statuses", async () => {
    const w = await world();
    const { api, project, commits } = await smallRepo(w);
    const sha = commits[0].id;
    const first = (await (await api.post(`/projects/${project.id}/statuses/${sha}`, { json: { state: "pending", name: "a" } })).json()) as Json;
    const pipeline = (await (await api.get(`/projects/${project.id}/pipelines/${first.pipeline_id}`)).json()) as Json;
    expect(pipeline).toMatchObject({ sha, ref: "main", source: "external", status: "pending" });
    const second = (await (await api.post(`/projects/${project.id}/statuses/${sha}`, { json: { state: "success", name: "b" } })).json()) as Json;
    expect(second.pipeline_id).toBe(first.pipeline_id);
    await api.post(`/projects/${project.id}/statuses/${sha}`, { json: { state: "success", name: "a" } });
    const done = (await (await api.get(`/projects/${project.id}/pipelines/${first.pipeline_id}`)).json()) as Json;
    expect(done.status).toBe("success");
  });

  it("holds back merge_when_pipeline_succeeds while an external status is pending, and merges once it succeeds", async () => {
    const w = await world();
    const { owner, project, head, mr } = await mergeFixture(w);
    const api = w.as(owner);
    const url = `/projects/${project.id}/merge_requests/${mr.iid}`;
    expect((await api.post(`/projects/${project.id}/statuses/${head}`, { json: { state: "pending", name: "ext" } })).status).toBe(201);
    const single = (await (await api.get(url)).json()) as Json;
    expect(single.head_pipeline).toMatchObject({ sha: head, status: "pending", source: "external" });
    const waiting = await api.put(`${url}/merge`, { json: { merge_when_pipeline_succeeds: true } });
    expect(waiting.status).toBe(200);
    expect(await waiting.json()).toMatchObject({ state: "opened", merge_when_pipeline_succeeds: true });
    expect((await api.post(`/projects/${project.id}/statuses/${head}`, { json: { state: "success", name: "ext" } })).status).toBe(201);
    const merged = await eventually(async () => (await (await api.get(url)).json()) as Json, (b) => b.state === "merged");
    expect(merged).toMatchObject({ state: "merged", merged_by: { id: owner.id } });
  });

  it("lets merge_when_pipeline_succeeds merge at once when the external status already succeeded", async () => {
    const w = await world();
    const { owner, project, head, mr } = await mergeFixture(w);
    const api = w.as(owner);
    expect((await api.post(`/projects/${project.id}/statuses/${head}`, { json: { state: "success", name: "ext" } })).status).toBe(201);
    const res = await api.put(`/projects/${project.id}/merge_requests/${mr.iid}/merge`, { json: { merge_when_pipeline_succeeds: true } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ state: "merged", merge_when_pipeline_succeeds: false });
  });
});
