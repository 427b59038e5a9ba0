#!/usr/bin/env node
// `npm run bench:pages`: time to first byte of a published Pages site (functions/pages/serve.ts), against
// Edgeforge started as `npm start` does (embedded PGlite, or DATABASE_URL's PostgreSQL when set).
//
//   set-up:   a public project whose `pages` job (run by the shipped shell runner) publishes an index.html
//             of about 10 kB and a gzip variant of a stylesheet, then the wait for the publish.
//   measure:  BENCH_REQUESTS (200) requests of each, one at a time after 20 warm-up requests, on
//             `<namespace>.pages.localhost` (sent as the Host header to the loopback port): the page (200
//             from R2), the page revalidated with its ETag (304, what a browser's cached copy costs), and
//             the stylesheet's gzip variant. TTFB is the time until the response's headers arrive.
//   report:   p50, p90, p99 and the max TTFB in ms, the answer's size in bytes, and the machine's load.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { runRunner } from "../scripts/runner/runner.mjs";
import { startServer, requiredApiCall } from "../test/e2e/server.mjs";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const ROOT_TOKEN = `glpat-bench${randomBytes(12).toString("hex")}`;
const YAML = `
pages:
  script:
    - mkdir -p public
    - for i in $(seq 1 200); do echo "<p>Paragraph $i of the bench page, long enough to weigh.</p>"; done > public/index.html
    - 'for i in $(seq 1 200); do echo ".c$i { color: red }"; done > public/style.css'
    - gzip -k public/style.css
  artifacts:
    paths: [public]
`;

const dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-bench-pages-"));
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
let server;

/** One GET on the site's host: ms until the headers arrived, the status, the ETag and the body's size. */
function timedGet(url, host, headers = {}) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const req = http.get(url, { headers: { Host: host, ...headers }, agent: keepAlive }, (res) => {
      const ttfb = Number(process.hrtime.bigint() - start) / 1e6;
      let bytes = 0;
      res.on("data", (chunk) => (bytes += chunk.length));
      res.on("end", () => resolve({ ttfb, bytes, status: res.statusCode, etag: res.headers.etag }));
    });
    req.on("error", reject);
  });
}

const api = (method, route, body) => requiredApiCall(server.apiUrl, ROOT_TOKEN, method, route, body);

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];

async function measure(name, url, host, headers, expected) {
  for (let i = 0; i < 20; i++) await timedGet(url, host, headers);
  const times = [];
  let bytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const r = await timedGet(url, host, headers);
    if (r.status !== expected) throw new Error(`${name}: ${r.status}, expected ${expected}`);
    times.push(r.ttfb);
    bytes = r.bytes;
  }
  times.sort((a, b) => a - b);
  const f = (n) => n.toFixed(1);
  console.log(`${name.padEnd(34)} p50 ${f(quantile(times, 0.5)).padStart(6)} ms  p90 ${f(quantile(times, 0.9)).padStart(6)} ms  p99 ${f(quantile(times, 0.99)).padStart(6)} ms  max ${f(times[times.length - 1]).padStart(6)} ms  ${bytes} bytes`);
}

try {
  server = await startServer({ dataDir: path.join(dataDir, "server"), rootToken: ROOT_TOKEN, databaseUrl: process.env.DATABASE_URL || undefined, timeoutMs: 180_000 });
  const tag = randomBytes(3).toString("hex");
  const project = await api("POST", "/projects", { name: `bench-pages-${tag}`, visibility: "public" });
  await api("POST", `/projects/${project.id}/repository/commits`, { branch: "main", commit_message: "Pages", actions: [{ action: "create", file_path: ".gitlab-ci.yml", content: YAML }] });
  const runner = await api("POST", "/user/runners", { runner_type: "project_type", project_id: project.id, description: "bench" });
  const opts = { url: server.host, token: runner.token, once: true, buildsDir: path.join(dataDir, "builds"), tags: [] };
  let settings = { deployments: [] };
  for (let i = 0; i < 100 && settings.deployments.length === 0; i++) {
    await runRunner(opts, () => undefined);
    settings = await api("GET", `/projects/${project.id}/pages`);
    if (settings.deployments.length === 0) await new Promise((r) => setTimeout(r, 300));
  }
  if (settings.deployments.length === 0) throw new Error(`the site was not published: ${JSON.stringify(await api("GET", `/projects/${project.id}/pipelines`))}`);
  const site = new URL(settings.url);
  const base = `${server.host}${site.pathname}`;
  const first = await timedGet(`${base}/`, site.host);
  console.log(`Pages TTFB on ${site.host}, ${REQUESTS} sequential requests each (load ${os.loadavg().map((n) => n.toFixed(2)).join(" ")})`);
  await measure("page (200 from R2)", `${base}/`, site.host, {}, 200);
  await measure("page revalidated (304, ETag)", `${base}/`, site.host, { "If-None-Match": first.etag }, 304);
  await measure("stylesheet, gzip variant", `${base}/style.css`, site.host, { "Accept-Encoding": "gzip" }, 200);
} finally {
  keepAlive.destroy();
  await server?.stop(20_000);
  await rm(dataDir, { recursive: true, force: true });
}
