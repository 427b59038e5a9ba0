#!/usr/bin/env node
// `npm run bench:ci` (also run by `npm run bench`): CI against Edgeforge as `npm start` runs it
// (scripts/start.mjs: the Worker on workerd through Miniflare, the WebSocket proxy, the database).
//
//   database:  PostgreSQL when DATABASE_URL is set or something answers on 127.0.0.1:5432 (a fresh database
//              `edgeforge_bench_ci_<rand>`, dropped at the end), else the embedded PGlite in a temporary
//              DATA_DIR (as `npm start`); BENCH_DATABASES=pglite forces PGlite.
//   seed:      one project whose `.gitlab-ci.yml` has 50 jobs in 3 stages (20 build jobs; 20 test jobs, each
//              needing one build job; 10 deploy jobs with rules and job variables), committed with
//              `[skip ci]`; 16 instance runners registered through `POST /runners` with a registration token.
//   measure:   1. pipeline creation: BENCH_CI_PIPELINES (20) × `POST /projects/:id/pipeline`, BENCH_CI_CLIENTS (2)
//                 at a time: pipelines/s and the p50/p99 latency of one creation (parse, seed, 50 jobs
//                 written, first processing: the 201 shows `pending`).
//              2. job claims: 16 runners poll `POST /jobs/request` (with `last_update`, long polling as GitLab
//                 Runner does) and finish each job at once with `PUT /jobs/:id` `state=success`, until every
//                 job of those pipelines has run: jobs/s (claim and finish, stage by stage as the pipelines
//                 advance), the p50 of a `jobs/request` that got a job (its long-poll wait included), and checks that no job was handed out twice, that every
//                 job was handed out, and that every pipeline ended `success`.
//              3. trace append: 16 runners each hold one running job and send BENCH_CI_APPENDS (100)
//                 `PATCH /jobs/:id/trace` of 1 KiB with `Content-Range`, one after the other per job:
//                 appends/s over all and the p50 of one append; each trace is read back and compared.
//
// Everything listens on and targets 127.0.0.1 only; the run stops itself after 15 minutes at most; everything
// started is stopped and temporary files and databases removed.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startServer } from "../test/e2e/server.mjs";
import { assertLoopback, benchRun, jsonRequest } from "./support.mjs";

const PIPELINES = Number(process.env.BENCH_CI_PIPELINES || 20);
const CLIENTS = Number(process.env.BENCH_CI_CLIENTS || 2);
const RUNNERS = 16;
const APPENDS = Number(process.env.BENCH_CI_APPENDS || 100);
const CHUNK = 1024;
const ROOT_TOKEN = `glpat-bench${randomBytes(12).toString("hex")}`;
const { log, cleanups, fail, finish, machine, createBenchDatabase } = benchRun({ label: "bench:ci", deadlineMs: 15 * 60_000 });

/** The 50-job configuration: DAG needs, rules, job variables, a default, an extends template. */
function ciYaml() {
  const lines = ["stages: [build, test, deploy]", "default:", "  before_script: [echo setup]", ".job:", "  script: [echo run]", "  variables: { KIND: bench }"];
  for (let i = 0; i < 20; i++) lines.push(`build-${i}:`, "  extends: .job", "  stage: build");
  for (let i = 0; i < 20; i++) lines.push(`test-${i}:`, "  extends: .job", "  stage: test", `  needs: [build-${i}]`);
  for (let i = 0; i < 10; i++)
    lines.push(`deploy-${i}:`, "  extends: .job", "  stage: deploy", "  rules:", '    - if: $KIND == "bench" && $CI_COMMIT_BRANCH == "main"', "    - when: never");
  return `${lines.join("\n")}\n`;
}

const percentile = (values, p) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

function answers(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** A PATCH with a raw body and headers (jsonRequest sends JSON only). */
function rawRequest(base, agent, method, pathname, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${pathname}`, { method, agent, timeout: 60_000, headers: { ...headers, "Content-Length": body.length } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers }));
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${pathname} timed out`)));
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * 503 answers (the request waited longer than the kernel's 1.8 s for a database session: the machine is
 * overloaded) are counted and retried after `Retry-After`, as GitLab Runner retries its requests.
 */
const unavailableCount = { count: 0 };
async function unavailable(headers) {
  unavailableCount.count++;
  await new Promise((r) => setTimeout(r, Number(headers["retry-after"] ?? 2) * 1000));
}

async function main() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-bench-ci-"));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  let databaseUrl;
  let mode = "embedded PGlite (one Postgres session)";
  const serverUrl =
    process.env.BENCH_DATABASES === "pglite"
      ? null
      : process.env.DATABASE_URL || ((await answers("127.0.0.1", 5432)) ? "postgres://postgres@127.0.0.1:5432/postgres" : null);
  if (serverUrl) {
    assertLoopback(serverUrl, "DATABASE_URL");
    const database = await createBenchDatabase(serverUrl, "edgeforge_bench_ci_");
    databaseUrl = database.url;
    mode = `PostgreSQL at ${new URL(serverUrl).host}, database ${database.name}`;
  }
  log(`database: ${mode}`);
  const server = await startServer({ dataDir: path.join(dataDir, "server"), rootToken: ROOT_TOKEN, databaseUrl, timeoutMs: 120_000 });
  cleanups.push(() => server.stop(20_000));
  log(`Edgeforge: ${server.apiUrl}`);

  const agent = new http.Agent({ keepAlive: true, maxSockets: RUNNERS * 2 });
  const api = async (method, pathname, body, expect) => {
    const res = await jsonRequest({ base: server.apiUrl, agent, token: ROOT_TOKEN }, method, pathname, body);
    if (expect !== undefined && res.status !== expect) throw new Error(`${method} ${pathname}: ${res.status} ${res.text.slice(0, 500)}`);
    return { ...res, body: res.text ? JSON.parse(res.text) : null };
  };

  // ---- seed -------------------------------------------------------------------------------------------
  const project = (await api("POST", "/projects", { name: `bench-ci-${Date.now()}`, visibility: "private" }, 201)).body;
  await api("POST", `/projects/${project.id}/repository/commits`, {
    branch: "main",
    commit_message: "bench configuration [skip ci]",
    actions: [{ action: "create", file_path: ".gitlab-ci.yml", content: ciYaml() }],
  }, 201);
  const registration = (await api("POST", "/runners/reset_registration_token", undefined, 201)).body.token;
  const runners = [];
  for (let i = 0; i < RUNNERS; i++) {
    const res = await api("POST", "/runners", { token: registration, description: `bench runner ${i}`, run_untagged: true, info: { name: "bench", version: "16.0.0" } }, 201);
    runners.push(res.body.token);
  }
  log(`project ${project.path_with_namespace}, ${RUNNERS} runners registered`);

  // ---- 1. pipeline creation ---------------------------------------------------------------------------
  const createLatencies = [];
  const pipelineIds = [];
  let next = 0;
  const createStarted = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < PIPELINES) {
        next++;
        const t0 = process.hrtime.bigint();
        const res = await api("POST", `/projects/${project.id}/pipeline`, { ref: "main" }, 201);
        createLatencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (res.body.status !== "pending") throw new Error(`a new pipeline is ${res.body.status}, not pending`);
        pipelineIds.push(res.body.id);
      }
    }),
  );
  const createSeconds = Number(process.hrtime.bigint() - createStarted) / 1e9;
  const jobsPerPipeline = (await api("GET", `/projects/${project.id}/pipelines/${pipelineIds[0]}/jobs?per_page=100`, undefined, 200)).body.length;
  if (jobsPerPipeline !== 50) throw new Error(`a pipeline has ${jobsPerPipeline} jobs, not 50`);
  const creation = { pipelines: PIPELINES, seconds: createSeconds, perSecond: PIPELINES / createSeconds, p50: percentile(createLatencies, 50), p99: percentile(createLatencies, 99) };
  log(`creation: ${PIPELINES} pipelines of 50 jobs in ${createSeconds.toFixed(1)} s: ${creation.perSecond.toFixed(2)} pipelines/s, p50 ${creation.p50.toFixed(0)} ms`);

  // ---- 2. job claims ----------------------------------------------------------------------------------
  const expected = PIPELINES * 50;
  const claimed = new Map(); // job id → runner index
  const duplicates = [];
  const claimLatencies = [];
  let finished = 0;
  let done = false;
  let lastFinish = 0n;
  const claimStarted = process.hrtime.bigint();
  await Promise.all(
    runners.map(async (token, index) => {
      let lastUpdate;
      while (!done) {
        const t0 = process.hrtime.bigint();
        const res = await jsonRequest({ base: server.apiUrl, agent, token: "" }, "POST", "/jobs/request", { token, last_update: lastUpdate, info: { name: "bench", version: "16.0.0" } });
        lastUpdate = res.headers["x-gitlab-last-update"] ?? lastUpdate;
        // 409: the candidates were locked by concurrent claims; ask again at once, as gitlab-runner does.
        if (res.status === 204 || res.status === 409) continue;
        if (res.status === 503) {
          await unavailable(res.headers);
          continue;
        }
        if (res.status !== 201) throw new Error(`jobs/request answered ${res.status}: ${res.text.slice(0, 300)}`);
        claimLatencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        const job = JSON.parse(res.text);
        if (claimed.has(job.id)) duplicates.push({ job: job.id, runners: [claimed.get(job.id), index] });
        claimed.set(job.id, index);
        let put = await jsonRequest({ base: server.apiUrl, agent, token: "" }, "PUT", `/jobs/${job.id}`, { token: job.token, state: "success" });
        while (put.status === 503) {
          await unavailable(put.headers);
          put = await jsonRequest({ base: server.apiUrl, agent, token: "" }, "PUT", `/jobs/${job.id}`, { token: job.token, state: "success" });
        }
        if (put.status !== 200) throw new Error(`PUT /jobs/${job.id} answered ${put.status}: ${put.text.slice(0, 300)}`);
        if (++finished >= expected) {
          done = true;
          lastFinish = process.hrtime.bigint();
        }
      }
    }),
  );
  // The last long polls return within their 20 s window once `done` is set; the figure stops at the last finish.
  const claimSeconds = Number(lastFinish - claimStarted) / 1e9;
  if (duplicates.length) throw new Error(`${duplicates.length} jobs were handed out twice: ${JSON.stringify(duplicates.slice(0, 5))}`);
  if (claimed.size !== expected) throw new Error(`${claimed.size} jobs handed out, ${expected} expected`);
  const statuses = await Promise.all(pipelineIds.map(async (id) => (await api("GET", `/projects/${project.id}/pipelines/${id}`, undefined, 200)).body.status));
  const notSuccess = statuses.filter((s) => s !== "success");
  if (notSuccess.length) throw new Error(`${notSuccess.length} pipelines did not end in success: ${[...new Set(notSuccess)].join(", ")}`);
  const claims = { jobs: expected, seconds: claimSeconds, perSecond: expected / claimSeconds, p50: percentile(claimLatencies, 50) };
  log(`claims: ${expected} jobs claimed and finished by ${RUNNERS} runners in ${claimSeconds.toFixed(1)} s: ${claims.perSecond.toFixed(1)} jobs/s, jobs/request p50 ${claims.p50.toFixed(0)} ms (long-poll wait included); no job handed out twice; ${PIPELINES} pipelines success`);

  // ---- 3. trace append --------------------------------------------------------------------------------
  const tracePipeline = (await api("POST", `/projects/${project.id}/pipeline`, { ref: "main" }, 201)).body.id;
  const held = [];
  for (const token of runners) {
    // A claim skips rows locked by the pipeline's processing (FOR UPDATE SKIP LOCKED), so a request made
    // while the previous claim is being processed may find nothing: ask again, as a runner's next poll does.
    for (let attempt = 0; ; attempt++) {
      const res = await jsonRequest({ base: server.apiUrl, agent, token: "" }, "POST", "/jobs/request", { token });
      if (res.status === 201) {
        held.push(JSON.parse(res.text));
        break;
      }
      if ((res.status !== 204 && res.status !== 409) || attempt >= 100) throw new Error(`jobs/request for the trace step answered ${res.status} after ${held.length} claims`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const appendLatencies = [];
  const traceStarted = process.hrtime.bigint();
  await Promise.all(
    held.map(async (job, index) => {
      let offset = 0;
      for (let i = 0; i < APPENDS; i++) {
        const chunk = Buffer.from(`${`runner ${index} line ${i} `.padEnd(CHUNK - 1, ".")}\n`);
        const t0 = process.hrtime.bigint();
        let res = await rawRequest(server.apiUrl, agent, "PATCH", `/jobs/${job.id}/trace`, { "JOB-TOKEN": job.token, "Content-Range": `${offset}-${offset + chunk.length - 1}`, "Content-Type": "text/plain" }, chunk);
        while (res.status === 503) {
          await unavailable(res.headers);
          res = await rawRequest(server.apiUrl, agent, "PATCH", `/jobs/${job.id}/trace`, { "JOB-TOKEN": job.token, "Content-Range": `${offset}-${offset + chunk.length - 1}`, "Content-Type": "text/plain" }, chunk);
        }
        appendLatencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (res.status !== 202) throw new Error(`PATCH /jobs/${job.id}/trace answered ${res.status}`);
        offset += chunk.length;
        if (res.headers.range !== `0-${offset}`) throw new Error(`trace of job ${job.id}: Range ${res.headers.range}, expected 0-${offset}`);
      }
    }),
  );
  const traceSeconds = Number(process.hrtime.bigint() - traceStarted) / 1e9;
  for (const [index, job] of held.entries()) {
    const trace = await jsonRequest({ base: server.apiUrl, agent, token: ROOT_TOKEN }, "GET", `/projects/${project.id}/jobs/${job.id}/trace`);
    if (trace.status !== 200 || trace.text.length !== APPENDS * CHUNK || !trace.text.startsWith(`runner ${index} line 0 `))
      throw new Error(`trace of job ${job.id} reads back wrong (${trace.status}, ${trace.text.length} bytes)`);
    await jsonRequest({ base: server.apiUrl, agent, token: "" }, "PUT", `/jobs/${job.id}`, { token: job.token, state: "success" });
  }
  const appends = { count: RUNNERS * APPENDS, seconds: traceSeconds, perSecond: (RUNNERS * APPENDS) / traceSeconds, p50: percentile(appendLatencies, 50) };
  log(`trace: ${appends.count} appends of ${CHUNK} bytes (${RUNNERS} jobs at once) in ${traceSeconds.toFixed(1)} s: ${appends.perSecond.toFixed(0)} appends/s, p50 ${appends.p50.toFixed(0)} ms (pipeline ${tracePipeline})`);

  console.log("");
  console.log(`CI — ${mode}`);
  console.log(machine());
  console.log("| measure | count | seconds | rate | p50 (ms) |");
  console.log("|---|---:|---:|---:|---:|");
  console.log(`| pipeline creation, 50-job .gitlab-ci.yml, ${CLIENTS} clients | ${creation.pipelines} | ${creation.seconds.toFixed(1)} | ${creation.perSecond.toFixed(2)} pipelines/s | ${creation.p50.toFixed(0)} (p99 ${creation.p99.toFixed(0)}) |`);
  console.log(`| job claim + finish, ${RUNNERS} polling runners | ${claims.jobs} | ${claims.seconds.toFixed(1)} | ${claims.perSecond.toFixed(1)} jobs/s | ${claims.p50.toFixed(0)} (a jobs/request answered 201, long-poll wait included) |`);
  console.log(`| trace append (PATCH, 1 KiB), ${RUNNERS} jobs at once | ${appends.count} | ${appends.seconds.toFixed(1)} | ${appends.perSecond.toFixed(0)} appends/s | ${appends.p50.toFixed(0)} |`);
  console.log("checks: no job handed out twice; every job handed out once; every pipeline success; every trace read back whole");
  console.log(`503 answers retried after Retry-After (database session not had within 1.8 s): ${unavailableCount.count}`);
  agent.destroy();
  await finish();
  log("done");
  process.exit(0);
}

main().catch(fail);
