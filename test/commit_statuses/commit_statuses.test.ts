import { describe, expect, it } from "vitest";
import { transition } from "../../functions/commit_statuses/rules";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { smallRepo } from "../helpers/commits";

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
      pipeline_id: null,
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
