#!/usr/bin/env node
// `npm run bench:memory` (`node bench/memory.mjs`): whether the Worker keeps anything per
// request. `npm start`'s stack on PostgreSQL (DATABASE_URL, or 127.0.0.1:5432) answers BENCH_MEMORY_TOTAL
// (200,000) requests, cycling through the three hot read endpoints (`GET /projects/:id`,
// `GET /projects?per_page=20`, `GET /projects/:id/issues?per_page=20`) on 10 connections as root; workerd's
// resident memory (VmRSS of the workerd processes of the stack's process group, from /proc) is read after
// BENCH_MEMORY_FIRST (20,000) requests and at every further 20,000. Target: the last reading within 10% of
// the first. BENCH_MEMORY_HEAP=1 also forces a full garbage collection in the isolate before each reading
// and reads its live JS heap (`HeapProfiler.collectGarbage`, `Runtime.getHeapUsage` through workerd's DevTools
// inspector), since RSS mixes what requests keep with what V8 has not collected yet; on this workerd the
// load that follows the first forced collection stalled, so it is off by default. Then, as the baseline,
// the same count of requests goes to a stub Worker (one small JSON answer, no code of ours) on workerd
// through Miniflare as `npm start` runs it: what the runtime itself keeps per request. Not a test: it runs for many minutes and its figure goes in docs/performance.md.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import autocannon from "autocannon";
import { bundledWorkerOptions } from "../scripts/worker-host.mjs";
import { freePort, startServer } from "../test/e2e/server.mjs";
import { benchRun, inspector, jsonRequest, loadavg } from "./support.mjs";

const TOTAL = Number(process.env.BENCH_MEMORY_TOTAL || 200_000);
const STEP = Number(process.env.BENCH_MEMORY_FIRST || 20_000);
const ROOT_TOKEN = `glpat-mem${randomBytes(10).toString("hex")}`;
const { log, cleanups, fail, finish, prepareDatabase } = benchRun({ label: "bench:memory", deadlineMs: 60 * 60_000 });

/** Resident KiB of the workerd processes in process group `pgid` (or whose parent is `ppid`). */
function workerdRss(pgid, ppid) {
  let kib = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      if (stat.slice(stat.indexOf("(") + 1, close) !== "workerd") continue;
      if (ppid ? Number(fields[1]) !== ppid : Number(fields[2]) !== pgid) continue;
      kib += Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // the process ended meanwhile
    }
  }
  return kib;
}

try {
  process.env.DATABASE_URL ||= "postgres://postgres@127.0.0.1:5432/postgres";
  const { dataDir, target } = await prepareDatabase("edgeforge_mem_");
  const heap = process.env.BENCH_MEMORY_HEAP === "1";
  const inspectorPort = heap ? await freePort() : null;
  const server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: target.url, env: heap ? { INSPECTOR_PORT: String(inspectorPort) } : {} });
  cleanups.push(() => server.stop());
  const agent = new http.Agent({ keepAlive: true });
  const api = { base: server.apiUrl, agent, token: ROOT_TOKEN };
  const project = await jsonRequest(api, "POST", "/projects", { name: `mem-${randomBytes(3).toString("hex")}`, initialize_with_readme: true });
  const projectId = JSON.parse(project.text).id;
  for (let i = 0; i < 20; i++) await jsonRequest(api, "POST", `/projects/${projectId}/issues`, { title: `issue ${i}` });
  for (let i = 0; i < 20; i++) await jsonRequest(api, "POST", "/projects", { name: `more-${i}-${randomBytes(3).toString("hex")}` });
  agent.destroy();
  const devtools = heap ? await inspector(inspectorPort) : null;
  if (devtools) cleanups.push(() => devtools.close());
  const paths = ["/projects/:id", "/projects?per_page=20", "/projects/:id/issues?per_page=20"].map((p) => `/api/v4${p.replace(":id", String(projectId))}`);
  const origin = new URL(server.apiUrl).origin;
  const readings = [];
  let sent = 0;
  while (sent < TOTAL) {
    const result = await autocannon({
      url: origin,
      connections: 10,
      amount: STEP,
      requests: paths.map((path) => ({ method: "GET", path, headers: { "PRIVATE-TOKEN": ROOT_TOKEN } })),
      // A loaded machine (the bench runs for half an hour) can hold a request past autocannon's 10 s.
      timeout: 60,
    });
    if (result.non2xx || result.errors > STEP / 1000) throw new Error(`${result.errors} errors, ${result.non2xx} non-2xx`);
    if (result.errors) log(`${result.errors} requests timed out or failed at the client`);
    sent += STEP;
    let usedSize = NaN;
    if (devtools) {
      await devtools.send("HeapProfiler.collectGarbage");
      ({ usedSize } = await devtools.send("Runtime.getHeapUsage"));
    }
    const rss = workerdRss(server.child.pid);
    readings.push({ sent, rss, heap: usedSize / 1024, rps: result.requests.average });
    const heapText = devtools ? `, isolate JS heap after GC ${(usedSize / 1048576).toFixed(1)} MiB` : "";
    log(`${sent} requests: workerd RSS ${(rss / 1024).toFixed(1)} MiB${heapText} (${result.requests.average.toFixed(0)} req/s, load ${loadavg()})`);
  }
  const first = readings[0];
  const last = readings[readings.length - 1];
  console.log(`\nworkerd RSS after ${first.sent}: ${(first.rss / 1024).toFixed(1)} MiB; after ${last.sent}: ${(last.rss / 1024).toFixed(1)} MiB; ratio ${(last.rss / first.rss).toFixed(3)} (target at most 1.100)`);
  if (devtools) console.log(`isolate JS heap after GC: ${(first.heap / 1024).toFixed(1)} → ${(last.heap / 1024).toFixed(1)} MiB; ratio ${(last.heap / first.heap).toFixed(3)}`);
  console.log(`RSS growth per request: ${(((last.rss - first.rss) * 1024) / (last.sent - first.sent)).toFixed(1)} bytes`);
  await server.stop();

  // The baseline: a stub Worker with the same bindings, the same count of requests.
  const stubDir = mkdtempSync(path.join(os.tmpdir(), "edgeforge-memstub-"));
  cleanups.push(() => rmSync(stubDir, { recursive: true, force: true }));
  const stubPath = path.join(stubDir, "index.js");
  writeFileSync(
    stubPath,
    `import { DurableObject } from "cloudflare:workers";
export class PipelineCoordinator extends DurableObject {}
export default { fetch: (request) => Response.json({ url: request.url, pad: "x".repeat(1800) }), queue() {}, scheduled() {} };\n`,
  );
  const { Miniflare } = createRequire(import.meta.url)("miniflare");
  const stub = new Miniflare({ ...bundledWorkerOptions(stubPath, {}), host: "127.0.0.1", port: 0, durableObjectsPersist: path.join(stubDir, "do") });
  cleanups.push(() => stub.dispose());
  const stubUrl = await stub.ready;
  const base = [];
  for (let n = 0; n < TOTAL; n += STEP) {
    const result = await autocannon({ url: stubUrl.href, connections: 10, amount: STEP });
    if (result.errors || result.non2xx) throw new Error(`stub: ${result.errors} errors, ${result.non2xx} non-2xx`);
    base.push(workerdRss(0, process.pid));
  }
  log(`stub Worker: workerd RSS ${base.map((kib) => (kib / 1024).toFixed(0)).join(", ")} MiB every ${STEP} requests`);
  console.log(`stub Worker (the runtime alone): after ${STEP}: ${(base[0] / 1024).toFixed(1)} MiB; after ${TOTAL}: ${(base[base.length - 1] / 1024).toFixed(1)} MiB; ratio ${(base[base.length - 1] / base[0]).toFixed(3)}`);
  void dataDir;
  await finish();
} catch (error) {
  await fail(error);
}
