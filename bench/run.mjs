#!/usr/bin/env node
// `npm run bench` (docs/performance.md): Edgeforge as `npm start` runs it (Miniflare
// on workerd, the pooling WebSocket proxy, the database) beside a bare Node `http` + pooled `pg` server running
// the same SQL (bench/bare.mjs), in the same run, against the same database, with the same load; on both
// databases, one after the other.
//
//   databases: the embedded PGlite in a temporary DATA_DIR (as `npm start` by default), then PostgreSQL: a fresh
//              database `edgeforge_bench_<rand>` on DATABASE_URL (or on 127.0.0.1:5432 when something answers
//              there), dropped at the end. BENCH_DATABASES=pglite or =postgres runs one of them.
//   seed:      one group and BENCH_PROJECTS (1,000) projects through `POST /api/v4/projects`, and 25 issues in each
//              of the first 10 through `POST /api/v4/projects/:id/issues`, so the rows are exactly what Edgeforge
//              writes (no hand-written INSERT to drift from the schema).
//   measure:   autocannon, BENCH_CONNECTIONS (10) connections, BENCH_DURATION (10) seconds each, after a 2 s
//              warm-up, as root: `GET /api/v4/projects/:id` (ids rotate over the seeded projects),
//              `GET /api/v4/projects?per_page=20` and `GET /api/v4/projects/:id/issues?per_page=20` (over the
//              10 projects with issues). Edgeforge first; it is then stopped (embedded PGlite is one process's
//              files) and the bare server is measured on the same database, twice: `bare` sends every
//              statement unnamed, as `pg` does by default (the baseline the targets are stated against);
//              `bare-named` also names the statements the Worker names (kernel/db.ts `preparedQuery`), so
//              that both plan them once per backend and only the transport and the runtime differ.
//   report:    per database, req/s, p50, p99, non-2xx and errors, bytes per response, and the ratios
//              Edgeforge/bare against the targets (p50 at most 2x, req/s at least 0.5x, 0 errors); on PostgreSQL
//              also SQL statements and new connections per request, from pg_stat_database (a check that both
//              servers run the same number of statements), and the machine's load with each.
//   env:       BENCH_DURATION, BENCH_CONNECTIONS, BENCH_PROJECTS, BENCH_DATABASES override the figures above;
//              BENCH_BARE_NAMED=0 skips the `bare-named` baseline.
//
// Everything listens on and targets 127.0.0.1 only; everything started is stopped, temp files removed.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { startServer } from "../test/e2e/server.mjs";
import { assertLoopback, benchRun, fmt, jsonRequest, loadavg, startBare } from "./support.mjs";

const DURATION = Number(process.env.BENCH_DURATION || 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 10);
const PROJECTS = Number(process.env.BENCH_PROJECTS || 1000);
const WARMUP = 2;
const ISSUE_PROJECTS = 10;
// BENCH_BARE_NAMED=0 skips the second baseline (the bare server with the Worker's named statements).
const BARE_NAMED = process.env.BENCH_BARE_NAMED !== "0";
const ISSUES_PER_PROJECT = 25;
const DEADLINE_MS = 900_000; // both databases: about 5 minutes on an idle machine, far more under load
const ROOT_TOKEN = `glpat-bench${randomBytes(10).toString("hex")}`;
const bareScript = fileURLToPath(new URL("./bare.mjs", import.meta.url));

const { log, cleanups, fail, finish, machine, createBenchDatabase } = benchRun({ label: "bench", deadlineMs: DEADLINE_MS });

/**
 * The database's transaction and session counters. Outside an explicit transaction every statement is
 * one transaction, and every new connection costs one more (the catalog reads of its start-up), so
 * statements = Δtransactions − Δsessions.
 */
async function databaseCounters(serverUrl, database) {
  const c = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    // Backends flush their counters when they exit or at most every second; give them that second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const { rows } = await c.query(
      "SELECT (xact_commit + xact_rollback)::bigint AS xacts, sessions::bigint AS sessions FROM pg_stat_database WHERE datname = $1",
      [database],
    );
    return { xacts: Number(rows[0].xacts), sessions: Number(rows[0].sessions) };
  } finally {
    await c.end();
  }
}

/** VACUUM ANALYZE after seeding: the planner knows the 1,000 rows, and autovacuum stays out of the runs. */
async function vacuumAnalyze(url) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    await c.query("VACUUM ANALYZE");
  } finally {
    await c.end();
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

/** A JSON request to the API as root; throws with the answer unless it is `expected`. */
async function request(base, method, pathname, body, expected = 200) {
  const res = await jsonRequest({ base, agent, token: ROOT_TOKEN }, method, pathname, body);
  if (res.status !== expected) throw new Error(`${method} ${pathname} → ${res.status} ${res.text.slice(0, 500)}`);
  return { body: res.text ? JSON.parse(res.text) : null, headers: res.headers, bytes: Buffer.byteLength(res.text) };
}

/** One group and `count` projects in it, through the API, `CONNECTIONS` at a time. */
async function seed(base, count) {
  const group = (await request(base, "POST", "/api/v4/groups", { name: "Bench", path: "bench", visibility: "private" }, 201)).body;
  const ids = [];
  let next = 0;
  async function worker() {
    while (next < count) {
      const n = next++;
      const name = `bench-${String(n).padStart(4, "0")}`;
      const project = await request(base, "POST", "/api/v4/projects", { name, path: name, namespace_id: group.id }, 201);
      ids.push(project.body.id);
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  ids.sort((a, b) => a - b);
  // Issues in the first ISSUE_PROJECTS projects, with labels, as a client creates them.
  const withIssues = ids.slice(0, ISSUE_PROJECTS);
  const todo = withIssues.flatMap((id) => Array.from({ length: ISSUES_PER_PROJECT }, (_, k) => [id, k]));
  let at = 0;
  async function issueWorker() {
    while (at < todo.length) {
      const [id, k] = todo[at++];
      const body = { title: `Bench issue ${k}`, description: `Steps to reproduce ${k}\n\n- [x] triaged\n- [ ] fixed`, labels: k % 2 ? "a,b" : "bug" };
      await request(base, "POST", `/api/v4/projects/${id}/issues`, body, 201);
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, issueWorker));
  return { group, ids, withIssues };
}

/** The measured endpoints, as autocannon request lists. */
function scenarios(ids, withIssues) {
  return [
    {
      name: "GET /api/v4/projects/:id",
      requests: () => {
        let i = 0;
        return [{ method: "GET", setupRequest: (req) => ({ ...req, path: `/api/v4/projects/${ids[i++ % ids.length]}` }) }];
      },
      sample: `/api/v4/projects/${ids[Math.floor(ids.length / 2)]}`,
    },
    {
      name: "GET /api/v4/projects?per_page=20",
      requests: () => [{ method: "GET", path: "/api/v4/projects?per_page=20" }],
      sample: "/api/v4/projects?per_page=20",
    },
    {
      name: "GET /api/v4/projects/:id/issues?per_page=20",
      requests: () => {
        let i = 0;
        return [{ method: "GET", setupRequest: (req) => ({ ...req, path: `/api/v4/projects/${withIssues[i++ % withIssues.length]}/issues?per_page=20` }) }];
      },
      sample: `/api/v4/projects/${withIssues[0]}/issues?per_page=20`,
    },
  ];
}

function cannon(base, requests, duration) {
  return autocannon({
    url: base,
    connections: CONNECTIONS,
    duration,
    headers: { "PRIVATE-TOKEN": ROOT_TOKEN },
    requests,
  });
}

/** Warm-up, then the measured run; on PostgreSQL also the statements and new connections per request. */
async function measure(label, base, scenario, stats) {
  const sample = await request(base, "GET", scenario.sample);
  await cannon(base, scenario.requests(), WARMUP);
  let before = null;
  if (stats) {
    await stats.settle?.();
    before = await databaseCounters(stats.serverUrl, stats.database);
  }
  const result = await cannon(base, scenario.requests(), DURATION);
  let statements = null;
  let connections = null;
  if (stats) {
    await stats.settle?.();
    const after = await databaseCounters(stats.serverUrl, stats.database);
    const total = result.requests.total;
    if (total > 0) {
      connections = (after.sessions - before.sessions) / total;
      statements = (after.xacts - before.xacts - (after.sessions - before.sessions)) / total;
    }
  }
  log(`${label.padEnd(9)} ${scenario.name}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    bytes: sample.bytes,
    statements,
    connections,
  };
}

/** The bare server as a child process (its own CPU, like workerd); resolves once it listens. */


function printTable({ rows, mode, load }) {
  const header = ["endpoint", "server", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors", "requests", "bytes/resp", "SQL/req", "conn/req"];
  const lines = [header];
  for (const { endpoint, edgeforge, bare, bareNamed } of rows) {
    for (const [name, r] of [["edgeforge", edgeforge], ["bare", bare], ["bare-named", bareNamed]]) {
      if (!r) continue;
      lines.push([
        name === "edgeforge" ? endpoint : "",
        name,
        fmt(r.rps),
        fmt(r.p50, 1),
        fmt(r.p99, 1),
        String(r.non2xx),
        String(r.errors),
        String(r.total),
        String(r.bytes),
        fmt(r.statements, 2),
        fmt(r.connections, 2),
      ]);
    }
  }
  const widths = header.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  const render = (l) => l.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ");
  console.log("");
  console.log(`Edgeforge bench: ${mode}`);
  console.log(`${CONNECTIONS} connections, ${DURATION} s per endpoint after a ${WARMUP} s warm-up, as root, ${PROJECTS} projects`);
  console.log(`machine: load average ${load.start} before this database's run, ${load.end} after it`);
  console.log("");
  console.log(render(lines[0]));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const l of lines.slice(1)) console.log(render(l));
  console.log("");
  for (const { endpoint, edgeforge, bare, bareNamed } of rows) {
    for (const [name, baseline] of [["bare", bare], ["bare-named", bareNamed]]) {
      if (!baseline) continue;
      const rps = edgeforge.rps / baseline.rps;
      const p50 = edgeforge.p50 / baseline.p50;
      const met = rps >= 0.5 && p50 <= 2 && edgeforge.errors === 0 && edgeforge.non2xx === 0;
      console.log(
        `ratio edgeforge/${name.padEnd(10)}  ${endpoint.padEnd(44)} req/s ${fmt(rps, 3)}   p50 ${fmt(p50, 2)}x   p99 ${fmt(edgeforge.p99 / baseline.p99, 2)}x   ${met ? "met" : "MISSED"} (target: req/s >= 0.5, p50 <= 2x, 0 errors)`,
      );
    }
  }
  console.log("bare: pg's default unnamed statements (the targets' baseline); bare-named: the Worker's named statements named too (only the transport differs)");
}

/** Whether something accepts TCP connections at host:port (the default PostgreSQL). */
function answers(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 1000 });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true)).once("error", () => done(false)).once("timeout", () => done(false));
  });
}

/** One database: Edgeforge, then the bare server, on the same data. `serverUrl` empty = embedded PGlite. */
async function runDatabase(serverUrl) {
  const load = { start: loadavg(), end: "" };
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-bench-"));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));

  let database = null;
  let mode;
  if (serverUrl) {
    assertLoopback(serverUrl, "DATABASE_URL");
    database = await createBenchDatabase(serverUrl, "edgeforge_bench_");
    mode = `PostgreSQL at ${new URL(serverUrl).host}, database ${database.name}; bare server: pg Pool max 10`;
  } else {
    mode = "embedded PGlite (one Postgres session); bare server: pg Pool max 1 through pglite-socket";
  }
  log(`database: ${mode}`);

  log("starting Edgeforge as npm start does");
  const server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: database?.url, timeoutMs: 90_000 });
  cleanups.push(() => server.stop(20_000));
  log(`Edgeforge: ${server.apiUrl}`);

  const seedStart = Date.now();
  const { ids, withIssues } = await seed(server.host, PROJECTS);
  log(`seeded ${ids.length} projects and ${withIssues.length * ISSUES_PER_PROJECT} issues through the API in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
  if (database) await vacuumAnalyze(database.url);

  const stats = database ? { serverUrl, database: database.name } : null;
  const list = scenarios(ids, withIssues);
  const rows = list.map((s) => ({ endpoint: s.name, edgeforge: null, bare: null, bareNamed: null }));
  // The proxy's kept backends report their statistics when idle for 10 s or when they exit, which they
  // do after 10 s idle (scripts/ws-proxy.mjs `idleMs`): wait for that before reading the counters.
  const edgeforgeStats = stats && { ...stats, settle: () => new Promise((resolve) => setTimeout(resolve, 11_000)) };
  for (const [i, scenario] of list.entries()) rows[i].edgeforge = await measure("edgeforge", server.host, scenario, edgeforgeStats);

  const stopped = await server.stop(20_000);
  cleanups.pop();
  log(`Edgeforge stopped (exit ${stopped.code}${stopped.forced ? ", killed" : ""})`);

  const bareEnv = database
    ? { BARE_DATABASE_URL: database.url, BARE_POOL_MAX: "10", BARE_TOKEN: ROOT_TOKEN }
    : { BARE_PGLITE_DIR: path.join(dataDir, "pglite"), BARE_POOL_MAX: "1", BARE_TOKEN: ROOT_TOKEN };
  const bare = await startBare(bareScript, bareEnv, cleanups);
  log(`bare server: ${bare.base}`);
  const bareStats = stats && {
    ...stats,
    // Pooled backends flush their statistics only when idle or on exit: ask the server to let go.
    settle: () => request(bare.base, "POST", "/flush-stats", null, 204),
  };
  for (const [i, scenario] of list.entries()) rows[i].bare = await measure("bare", bare.base, scenario, bareStats);
  await bare.stop();
  cleanups.pop();
  if (BARE_NAMED) {
    const again = await startBare(bareScript, { ...bareEnv, BARE_NAMED: "1" }, cleanups);
    log(`bare server with named statements: ${again.base}`);
    const againStats = stats && { ...stats, settle: () => request(again.base, "POST", "/flush-stats", null, 204) };
    for (const [i, scenario] of list.entries()) rows[i].bareNamed = await measure("bare-named", again.base, scenario, againStats);
    await again.stop();
    cleanups.pop();
  }
  load.end = loadavg();
  return { rows, mode, load, counted: !!stats };
}

async function main() {
  const wanted = (process.env.BENCH_DATABASES || "pglite,postgres").split(",").map((s) => s.trim());
  let postgresUrl = process.env.DATABASE_URL || "";
  if (!postgresUrl && (await answers("127.0.0.1", 5432))) postgresUrl = "postgres://postgres@127.0.0.1:5432/postgres";
  const reports = [];
  const print = (report) => {
    printTable(report);
    if (!report.counted) console.log("SQL/req and conn/req are counted on PostgreSQL only (pg_stat_database).");
  };
  // Each database's table as soon as it is measured, and all of them again at the end.
  if (wanted.includes("pglite")) print(reports[reports.push(await runDatabase("")) - 1]);
  if (wanted.includes("postgres")) {
    if (postgresUrl) print(reports[reports.push(await runDatabase(postgresUrl)) - 1]);
    else log("PostgreSQL: nothing answers on 127.0.0.1:5432 and DATABASE_URL is unset; measured the embedded database only");
  }
  console.log("");
  console.log(machine());
  if (reports.length > 1) for (const report of reports) print(report);
  await finish();
  agent.destroy();
  log("done");
  process.exit(0);
}

main().catch(fail);
