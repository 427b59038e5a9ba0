import { sql } from "drizzle-orm";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../functions/kernel/db";
import { request, statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { queryCount } from "../helpers/api";
import { ciProject, createPipeline, eventually, finish, projectRunner, requestJob, type Claimed } from "../helpers/ci";
import { compositeStatus } from "../../functions/shared/ci/status";

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

  it("claims and reads the job in one statement: 7 statements per claim, 2 per empty poll", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, "a:\n  script: x\n");
    const runner = await projectRunner(api, project.id);
    const empty = await request("POST", "/jobs/request", null, { json: { token: runner.token } });
    expect(empty.status).toBe(204);
    // The runner's touch, the claim that found nothing.
    expect(queryCount(empty)).toBe(2);
    await createPipeline(api, project.id);
    const res = await request("POST", "/jobs/request", null, { json: { token: runner.token } });
    expect(res.status).toBe(201);
    const job = (await res.json()) as Claimed;
    expect(job.job_info).toMatchObject({ name: "a", project_id: project.id });
    // The runner's touch, the claim (which returns the job's row), the pipeline with its project, the
    // commit, the variables, the protected branches, the dependency candidates.
    expect(queryCount(res)).toBe(7);
    const shown = (await (await api.get(`/projects/${project.id}/jobs/${job.id}`)).json()) as { status: string; runner: { id: number } };
    expect(shown).toMatchObject({ status: "running", runner: { id: runner.id } });
  });
});

describe("races through the HTTP entry point", () => {
  it("32 runners polling at once never receive the same job; 32 concurrent updates leave GitLab's composite status", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, "work:\n  parallel: 40\n  script: x\n");
    const runners = [];
    for (let i = 0; i < 32; i++) runners.push(await projectRunner(api, project.id));
    const p = await createPipeline(api, project.id);
    // As gitlab-runner does, a 409 (every candidate held by a concurrent claim) is asked again at once.
    const poll = async (token: string) => {
      for (;;) {
        const res = await request("POST", "/jobs/request", null, { json: { token, info: { name: "test" } } });
        if (res.status === 409) continue;
        if (res.status === 204) return { job: null };
        expect(res.status).toBe(201);
        return { job: (await res.json()) as Claimed };
      }
    };
    const answers = await Promise.all(runners.map((r) => poll(r.token)));
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

describe("POST /jobs/request while pending jobs are row-locked", () => {
  const ask = (token: string) => request("POST", "/jobs/request", null, { json: { token, info: { name: "test" } } });

  /** Runs `fn` while a transaction of the test holds FOR UPDATE on the given jobs' rows. */
  async function holding<T>(jobIds: number[], fn: () => Promise<T>): Promise<T> {
    const { db, pool } = createDb(env as never);
    try {
      return await db.transaction(async (tx) => {
        const locked = await tx.execute<{ id: number }>(sql`SELECT id FROM ci_builds WHERE id IN ${sql.raw(`(${jobIds.join(",")})`)} FOR UPDATE`);
        expect(locked.rows).toHaveLength(jobIds.length);
        return fn();
      });
    } finally {
      await pool.end();
    }
  }

  async function pendingJobs(w: Awaited<ReturnType<typeof world>>, yaml: string, count: number) {
    const { api, project } = await ciProject(w, yaml);
    const p = await createPipeline(api, project.id);
    const jobs = await eventually(
      async () => (await (await api.get(`/projects/${project.id}/pipelines/${p.id}/jobs`)).json()) as { id: number; name: string; status: string }[],
      (js) => js.filter((j) => j.status === "pending").length === count,
    );
    expect(jobs.filter((j) => j.status === "pending")).toHaveLength(count);
    return { api, project, jobs: jobs.sort((a, b) => a.id - b.id) };
  }

  it("answers 409 (no X-GitLab-Last-Update) when its only candidate is locked, then 201 once the lock is gone", async () => {
    const w = await world();
    const { api, project, jobs } = await pendingJobs(w, "a:\n  script: x\n", 1);
    const runner = await projectRunner(api, project.id);
    const res = await holding([jobs[0].id], () => ask(runner.token));
    expect(res.headers.get("X-GitLab-Last-Update")).toBeNull();
    expect(await statusAndBody(res)).toEqual([409, { message: "409 Conflict" }]);
    const after = await requestJob(runner.token);
    expect(after.job?.id).toBe(jobs[0].id);
    // Nothing pending any more: 204 with the queue version, as before.
    const empty = await ask(runner.token);
    expect(empty.status).toBe(204);
    expect(empty.headers.get("X-GitLab-Last-Update")).toMatch(/^\d+$/);
  });

  it("claims an unlocked candidate past a locked one (201, not 409)", async () => {
    const w = await world();
    const { api, project, jobs } = await pendingJobs(w, "a:\n  script: x\nb:\n  script: x\n", 2);
    const runner = await projectRunner(api, project.id);
    const res = await holding([jobs[0].id], () => ask(runner.token));
    expect(res.status).toBe(201);
    expect(((await res.json()) as Claimed).id).toBe(jobs[1].id);
  });

  it("answers 204 when the locked pending jobs are not this runner's to take", async () => {
    const w = await world();
    const { api, project, jobs } = await pendingJobs(w, "a:\n  tags: [gpu]\n  script: x\n", 1);
    const plain = await projectRunner(api, project.id, { tags: ["docker"] });
    const res = await holding([jobs[0].id], () => ask(plain.token));
    expect(res.status).toBe(204);
    expect(res.headers.get("X-GitLab-Last-Update")).toMatch(/^\d+$/);
    // An inactive runner is not told about conflicts either.
    const made = await api.post("/user/runners", { json: { runner_type: "project_type", project_id: project.id, tag_list: ["gpu"], paused: true } });
    expect(made.status).toBe(201);
    const gpu = (await made.json()) as { token: string };
    expect((await holding([jobs[0].id], () => ask(gpu.token))).status).toBe(204);
  });

  it("answers 409 when every candidate is locked, not only the first", async () => {
    const w = await world();
    const { api, project, jobs } = await pendingJobs(w, "a:\n  script: x\nb:\n  script: x\n", 2);
    const runner = await projectRunner(api, project.id);
    const res = await holding(jobs.map((j) => j.id), () => ask(runner.token));
    expect(await statusAndBody(res)).toEqual([409, { message: "409 Conflict" }]);
  });
});
