// Who owns job and pipeline state: the runner's claim (pending → running) is one SQL statement with
// `FOR UPDATE SKIP LOCKED`, outside the coordinator; every other transition of a pipeline (a runner's
// final PUT, cancels, retries, plays, processing and the pipeline's own status) runs in its
// `PipelineCoordinator` Durable Object, one call after another. This test fires such transitions of one
// pipeline at once and checks, from a log a trigger keeps of every write of the pipeline's status, that
// no two interleaved: each write agrees with the jobs as they stand when it is made (a processing run
// that read the jobs before another call moved them would write a stale status), and nothing is lost.
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { compositeStatus } from "../../../functions/shared/ci/status";
import { ciProject, claim, createPipeline, eventually, finish, patchTrace, projectRunner, type Claimed } from "../../helpers/ci";
import type { Client } from "../../helpers/client";
import { rows } from "../../helpers/db";
import { world, type World } from "../../helpers/world";

const JOBS = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
const YAML = `
stages: [build, test]
${JOBS.map((name) => `${name}:\n  stage: build\n  script: [echo ${name}]\n`).join("")}
last:
  stage: test
  script: [echo last]
`;

type Write = { seq: number; old_status: string; new_status: string; jobs: { status: string; allowFailure: boolean }[] };

/** Logs every update of `pipelineId`'s row with the statuses of its latest jobs at that moment. */
async function logWrites(w: World, pipelineId: number) {
  const table = sql.raw(`pipeline_writes_${pipelineId}`);
  await w.db(async (db) => {
    await db.execute(sql`CREATE TABLE ${table} (seq bigserial PRIMARY KEY, old_status text, new_status text, jobs jsonb)`);
    await db.execute(sql.raw(`CREATE FUNCTION log_pipeline_write_${pipelineId}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO pipeline_writes_${pipelineId} (old_status, new_status, jobs)
        SELECT OLD.status, NEW.status, coalesce(json_agg(json_build_object('status', b.status, 'allowFailure', b.allow_failure) ORDER BY b.id), '[]'::json)
        FROM ci_builds b WHERE b.pipeline_id = NEW.id AND NOT b.retried;
        RETURN NULL;
      END $$`));
    await db.execute(
      sql.raw(`CREATE TRIGGER log_pipeline_write_${pipelineId} AFTER UPDATE ON ci_pipelines FOR EACH ROW WHEN (NEW.id = ${pipelineId}) EXECUTE FUNCTION log_pipeline_write_${pipelineId}()`),
    );
  });
  cleanups.push(() =>
    w.db(async (db) => {
      await db.execute(sql.raw(`DROP TRIGGER IF EXISTS log_pipeline_write_${pipelineId} ON ci_pipelines`));
      await db.execute(sql.raw(`DROP FUNCTION IF EXISTS log_pipeline_write_${pipelineId}()`));
      await db.execute(sql`DROP TABLE IF EXISTS ${table}`);
    }),
  );
  return () => rows<Write>(w, sql`SELECT seq::int, old_status, new_status, jobs FROM ${table} ORDER BY seq`);
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Nothing left for processing: every job processed, and the pipeline's status settled. */
async function settled(w: World, pipelineId: number) {
  return eventually(
    () => rows<{ waiting: number; status: string }>(w, sql`SELECT (SELECT count(*)::int FROM ci_builds WHERE pipeline_id = ${pipelineId} AND NOT processed) AS waiting, status FROM ci_pipelines WHERE id = ${pipelineId}`),
    ([r]) => r.waiting === 0,
    100,
  );
}

const jobRows = (w: World, pipelineId: number) =>
  rows<{ id: number; name: string; status: string; retried: boolean }>(w, sql`SELECT id, name, status, retried FROM ci_builds WHERE pipeline_id = ${pipelineId} ORDER BY id`);

/**
 * One pipeline of the project: its jobs claimed one by one (the claim is the transition SQL owns, outside
 * the coordinator), `a` failed, then at once: runners' trace and final PUT (b–h, some failing), a user
 * retrying `a`, another cancelling `i` and `j`; each of these goes to the pipeline's coordinator.
 */
async function burst(w: World, api: Client, projectId: number, runnerToken: string) {
  const pipeline = await createPipeline(api, projectId);
  const claimed: Record<string, Claimed> = {};
  for (let i = 0; i < JOBS.length; i++) {
    const job = await claim(runnerToken);
    claimed[job.job_info.name] = job;
  }
  expect(Object.keys(claimed).sort()).toEqual(JOBS);
  expect((await settled(w, pipeline.id))[0].status).toBe("running");
  expect((await finish(claimed.a, "failed", { failure_reason: "script_failure" })).status).toBe(200);
  await settled(w, pipeline.id);
  const writes = await logWrites(w, pipeline.id);

  const finishes = ["b", "c", "d", "e", "f", "g", "h"].map(async (name, i) => {
    expect((await patchTrace(claimed[name], 0, `${name} ran\n`)).status).toBe(202);
    const res = await finish(claimed[name], i % 3 === 0 ? "failed" : "success", i % 3 === 0 ? { failure_reason: "script_failure" } : {});
    expect(res.status).toBe(200);
  });
  const retry = api.post(`/projects/${projectId}/jobs/${claimed.a.id}/retry`).then((res) => expect(res.status).toBe(201));
  const cancels = ["i", "j"].map((name) => api.post(`/projects/${projectId}/jobs/${claimed[name].id}/cancel`).then((res) => expect(res.status).toBe(201)));
  await Promise.all([...finishes, retry, ...cancels]);
  const [{ status: final }] = await settled(w, pipeline.id);

  // Serialised: every status the coordinator wrote is the composite of the jobs at the moment it was
  // written. An interleaved run writes what it read before another call committed a job's move.
  const log = await writes();
  expect(log.length).toBeGreaterThan(0);
  const stale = log.filter((write) => write.new_status !== (compositeStatus(write.jobs) ?? "skipped"));
  expect(stale, JSON.stringify(stale)).toEqual([]);
  // No lost update: every transition asked for is in the rows (an interleaved run that read `a` failed
  // skips `last` after the retry reopened it), and the last write is the composite of the jobs as they ended.
  const jobs = await jobRows(w, pipeline.id);
  const latest = Object.fromEntries(jobs.filter((j) => !j.retried).map((j) => [j.name, j.status]));
  expect(latest).toEqual({ a: "pending", b: "failed", c: "success", d: "success", e: "failed", f: "success", g: "success", h: "failed", i: "canceled", j: "canceled", last: "created" });
  expect(jobs.filter((j) => j.retried).map((j) => [j.name, j.status])).toEqual([["a", "failed"]]);
  expect(final).toBe(compositeStatus(Object.values(latest).map((status) => ({ status, allowFailure: false }))));
  expect(log[log.length - 1].new_status).toBe(final);
  // The retried `a` waits for a runner; cancel the pipeline so the next round's claims find only its jobs.
  expect((await api.post(`/projects/${projectId}/pipelines/${pipeline.id}/cancel`)).status).toBe(200);
  await settled(w, pipeline.id);
}

describe("PipelineCoordinator", () => {
  it("serialises concurrent finishes, cancels and retries of one pipeline: no status written from a stale read, none lost", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, YAML);
    const runner = await projectRunner(api, project.id);
    // A race shows only sometimes: three rounds, each on its own pipeline.
    for (let round = 0; round < 3; round++) await burst(w, api, project.id, runner.token);
  });
});
