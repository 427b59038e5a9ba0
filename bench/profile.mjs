#!/usr/bin/env node
// `node bench/profile.mjs`: a V8 CPU profile of the Worker's isolate while it answers the hot read
// endpoints, summarised as self time per function: the bundle is minified (wrangler.toml), so each frame is
// named by its place in the source through the bundle's source map (`file:line`). It starts `npm start`'s stack with INSPECTOR_PORT (workerd's DevTools inspector), warms
// each endpoint up, then records `Profiler.start` … `Profiler.stop` over BENCH_REQUESTS (2,000) requests on
// 10 connections. Self time in a sampling profile is a share of the isolate's busy time, so the figures are
// comparable between runs even on a loaded machine; `npm run bench:cpu` gives the absolute CPU per request.
// BENCH_PROFILE_OUT=<dir> also writes each raw profile (`.cpuprofile`, opens in Chrome DevTools).
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import autocannon from "autocannon";
import { freePort, startServer } from "../test/e2e/server.mjs";
import { benchRun, inspector, jsonRequest, loadavg } from "./support.mjs";

const REQUESTS = Number(process.env.BENCH_REQUESTS || 2000);
const TOP = Number(process.env.BENCH_TOP || 40);
const ROOT_TOKEN = `glpat-prof${randomBytes(10).toString("hex")}`;
const { log, cleanups, fail, finish, prepareDatabase } = benchRun({ label: "bench:profile", deadlineMs: 900_000 });

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * A source map's lookup: generated (0-based line, column) → `file:line` of the source (the function's start), from the
 * map's VLQ mappings (decoded here: the map is version 3 as esbuild writes it).
 */
function sourceMapLookup(mapPath) {
  const map = JSON.parse(readFileSync(mapPath, "utf8"));
  const lines = [];
  const state = [0, 0, 0]; // source, source line, source column: relative across the whole map
  for (const text of map.mappings.split(";")) {
    const segments = [];
    let column = 0;
    for (const segment of text.split(",")) {
      if (!segment) continue;
      const values = [];
      let value = 0;
      let shift = 0;
      for (const ch of segment) {
        const digit = BASE64.indexOf(ch);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += values[0];
      if (values.length < 4) continue;
      for (let i = 0; i < 3; i++) state[i] += values[i + 1];
      segments.push([column, state[0], state[1]]);
    }
    lines.push(segments);
  }
  return (line, column) => {
    const segments = lines[line];
    if (!segments?.length) return null;
    let lo = 0;
    let hi = segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (segments[mid][0] <= column) lo = mid;
      else hi = mid - 1;
    }
    const [, source, sourceLine] = segments[lo];
    const file = map.sources[source].replace(/^.*?node_modules\//, "").replace(/^.*?\/(functions|db)\//, "$1/");
    return `${file}:${sourceLine + 1}`;
  };
}

/** Self time per function (name, line) from a V8 CPU profile, in ms, with the total sampled time. */
function summarise(profile, lookup) {
  const dt = new Map();
  const { samples, timeDeltas, nodes } = profile;
  for (let i = 0; i < samples.length; i++) dt.set(samples[i], (dt.get(samples[i]) ?? 0) + (timeDeltas[i] ?? 0));
  const byFunction = new Map();
  let total = 0;
  let idle = 0;
  for (const node of nodes) {
    const us = dt.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") {
      idle += us;
      continue;
    }
    total += us;
    const mapped = lookup && url.endsWith("index.js") ? lookup(lineNumber, node.callFrame.columnNumber) : null;
    const key = mapped ?? `${functionName || "(anonymous)"} ${url ? path.basename(url) : ""}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  return { total, idle, byFunction };
}

try {
  process.env.DATABASE_URL ||= "postgres://postgres@127.0.0.1:5432/postgres";
  const { dataDir, target } = await prepareDatabase("edgeforge_prof_");
  const inspectorPort = await freePort();
  const server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: target.url, env: { INSPECTOR_PORT: String(inspectorPort) } });
  cleanups.push(() => server.stop());
  const agent = new http.Agent({ keepAlive: true });
  const api = { base: server.apiUrl, agent, token: ROOT_TOKEN };
  const project = await jsonRequest(api, "POST", "/projects", { name: `prof-${randomBytes(3).toString("hex")}`, initialize_with_readme: true });
  const projectId = JSON.parse(project.text).id;
  for (let i = 0; i < 25; i++) await jsonRequest(api, "POST", `/projects/${projectId}/issues`, { title: `issue ${i}` });
  // BENCH_PROJECTS (1) projects in all, so that `GET /projects?per_page=20` lists full pages as `npm run bench` does.
  for (let i = 1; i < Number(process.env.BENCH_PROJECTS || 1); i++) await jsonRequest(api, "POST", "/projects", { name: `more-${i}-${randomBytes(3).toString("hex")}` });
  const endpoints = (process.env.BENCH_ENDPOINTS || "/projects/:id,/projects?per_page=20,/projects/:id/issues?per_page=20").split(",");
  const mapPath = path.join(dataDir, "worker", "bundle", "index.js.map"); // scripts/start.mjs's bundle
  const lookup = existsSync(mapPath) ? sourceMapLookup(mapPath) : null;
  const devtools = await inspector(inspectorPort);
  log(`inspector target: ${devtools.title}`);
  await devtools.send("Profiler.enable");
  await devtools.send("Profiler.setSamplingInterval", { interval: 100 });
  for (const endpoint of endpoints) {
    const url = `${server.apiUrl}${endpoint.replace(":id", String(projectId))}`;
    const run = () => autocannon({ url, connections: 10, amount: REQUESTS, headers: { "PRIVATE-TOKEN": ROOT_TOKEN } });
    await run(); // warm-up
    await devtools.send("Profiler.start");
    const result = await run();
    const { profile } = await devtools.send("Profiler.stop");
    if (result.errors || result.non2xx) throw new Error(`${endpoint}: ${result.errors} errors, ${result.non2xx} non-2xx`);
    if (process.env.BENCH_PROFILE_OUT) writeFileSync(path.join(process.env.BENCH_PROFILE_OUT, `${endpoint.replace(/[^a-z0-9]+/gi, "_")}.cpuprofile`), JSON.stringify(profile));
    const { total, idle, byFunction } = summarise(profile, lookup);
    console.log(`\n${endpoint}: ${REQUESTS} requests, isolate busy ${(total / 1000 / REQUESTS).toFixed(3)} ms per request (sampled), idle ${(idle / 1000).toFixed(0)} ms; load ${loadavg()}`);
    const rows = [...byFunction.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP);
    for (const [key, us] of rows) console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000 / REQUESTS).toFixed(4)} ms/req  ${key}`);
  }
  devtools.close();
  agent.destroy();
  void dataDir;
  await finish();
} catch (error) {
  await fail(error);
}
