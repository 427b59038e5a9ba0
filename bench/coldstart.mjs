#!/usr/bin/env node
// `npm run bench:coldstart` (`node bench/coldstart.mjs`): what the Worker's own start-up
// costs. workerd freezes the clock while JavaScript runs (performance.now() and Date.now() do not move
// during a module's evaluation), so the cost is measured from outside: a fresh workerd (a fresh isolate) is
// started BENCH_ROUNDS (7) times with the deployable bundle and, in alternation, with a stub Worker that has
// the same bindings and exports but no code; each round times the start (`new Miniflare` → ready, which
// compiles and evaluates the script) and the first request (a 404 that needs no database). The difference
// of the medians is the bundle's compile, module evaluation and first-request work, in wall time and in
// workerd's CPU time (from /proc, far less sensitive to the machine's load). Also prints the
// bundle's size and gzip size (test/node/bundle_size.test.mjs pins the latter below 1 MiB).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { bundledWorkerOptions, bundleWorker } from "../scripts/worker-host.mjs";
import { loadavg } from "./support.mjs";

const require = createRequire(import.meta.url);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 7);

const dir = mkdtempSync(path.join(os.tmpdir(), "edgeforge-coldstart-"));
try {
  const scriptPath = bundleWorker(path.join(dir, "bundle"));
  const modules = readdirSync(path.dirname(scriptPath)).filter((f) => /\.m?js$/.test(f));
  const raw = modules.reduce((n, f) => n + statSync(path.join(path.dirname(scriptPath), f)).size, 0);
  const gzip = modules.reduce((n, f) => n + gzipSync(readFileSync(path.join(path.dirname(scriptPath), f)), { level: 9 }).length, 0);
  console.log(`bundle: ${modules.length} module(s), ${(raw / 1024).toFixed(0)} KiB, gzip ${(gzip / 1024).toFixed(0)} KiB`);

  // The same exports as functions/index.ts (the Durable Object class and the three handlers), no code.
  const stubPath = path.join(dir, "stub", "index.js");
  rmSync(path.dirname(stubPath), { recursive: true, force: true });
  mkdirSync(path.dirname(stubPath), { recursive: true });
  writeFileSync(
    stubPath,
    `import { DurableObject } from "cloudflare:workers";
export class PipelineCoordinator extends DurableObject {}
export default { fetch: () => new Response("not found", { status: 404 }), queue() {}, scheduled() {} };\n`,
  );

  const { Miniflare } = require("miniflare");
  const persist = path.join(dir, "persist");
  async function once(script) {
    const t0 = performance.now();
    const options = bundledWorkerOptions(script, { DATABASE_URL: "postgres://127.0.0.1:1/none" });
    // The module is given as it is: with `modules: true` Miniflare would first parse the whole bundle in
    // Node (acorn) to find its imports, seconds that are Node's, not the Worker's.
    delete options.scriptPath;
    options.modules = [{ type: "ESModule", path: script, contents: readFileSync(script, "utf8") }];
    const mf = new Miniflare({ ...options, durableObjectsPersist: persist });
    await mf.ready;
    const t1 = performance.now();
    const response = await mf.dispatchFetch("http://localhost/cold-start-probe");
    await response.arrayBuffer();
    const t2 = performance.now();
    const cpu = workerdCpuMs();
    await mf.dispose();
    if (response.status !== 404) throw new Error(`probe answered ${response.status}`);
    return { start: t1 - t0, first: t2 - t1, cpu };
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  /** CPU time (user + system, all threads) of this process's workerd child so far, from /proc. */
  function workerdCpuMs() {
    let ticks = 0;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const close = stat.lastIndexOf(")");
        const fields = stat.slice(close + 2).split(" ");
        if (stat.slice(stat.indexOf("(") + 1, close) !== "workerd" || Number(fields[1]) !== process.pid) continue; // field 4: ppid
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // ended meanwhile
      }
    }
    return ticks * 10; // USER_HZ 100
  }
  const load0 = loadavg();
  await once(stubPath); // warms Node's own module cache and the workerd binary's page cache
  const real = [];
  const stub = [];
  for (let i = 0; i < ROUNDS; i++) {
    real.push(await once(scriptPath));
    stub.push(await once(stubPath));
  }
  const r = { start: median(real.map((x) => x.start)), first: median(real.map((x) => x.first)), cpu: median(real.map((x) => x.cpu)) };
  const s = { start: median(stub.map((x) => x.start)), first: median(stub.map((x) => x.first)), cpu: median(stub.map((x) => x.cpu)) };
  console.log(`load ${load0} → ${loadavg()}, ${ROUNDS} rounds, medians:`);
  console.log(`  bundle: start ${r.start.toFixed(1)} ms, first request ${r.first.toFixed(1)} ms`);
  console.log(`  stub:   start ${s.start.toFixed(1)} ms, first request ${s.first.toFixed(1)} ms`);
  console.log(`  the Worker's own start-up (compile + module evaluation + first-request work): ${(r.start + r.first - s.start - s.first).toFixed(1)} ms of wall time`);
  // CPU time depends far less on the machine's load than wall time: the figure to compare with 50 ms.
  console.log(`  workerd CPU to the first response: bundle ${r.cpu} ms, stub ${s.cpu} ms; the Worker's own: ${r.cpu - s.cpu} ms (10 ms ticks)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
