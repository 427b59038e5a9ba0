#!/usr/bin/env node
// `npm run bench:alerts` (also run by `npm run bench`): the alert receiver's throughput and
// the alerts queue consumer's catch-up time, Edgeforge as `npm start` runs it (scripts/start.mjs: the Worker
// on workerd through Miniflare, its local queues).
//
//   database:  DATABASE_URL unset → embedded PGlite in a temporary DATA_DIR (as `npm start`);
//              DATABASE_URL set   → a fresh database `edgeforge_bench_alerts_<rand>` on that server (loopback
//              only), dropped at the end (bench/support.mjs#prepareDatabase).
//   set-up:    root creates a project and an HTTP alert integration by REST (`POST /projects`,
//              `POST /projects/:id/alert_management/http_integrations`).
//   measure:   BENCH_ALERT_CLIENTS (10) clients post BENCH_ALERTS (2,000) generic alerts in all, each client
//              one request at a time, to the integration's URL with its bearer token; the payloads spread over
//              BENCH_ALERT_FINGERPRINTS (50) fingerprints, so the consumer groups them. Accepted per second =
//              200 answers / the wall time of the posting. Then `GET /projects/:id/alert_management/alerts`
//              is polled every 250 ms until the alerts' `events` add up to the accepted count: the catch-up
//              time is from the first POST until then (the queue's delivery and batching included).
//
// Everything listens on and targets 127.0.0.1 only; the run stops itself after 5 minutes at most; everything
// started is stopped and temporary files and databases removed.
import { randomBytes } from "node:crypto";
import http from "node:http";
import { bootstrap } from "../scripts/bootstrap.mjs";
import { startServer } from "../test/e2e/server.mjs";
import { benchRun, jsonRequest, withDatabase } from "./support.mjs";

const ALERTS = Number(process.env.BENCH_ALERTS || 2_000);
const CLIENTS = Number(process.env.BENCH_ALERT_CLIENTS || 10);
const FINGERPRINTS = Number(process.env.BENCH_ALERT_FINGERPRINTS || 50);
const DEADLINE_MS = 295_000;
const POLL_MS = 250;
const ROOT_TOKEN = `glpat-bench${randomBytes(10).toString("hex")}`;

const { log, cleanups, fail, finish, machine, prepareDatabase } = benchRun({ label: "bench:alerts", deadlineMs: DEADLINE_MS });
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS + 2 });

/** One POST of `payload` to the receiver at `pathname`, as a monitoring tool sends it. */
function notify(host, pathname, token, payload) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(payload);
    const req = http.request(
      `${host}${pathname}`,
      {
        method: "POST",
        agent,
        timeout: 30_000,
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`POST ${pathname} timed out`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** The sum of `events` over the project's alerts (every page). */
async function eventsProcessed(ctx, projectId) {
  let total = 0;
  for (let page = 1; ; page++) {
    const res = await jsonRequest(ctx, "GET", `/projects/${projectId}/alert_management/alerts?per_page=100&page=${page}`);
    if (res.status !== 200) throw new Error(`GET alerts answered ${res.status}: ${res.text.slice(0, 200)}`);
    const rows = JSON.parse(res.text);
    for (const row of rows) total += row.events;
    if (!res.headers["x-next-page"]) return { total, alerts: rows.length + (page - 1) * 100 };
  }
}

async function main() {
  const { dataDir, target, mode } = await prepareDatabase("edgeforge_bench_alerts_");
  log(`database: ${mode}`);
  await withDatabase(target, (db) => bootstrap(db, { initialRootToken: ROOT_TOKEN }));

  const server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: target.url, timeoutMs: 90_000 });
  cleanups.push(() => server.stop(20_000));
  log(`Edgeforge: ${server.apiUrl}`);
  const ctx = { base: server.apiUrl, agent, token: ROOT_TOKEN };

  const created = await jsonRequest(ctx, "POST", "/projects", { name: "bench-alerts" });
  if (created.status !== 201) throw new Error(`POST /projects answered ${created.status}: ${created.text.slice(0, 200)}`);
  const project = JSON.parse(created.text);
  const made = await jsonRequest(ctx, "POST", `/projects/${project.id}/alert_management/http_integrations`, { name: "bench", active: true });
  if (made.status !== 201) throw new Error(`POST http_integrations answered ${made.status}: ${made.text.slice(0, 200)}`);
  const integration = JSON.parse(made.text);
  // The integration's URL is the web URL; the receiver answers on the same host as the API.
  const receiverPath = new URL(integration.url).pathname;
  log(`integration ${integration.id}: ${receiverPath}`);

  const statuses = new Map();
  let next = 0;
  const started = Date.now();
  async function client() {
    for (;;) {
      const i = next++;
      if (i >= ALERTS) return;
      const status = await notify(server.host, receiverPath, integration.token, {
        title: `Bench alert ${i % FINGERPRINTS}`,
        fingerprint: `bench-${i % FINGERPRINTS}`,
        severity: ["critical", "high", "medium", "low"][i % 4],
        description: `event ${i}`,
        hosts: [`host-${i % 7}`],
        monitoring_tool: "bench",
      });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  }
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const postSeconds = (Date.now() - started) / 1000;
  const accepted = statuses.get(200) ?? 0;
  log(`posted ${ALERTS} alerts in ${postSeconds.toFixed(1)} s: ${[...statuses].map(([s, n]) => `${n}×${s}`).join(", ")}`);
  if (accepted === 0) throw new Error("the receiver accepted no alert");

  let processed = { total: 0, alerts: 0 };
  for (;;) {
    processed = await eventsProcessed(ctx, project.id);
    if (processed.total >= accepted) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const catchUpSeconds = (Date.now() - started) / 1000;
  if (processed.total !== accepted) throw new Error(`the alerts count ${processed.total} events for ${accepted} accepted posts`);
  if (processed.alerts !== FINGERPRINTS) throw new Error(`${processed.alerts} alerts for ${FINGERPRINTS} fingerprints`);
  log(`the consumer had processed all ${accepted} in ${catchUpSeconds.toFixed(1)} s (${processed.alerts} alerts)`);

  console.log("");
  console.log(`Edgeforge alert receiver bench: ${mode}`);
  console.log(`${ALERTS} generic alerts over ${FINGERPRINTS} fingerprints, ${CLIENTS} concurrent clients (one request at a time each)`);
  console.log(machine());
  console.log("");
  console.log(`accepted: ${(accepted / postSeconds).toFixed(0)} alerts/s (${accepted} × 200 in ${postSeconds.toFixed(1)} s)`);
  console.log(`processed by the consumer (first POST → events add up): ${catchUpSeconds.toFixed(1)} s, ${(accepted / catchUpSeconds).toFixed(0)} alerts/s`);
  console.log(`(polled every ${POLL_MS} ms; the queue's delivery and batching are included)`);
  await finish();
  agent.destroy();
  log("done");
  process.exit(0);
}

main().catch(fail);
