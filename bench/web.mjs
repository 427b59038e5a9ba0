#!/usr/bin/env node
// `npm run bench:web`: time to first byte of the web front's project page and issue page
// (functions/web), against Edgeforge started as `npm start` does (embedded PGlite, or DATABASE_URL's
// PostgreSQL when set). The goal is a p50 under 50 ms.
//
//   set-up:   a public project with a README and a few files, an issue with a Markdown description,
//             labels and BENCH_NOTES (20) comments, through the API.
//   measure:  BENCH_REQUESTS (200) requests of each page, one at a time after 20 warm-up requests, as an
//             anonymous visitor and as a signed-in one (the session cookie costs one statement); TTFB is
//             the time until the response's headers arrive (the page is rendered before they are sent).
//   report:   p50, p90, p99 and the max TTFB in ms, the page's size in bytes, and the machine's load.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { startServer, requiredApiCall } from "../test/e2e/server.mjs";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const NOTES = Number(process.env.BENCH_NOTES ?? 20);
const ROOT_TOKEN = `glpat-bench${randomBytes(12).toString("hex")}`;
const PASSWORD = "bench web pages 1234";

const dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-bench-web-"));
let server;

/** One GET: ms until the headers arrived, and the body's size. */
function timedGet(url, cookie) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const req = http.get(url, { headers: cookie ? { Cookie: cookie } : {}, agent: keepAlive }, (res) => {
      const ttfb = Number(process.hrtime.bigint() - start) / 1e6;
      let bytes = 0;
      res.on("data", (chunk) => (bytes += chunk.length));
      res.on("end", () => (res.statusCode === 200 ? resolve({ ttfb, bytes }) : reject(new Error(`${url}: ${res.statusCode}`))));
    });
    req.on("error", reject);
  });
}
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

const api = (method, route, body) => requiredApiCall(server.apiUrl, ROOT_TOKEN, method, route, body);

/** The session cookie of a user signed in through the form (the CSRF cookie and token first). */
async function signIn(username) {
  const form = await fetch(`${server.host}/users/sign_in`);
  const csrfCookie = form.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const token = /name="authenticity_token" value="([^"]+)"/.exec(await form.text())[1];
  const body = new URLSearchParams({ authenticity_token: token, "user[login]": username, "user[password]": PASSWORD });
  const res = await fetch(`${server.host}/users/sign_in`, { method: "POST", body, headers: { Cookie: csrfCookie }, redirect: "manual" });
  const session = res.headers.getSetCookie().find((c) => c.startsWith("_edgeforge_session="));
  if (!session) throw new Error(`sign-in failed: ${res.status}`);
  return session.split(";")[0];
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];

async function measure(name, url, cookie) {
  for (let i = 0; i < 20; i++) await timedGet(url, cookie);
  const times = [];
  let bytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const r = await timedGet(url, cookie);
    times.push(r.ttfb);
    bytes = r.bytes;
  }
  times.sort((a, b) => a - b);
  const f = (n) => n.toFixed(1);
  console.log(`${name.padEnd(36)} p50 ${f(quantile(times, 0.5)).padStart(6)} ms  p90 ${f(quantile(times, 0.9)).padStart(6)} ms  p99 ${f(quantile(times, 0.99)).padStart(6)} ms  max ${f(times[times.length - 1]).padStart(6)} ms  ${bytes} bytes`);
  return quantile(times, 0.5);
}

try {
  server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: process.env.DATABASE_URL || undefined, timeoutMs: 180_000 });
  const tag = randomBytes(3).toString("hex");
  const user = await api("POST", "/users", { username: `bench_${tag}`, name: "Bench User", email: `bench_${tag}@example.com`, password: PASSWORD, skip_confirmation: true });
  const project = await api("POST", "/projects", { name: `bench-web-${tag}`, visibility: "public" });
  await api("POST", `/projects/${project.id}/members`, { user_id: user.id, access_level: 30 });
  await api("POST", `/projects/${project.id}/repository/commits`, {
    branch: "main",
    commit_message: "Initial commit",
    actions: [
      { action: "create", file_path: "README.md", content: `# Bench\n\n${"Some **Markdown** with a [link](https://example.com) and `code`.\n\n".repeat(20)}` },
      { action: "create", file_path: "src/index.js", content: "export const answer = 42;\n" },
      { action: "create", file_path: "src/util.ts", content: "export const twice = (n: number) => 2 * n;\n" },
    ],
  });
  const issue = await api("POST", `/projects/${project.id}/issues`, { title: "A bench issue", description: "It is **slow** when:\n\n- one\n- two\n\n```js\nconst x = 1;\n```\n", labels: "bug,performance" });
  for (let i = 0; i < NOTES; i++) await api("POST", `/projects/${project.id}/issues/${issue.iid}/notes`, { body: `Comment ${i} with *emphasis* and #${issue.iid}` });
  const cookie = await signIn(user.username);
  const base = `${server.host}/${project.path_with_namespace}`;
  console.log(`web TTFB, ${REQUESTS} sequential requests each (load ${os.loadavg().map((n) => n.toFixed(2)).join(" ")})`);
  const p50s = [
    await measure("project page (anonymous)", base),
    await measure("project page (signed in)", base, cookie),
    await measure(`issue page, ${NOTES} notes (anonymous)`, `${base}/-/issues/${issue.iid}`),
    await measure(`issue page, ${NOTES} notes (signed in)`, `${base}/-/issues/${issue.iid}`, cookie),
  ];
  console.log(`goal p50 < 50 ms: ${p50s.every((p) => p < 50) ? "met" : "not met"}`);
} finally {
  keepAlive.destroy();
  await server?.stop(20_000);
  await rm(dataDir, { recursive: true, force: true });
}
