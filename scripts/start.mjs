#!/usr/bin/env node
// `npm start` (docs/architecture.md, "Running locally"): the database (embedded PGlite, or DATABASE_URL), migrations and
// bootstrap, the WebSocket proxy, then the Worker on workerd through Miniflare (scripts/worker-host.mjs
// says why not `wrangler dev`).
// Non-interactive; one progress line per step; Ctrl-C stops everything it started.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bootstrap, rootTokenFileState } from "./bootstrap.mjs";
import { migratePglite, migratePostgres, migrationsPending, SchemaNewerError } from "./migrate.mjs";
import { cronsOf, startCronTicker } from "./cron-ticker.mjs";
import { prepareShellRunner, startShellRunner } from "./runner/shell.mjs";
// pg, PGlite, the proxy and the Worker's host are imported once the port is known to be free: they
// take most of a second to load, and a port in use is reported before that.

const startedAt = Date.now();
const root = fileURLToPath(new URL("..", import.meta.url));
const port = Number(process.env.PORT || 8787);
const dataDir = path.resolve(process.env.DATA_DIR || path.join(root, ".data"));
const databaseUrl = process.env.DATABASE_URL || "";
const initialRootToken = process.env.INITIAL_ROOT_TOKEN || undefined;
const externalUrl = process.env.EXTERNAL_URL || "";
// RUNNER=shell also starts the shipped shell runner (scripts/runner/runner.mjs). Off by default: it
// executes repository code on this machine.
const runnerMode = process.env.RUNNER || "";
// One line per request (Miniflare's request log: method, path without the query string, status,
// duration) unless ACCESS_LOG=0.
const logRequests = !["0", "false", "off", "no"].includes((process.env.ACCESS_LOG ?? "").toLowerCase());
// GitLab's /etc/gitlab/initial_root_password: root's generated token (scripts/bootstrap.mjs).
const rootTokenFile = path.join(dataDir, "initial_root_token");

const log = (line) => console.log(`[edgeforge] ${line}`);
/** " (1.2 s)": the time since `since`, for the progress lines. */
const took = (since) => ` (${((Date.now() - since) / 1000).toFixed(1)} s)`;
const cleanups = [];
let stopping = false;

async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.error(error);
    }
  }
  process.exit(code);
}
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

/** host:port of a postgres:// URL, as the driver names it in the proxy's `?address=`. */
function databaseAddress(url) {
  const { hostname, port } = new URL(url);
  return `${hostname.replace(/^\[(.*)\]$/, "$1")}:${port || 5432}`;
}

function isLoopback(url) {
  const host = new URL(url).hostname;
  return host === "localhost" || host === "::1" || host === "[::1]" || host.startsWith("127.");
}

/**
 * Fails within a second when PORT is taken, before the database and the bundle: Miniflare would only
 * find out when workerd binds it, many seconds later, with a stack trace advising its own `--port`.
 * (A check, not a reservation: something could still take the port before workerd binds it.)
 */
async function checkPort() {
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error(`[edgeforge] PORT=${process.env.PORT} is not a port number (1-65535)`);
    process.exit(1);
  }
  const code = await new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", (error) => resolve(error.code ?? String(error)));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(null)));
  });
  if (!code) return;
  const why = code === "EADDRINUSE" ? "is already in use (another npm start?)" : code === "EACCES" ? "needs privileges" : `cannot be opened (${code})`;
  console.error(`[edgeforge] port ${port} on 127.0.0.1 ${why}: choose another one with PORT=, e.g. PORT=${port === 65535 ? 8788 : port + 1} npm start`);
  process.exit(1);
}

/**
 * Migrations (skipped at once when the database is up to date), bootstrap, and what the Node side must
 * read before the Worker shares the database: the state of root's token file, the shell runner's
 * registration. `db` is a pg Client or PGlite.
 */
async function migrateAndBootstrap(db, migrate) {
  const started = Date.now();
  if (await migrationsPending(db)) {
    await migrate();
    log(`migrations applied${took(started)}`);
  } else log(`migrations: up to date${took(started)}`);
  const result = await bootstrap(db, { initialRootToken, rootTokenFile });
  const tokenFileState = await rootTokenFileState(db, rootTokenFile);
  const runner = runnerMode === "shell" ? await prepareShellRunner(db, dataDir) : null;
  return { ...result, tokenFileState, runner };
}

async function prepareDatabase() {
  if (databaseUrl) {
    log(`database: ${new URL(databaseUrl).host} (DATABASE_URL)`);
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return { url: databaseUrl, serialized: null, ...(await migrateAndBootstrap(client, () => migratePostgres(databaseUrl))) };
    } finally {
      await client.end();
    }
  }
  const pgliteDir = path.join(dataDir, "pglite");
  mkdirSync(pgliteDir, { recursive: true });
  const opening = Date.now();
  const { openPglite, servePglite } = await import("./pglite-server.mjs");
  const pglite = await openPglite({ dataDir: pgliteDir });
  cleanups.push(() => pglite.close());
  log(`database: embedded PGlite in ${pgliteDir}${took(opening)}`);
  const result = await migrateAndBootstrap(pglite, () => migratePglite(pglite));
  const server = await servePglite(pglite);
  cleanups.push(() => server.close());
  return { url: server.url, serialized: `127.0.0.1:${server.port}`, ...result };
}

/** What start says about root's token: where it is, until it has been used; how to choose one. */
function rootTokenNotice(database) {
  const choose = "start with INITIAL_ROOT_TOKEN=<value> to add a token of your choice";
  if (database.rootToken) return `root personal access token: ${database.rootToken} (kept in ${rootTokenFile}, mode 0600)`;
  if (initialRootToken) return "root personal access token: the value of INITIAL_ROOT_TOKEN";
  switch (database.tokenFileState) {
    case "unused":
      return `root personal access token: in ${rootTokenFile} (shown until it is first used; or ${choose})`;
    case "used":
      return `root personal access token: the one generated at the first start, already in use (${choose})`;
    case "revoked":
      return `root personal access token: the one in ${rootTokenFile} was revoked; ${choose}`;
    default:
      // "stale" or "none": generated before tokens were kept in a file, or by a start on another
      // machine (a shared DATABASE_URL), or the file was deleted.
      return `root personal access token: not kept in ${dataDir} (generated by an earlier start, or by another machine on this DATABASE_URL); ${choose}`;
  }
}

/** Until the Worker answers; its HEAD requests are announced to the request log, which leaves them out. */
async function waitForReady(requestLog) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      requestLog?.probe();
      const res = await fetch(`http://127.0.0.1:${port}/api/v4/version`, { method: "HEAD" });
      if (res.status === 401) return;
    } catch {
      // not listening yet (no line will be logged for it)
      requestLog?.probe(-1);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error("the Worker did not answer within 120 s");
}

let database = null;
try {
  await checkPort();
  const [{ startWsProxy }, { accessLog, cachedBundle, startWorker }] = await Promise.all([import("./ws-proxy.mjs"), import("./worker-host.mjs")]);
  database = await prepareDatabase();
  const vars = { DATABASE_URL: database.url };
  if (isLoopback(database.url)) {
    const target = databaseAddress(database.url);
    const proxy = await startWsProxy({ serialize: (address) => address === database.serialized, tcpTarget: target });
    cleanups.push(() => proxy.close());
    vars.WS_PROXY = `127.0.0.1:${proxy.port}`;
    if (proxy.tcpPort && process.env.PG_TRANSPORT !== "websocket") vars.PG_TCP_PROXY = `127.0.0.1:${proxy.tcpPort}`;
    log(`websocket proxy on 127.0.0.1:${proxy.port}${database.serialized ? " (serialising PGlite)" : ""}`);
    // `npm run backup` reads a running embedded database through the proxy, one unit of work at a
    // time like the Worker, never through a second PGlite on the same files.
    if (database.serialized && proxy.tcpPort) {
      const serverFile = path.join(dataDir, "server.json");
      writeFileSync(serverFile, JSON.stringify({ pid: process.pid, databaseUrl: `postgres://postgres@127.0.0.1:${proxy.tcpPort}/postgres` }));
      cleanups.push(() => rmSync(serverFile, { force: true }));
    }
  }
  if (externalUrl) vars.EXTERNAL_URL = externalUrl;
  // Pages sites are served on `<namespace>.<PAGES_DOMAIN>` (docs/pages.md; default pages.localhost, which resolves to loopback).
  if (process.env.PAGES_DOMAIN) vars.PAGES_DOMAIN = process.env.PAGES_DOMAIN;
  // The directory and the S3 endpoint of remote imports (docs/directory_and_imports.md).
  if (process.env.LDAP_SERVERS) vars.LDAP_SERVERS = process.env.LDAP_SERVERS;
  if (process.env.IMPORT_S3_ENDPOINT) vars.IMPORT_S3_ENDPOINT = process.env.IMPORT_S3_ENDPOINT;
  // The registry's garbage collection review delay (docs/container_registry.md, "Garbage collection"; default 24h).
  if (process.env.REGISTRY_GC_REVIEW_DELAY) vars.REGISTRY_GC_REVIEW_DELAY = process.env.REGISTRY_GC_REVIEW_DELAY;
  if (process.env.DB_CONNECT_TIMEOUT_MS) vars.DB_CONNECT_TIMEOUT_MS = process.env.DB_CONNECT_TIMEOUT_MS;
  // Opt-in (bench/issues.mjs): every response carries X-Query-Count, the SQL statements it ran.
  if (process.env.EDGEFORGE_QUERY_COUNT === "1") vars.QUERY_COUNT_HEADER = "1";
  // `npm run sweep` (scripts/sweep.mjs) reads the parameter registry from the Worker.
  if (process.env.EDGEFORGE_FUZZ_REGISTRY === "1") vars.FUZZ_REGISTRY = "1";

  const workerDir = path.join(dataDir, "worker");
  const bundling = Date.now();
  const bundle = cachedBundle(path.join(workerDir, "bundle"));
  log(`Worker bundle: ${bundle.reused ? "reused, sources unchanged" : "built with wrangler"}${took(bundling)}`);
  const booting = Date.now();
  const requestLog = logRequests ? accessLog() : undefined;
  const worker = await startWorker({ port, vars, persistDir: path.join(workerDir, "state"), scriptPath: bundle.scriptPath, log: requestLog });
  cleanups.push(() => worker.dispose());
  await waitForReady(requestLog);
  log(`Worker started on workerd (Miniflare, port ${port})${took(booting)}`);
  const crons = cronsOf(path.join(root, "wrangler.toml"));
  if (process.env.CRON_TICKER === "0") {
    // Tests that compare the database at two moments turn the ticker off; the crons still run on demand.
    log("cron ticker: off (CRON_TICKER=0); /cdn-cgi/handler/scheduled?cron=… runs one on demand");
  } else {
    const ticker = startCronTicker({ baseUrl: `http://127.0.0.1:${port}`, crons, log });
    cleanups.push(() => ticker.stop());
    log(`cron ticker: ${crons.join(", ") || "no crons"} (UTC)`);
  }
  if (database.runner) {
    const runner = await startShellRunner({ ...database.runner, baseUrl: `http://127.0.0.1:${port}`, dataDir, log, isStopping: () => stopping });
    cleanups.push(() => runner.stop());
  } else if (runnerMode) log(`RUNNER=${runnerMode}: unknown runner kind (only "shell"); no runner started`);
  log(rootTokenNotice(database));
  // The last line: what the e2e helper (test/e2e/server.mjs) waits for.
  log(`API: http://127.0.0.1:${port}/api/v4 (ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s${logRequests ? "; ACCESS_LOG=0 silences the request log" : ""})`);
} catch (error) {
  // A schema newer than the code is the operator's to resolve, not a crash: the message says it all.
  if (error instanceof SchemaNewerError) console.error(`[edgeforge] start refused: ${error.message}`);
  else console.error("[edgeforge] start failed:", error);
  // A token generated by this start is not lost with it: bootstrap wrote it before committing.
  if (database?.rootToken) console.error(`[edgeforge] root's new personal access token is kept in ${rootTokenFile}`);
  await stop(1);
}
