#!/usr/bin/env node
// `npm start` (ARCHITECTURE.md §9): the database (embedded PGlite, or DATABASE_URL), migrations and
// bootstrap, the WebSocket proxy, then the Worker on workerd through Miniflare (scripts/worker-host.mjs
// says why not `wrangler dev`).
// Non-interactive; one progress line per step; Ctrl-C stops everything it started.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { bootstrap } from "./bootstrap.mjs";
import { migratePglite, migratePostgres, SchemaNewerError } from "./migrate.mjs";
import { openPglite, servePglite } from "./pglite-server.mjs";
import { startWsProxy } from "./ws-proxy.mjs";
import { cronsOf, startCronTicker } from "./cron-ticker.mjs";
import { startWorker } from "./worker-host.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const port = Number(process.env.PORT || 8787);
const dataDir = path.resolve(process.env.DATA_DIR || path.join(root, ".data"));
const databaseUrl = process.env.DATABASE_URL || "";
const initialRootToken = process.env.INITIAL_ROOT_TOKEN || undefined;
const externalUrl = process.env.EXTERNAL_URL || "";
// RUNNER=shell also starts the shipped shell runner (scripts/runner/runner.mjs). Off by default: it
// executes repository code on this machine.
const runnerMode = process.env.RUNNER || "";

const log = (line) => console.log(`[edgeforge] ${line}`);
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

async function prepareDatabase() {
  if (databaseUrl) {
    log(`database: ${new URL(databaseUrl).host} (DATABASE_URL)`);
    await migratePostgres(databaseUrl);
    log("migrations applied");
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return { url: databaseUrl, serialized: null, ...(await bootstrap(client, { initialRootToken })) };
    } finally {
      await client.end();
    }
  }
  const pgliteDir = path.join(dataDir, "pglite");
  mkdirSync(pgliteDir, { recursive: true });
  log(`database: embedded PGlite in ${pgliteDir}`);
  const pglite = await openPglite({ dataDir: pgliteDir });
  cleanups.push(() => pglite.close());
  await migratePglite(pglite);
  log("migrations applied");
  const result = await bootstrap(pglite, { initialRootToken });
  const server = await servePglite(pglite);
  cleanups.push(() => server.close());
  return { url: server.url, serialized: `127.0.0.1:${server.port}`, ...result };
}

/**
 * The runner's token: RUNNER_TOKEN (a registration or `glrt-` token); else the `glrt-` token an
 * earlier start saved in DATA_DIR/runner/token; else an instance runner created now with the root
 * token (known when INITIAL_ROOT_TOKEN is set or on the first start) and saved there. Null otherwise.
 */
async function runnerToken(rootToken) {
  if (process.env.RUNNER_TOKEN) return process.env.RUNNER_TOKEN;
  const file = path.join(dataDir, "runner", "token");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  if (!rootToken) return null;
  const res = await fetch(`http://127.0.0.1:${port}/api/v4/user/runners`, {
    method: "POST",
    headers: { "PRIVATE-TOKEN": rootToken, "Content-Type": "application/json" },
    body: JSON.stringify({ runner_type: "instance_type", description: "npm start shell runner", run_untagged: true }),
  });
  if (res.status !== 201) throw new Error(`creating the shell runner answered ${res.status}`);
  const { token } = await res.json();
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${token}\n`);
  chmodSync(file, 0o600);
  return token;
}

/** The shell runner as a child process (its own process group: its jobs' shells stop with it). */
function startRunner(token) {
  const script = fileURLToPath(new URL("./runner/runner.mjs", import.meta.url));
  const buildsDir = path.join(dataDir, "runner", "builds");
  const child = spawn(process.execPath, [script, "--url", `http://127.0.0.1:${port}`, "--builds-dir", buildsDir], {
    // The token through the environment, not argv (which other users of the machine can read).
    env: { ...process.env, RUNNER_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const prefix = (stream, out) => stream.setEncoding("utf8").on("data", (chunk) => {
    for (const line of chunk.split("\n")) if (line) out.write(`[runner] ${line}\n`);
  });
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  child.on("exit", (code, signal) => {
    if (!stopping) log(`shell runner exited (code ${code}, signal ${signal})`);
  });
  return {
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        try {
          process.kill(-child.pid, "SIGTERM");
        } catch {
          resolve();
        }
      }),
  };
}

async function waitForReady() {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v4/version`);
      if (res.status === 401) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error("the Worker did not answer within 120 s");
}

try {
  const database = await prepareDatabase();
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
  if (process.env.DB_CONNECT_TIMEOUT_MS) vars.DB_CONNECT_TIMEOUT_MS = process.env.DB_CONNECT_TIMEOUT_MS;
  // Opt-in (bench/issues.mjs): every response carries X-Query-Count, the SQL statements it ran.
  if (process.env.EDGEFORGE_QUERY_COUNT === "1") vars.QUERY_COUNT_HEADER = "1";
  // `npm run sweep` (scripts/sweep.mjs) reads the parameter registry from the Worker.
  if (process.env.EDGEFORGE_FUZZ_REGISTRY === "1") vars.FUZZ_REGISTRY = "1";

  const workerDir = path.join(dataDir, "worker");
  log(`starting the Worker on workerd (Miniflare, port ${port})`);
  const worker = await startWorker({
    port,
    vars,
    persistDir: path.join(workerDir, "state"),
    bundleDir: path.join(workerDir, "bundle"),
  });
  cleanups.push(() => worker.dispose());
  await waitForReady();
  const crons = cronsOf(path.join(root, "wrangler.toml"));
  const ticker = startCronTicker({ baseUrl: `http://127.0.0.1:${port}`, crons, log });
  cleanups.push(() => ticker.stop());
  log(`cron ticker: ${crons.join(", ") || "no crons"} (UTC)`);
  if (runnerMode === "shell") {
    const token = await runnerToken(database.rootToken ?? initialRootToken);
    if (!token) log("RUNNER=shell: no runner started (set RUNNER_TOKEN to a registration or glrt- token)");
    else {
      const runner = startRunner(token);
      cleanups.push(() => runner.stop());
      log(`shell runner started (builds in ${path.join(dataDir, "runner", "builds")})`);
    }
  } else if (runnerMode) log(`RUNNER=${runnerMode}: unknown runner kind (only "shell"); no runner started`);
  log(`API: http://127.0.0.1:${port}/api/v4`);
  if (database.rootToken) log(`root personal access token (shown once): ${database.rootToken}`);
  else if (initialRootToken) log("root personal access token: the value of INITIAL_ROOT_TOKEN");
  else log("root personal access token: the one printed at the first start (set INITIAL_ROOT_TOKEN to choose one)");
} catch (error) {
  // A schema newer than the code is the operator's to resolve, not a crash: the message says it all.
  if (error instanceof SchemaNewerError) console.error(`[edgeforge] start refused: ${error.message}`);
  else console.error("[edgeforge] start failed:", error);
  await stop(1);
}
