#!/usr/bin/env node
// `npm run bench:cpu`: CPU time per request of each process of `npm start`'s stack (the Node
// process with the pooling proxy, workerd) on the hot read endpoints, per database transport: the raw TCP
// socket (`PG_TCP_PROXY`, the default) and the WebSocket (`PG_TRANSPORT=websocket`). CPU time, read from
// /proc/<pid>/stat before and after a fixed number of requests, depends far less on the machine's load than
// req/s does, so this is the figure to compare while other work runs. The servers are measured in
// alternation, BENCH_ROUNDS (2) times each, BENCH_REQUESTS (2,000) requests per endpoint, 10 connections;
// BENCH_ENDPOINTS (comma-separated) measures other or fewer endpoints.
import { randomBytes } from "node:crypto";
import http from "node:http";
import path from "node:path";
import autocannon from "autocannon";
import { startServer } from "../test/e2e/server.mjs";
import { CPU_TICKS, benchRun, groupCpu, jsonRequest, loadavg } from "./support.mjs";

const REQUESTS = Number(process.env.BENCH_REQUESTS || 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 2);
const ROOT_TOKEN = `glpat-cpu${randomBytes(10).toString("hex")}`;
const { log, cleanups, fail, finish, prepareDatabase } = benchRun({ label: "bench:cpu", deadlineMs: 900_000 });

async function measure(server, path) {
  const before = groupCpu(server.child.pid);
  const result = await autocannon({
    url: `${server.apiUrl}${path}`, connections: 10, amount: REQUESTS,
    headers: { "PRIVATE-TOKEN": ROOT_TOKEN },
  });
  const after = groupCpu(server.child.pid);
  if (result.errors || result.non2xx) throw new Error(`${path}: ${result.errors} errors, ${result.non2xx} non-2xx`);
  const perRequest = {};
  for (const [name, ticks] of Object.entries(after)) perRequest[name] = (((ticks - (before[name] ?? 0)) / CPU_TICKS) * 1000) / REQUESTS;
  return { perRequest, rps: result.requests.average };
}

try {
  process.env.DATABASE_URL ||= "postgres://postgres@127.0.0.1:5432/postgres";
  const { dataDir, target } = await prepareDatabase("edgeforge_cpu_");
  // BENCH_TRANSPORTS=tcp measures one transport only (half the time, for before/after comparisons).
  const transports = Object.fromEntries(
    Object.entries({ tcp: {}, websocket: { PG_TRANSPORT: "websocket" } }).filter(([name]) => (process.env.BENCH_TRANSPORTS || "tcp,websocket").split(",").includes(name)),
  );
  // BENCH_BASELINE=<another checkout with node_modules> also measures that checkout's server (over TCP), in
  // alternation with this one: a before/after comparison under the same load.
  const starters = Object.fromEntries(Object.keys(transports).map((name) => [name, startServer]));
  if (process.env.BENCH_BASELINE) {
    transports.baseline = {};
    starters.baseline = (await import(path.resolve(process.env.BENCH_BASELINE, "test/e2e/server.mjs"))).startServer;
  }
  const endpoints = (process.env.BENCH_ENDPOINTS || "/projects/:id,/projects?per_page=20,/projects/:id/issues?per_page=20").split(",");
  const totals = {};
  let projectId = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [transport, env] of Object.entries(transports)) {
      const server = await starters[transport]({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: target.url, env });
      cleanups.push(() => server.stop());
      const agent = new http.Agent({ keepAlive: true });
      const api = { base: server.apiUrl, agent, token: ROOT_TOKEN };
      if (!projectId) {
        const project = await jsonRequest(api, "POST", "/projects", { name: `cpu-${randomBytes(3).toString("hex")}`, initialize_with_readme: true });
        projectId = JSON.parse(project.text).id;
        for (let i = 0; i < 25; i++) await jsonRequest(api, "POST", `/projects/${projectId}/issues`, { title: `issue ${i}` });
        // BENCH_PROJECTS (1) projects in all, so that `GET /projects?per_page=20` lists full pages as `npm run bench` does.
        for (let i = 1; i < Number(process.env.BENCH_PROJECTS || 1); i++) await jsonRequest(api, "POST", "/projects", { name: `more-${i}-${randomBytes(3).toString("hex")}` });
      }
      for (const endpoint of endpoints) {
        const path = endpoint.replace(":id", String(projectId));
        await measure(server, path); // warm-up
        const { perRequest, rps } = await measure(server, path);
        const key = `${endpoint}\t${transport}`;
        totals[key] ??= { runs: 0, rps: 0, cpu: {} };
        totals[key].runs++;
        totals[key].rps += rps;
        for (const [name, ms] of Object.entries(perRequest)) totals[key].cpu[name] = (totals[key].cpu[name] ?? 0) + ms;
        log(`${transport} ${endpoint}: ${rps.toFixed(0)} req/s, CPU ms/request ${JSON.stringify(Object.fromEntries(Object.entries(perRequest).map(([k, v]) => [k, +v.toFixed(2)])))} (load ${loadavg()})`);
      }
      agent.destroy();
      await server.stop();
      cleanups.pop();
    }
  }
  console.log("\nendpoint\ttransport\treq/s\tCPU ms per request by process (mean of rounds)");
  for (const [key, t] of Object.entries(totals)) {
    const cpu = Object.entries(t.cpu).map(([k, v]) => `${k} ${(v / t.runs).toFixed(2)}`).join(", ");
    const sum = Object.values(t.cpu).reduce((a, b) => a + b, 0) / t.runs;
    console.log(`${key}\t${(t.rps / t.runs).toFixed(0)}\t${cpu}; total ${sum.toFixed(2)}`);
  }
  void dataDir;
  await finish();
} catch (error) {
  await fail(error);
}
