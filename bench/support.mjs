// What every bench script (run.mjs, issues.mjs, commits.mjs) needs around its measurements, kept here so
// that they stop, clean up and report alike: a timestamped log, a stack of cleanups run on success, failure,
// Ctrl-C or the deadline, the loopback check, a throw-away PostgreSQL database, and the machine's load.
import { randomBytes } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import WebSocket from "ws";
import path from "node:path";
import pg from "pg";

/** The 1, 5 and 15 minute load averages: other work on the machine skews the figures, so reports show it. */
export function loadavg() {
  return os.loadavg().map((n) => n.toFixed(2)).join(" ");
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ on Linux). */
export const CPU_TICKS = 100;

/**
 * Processes in the process group `pgid`, by name, with their CPU ticks (user + system), and the PostgreSQL
 * server's processes as "postgres" (its backends serve the stack; other databases on it add noise).
 */
export function groupCpu(pgid) {
  const out = {};
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(")");
    const name = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    if (name !== "postgres" && Number(fields[2]) !== pgid) continue; // field 5: pgrp
    out[name] = (out[name] ?? 0) + Number(fields[11]) + Number(fields[12]); // utime + stime
  }
  return out;
}

/** The CPU ticks (user + system) of the processes `pids` (those gone are left out). */
export function pidsCpu(pids) {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited
    }
  }
  return ticks;
}

/** Throws unless `url` names this machine: a bench must never load (or create databases on) another host. */
export function assertLoopback(url, what) {
  const host = new URL(url).hostname;
  if (!(host === "localhost" || host === "::1" || host === "[::1]" || host.startsWith("127.")))
    throw new Error(`${what} must be a loopback address (got ${host}): the bench only targets this machine`);
}

/**
 * Runs `fn(db)` with a pg connection (`target.url`) or the PGlite files (`target.pgliteDir`), closed
 * afterwards: PGlite files are one process's, so the seeding opens them only while no server runs.
 */
export async function withDatabase(target, fn) {
  if (target.url) {
    const client = new pg.Client({ connectionString: target.url, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }
  // Imported here, not at the top, so that run.mjs (which never opens PGlite itself) does not load it.
  const { openPglite } = await import("../scripts/pglite-server.mjs");
  const pglite = await openPglite({ dataDir: target.pgliteDir });
  try {
    return await fn(pglite);
  } finally {
    await pglite.close();
  }
}

/**
 * Starts a bench run: call it once, at the top of the script. It notes the start time and load, and makes
 * SIGINT, SIGTERM and `deadlineMs` fail the run, so that whatever the run started is always stopped.
 * `label` prefixes every line (`[bench 12.3s] …`, `[bench:issues] failed: …`).
 */
export function benchRun({ label, deadlineMs }) {
  const started = Date.now();
  const loadAtStart = loadavg();
  /** Cleanups, run last-pushed first: pop one off once its resource is released by the run itself. */
  const cleanups = [];
  let finishing = false;

  /** A line on stdout with the seconds since the start, so a slow step shows in the log. */
  const log = (line) => console.log(`[${label} ${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${line}`);

  /** Runs every cleanup; one that throws is reported and the others still run. */
  async function cleanup() {
    while (cleanups.length > 0) {
      const fn = cleanups.pop();
      try {
        await fn();
      } catch (error) {
        console.error(`[${label}] cleanup:`, error.message);
      }
    }
  }

  /** The end of a failed run (once, however many failures race): report, clean up, exit 1. */
  async function fail(error) {
    if (finishing) return;
    finishing = true;
    console.error(`[${label}] failed:`, error?.stack ?? error);
    await cleanup();
    process.exit(1);
  }

  /** The end of a successful run: cleans up, and a signal or the deadline arriving meanwhile no longer fails it. */
  async function finish() {
    finishing = true;
    await cleanup();
  }

  /** The report's machine line: CPUs and the load at the start and now. */
  const machine = () =>
    `machine: ${os.cpus().length} CPUs, load average ${loadAtStart} at start, ${loadavg()} at the end (other work on the machine skews the figures)`;

  /**
   * Creates `<prefix><rand>` on the server of `serverUrl` and returns `{ name, url }`; drops it (WITH FORCE:
   * a killed server may leave sessions behind) at cleanup, unless `keep` (issues.mjs: BENCH_KEEP_DATABASE=1,
   * for EXPLAIN afterwards), when it only says so.
   */
  async function createBenchDatabase(serverUrl, prefix, { keep = false } = {}) {
    const name = `${prefix}${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    cleanups.push(async () => {
      if (keep) return log(`kept database ${name} (BENCH_KEEP_DATABASE=1): drop it when done`);
      const c = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      log(`dropped database ${name}`);
    });
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return { name, url: url.toString() };
  }

  /**
   * The database set-up the server-starting benches share (exports, commits, alerts): a temporary DATA_DIR
   * (removed at cleanup), then DATABASE_URL set → a fresh migrated database `<prefix><rand>` on that server
   * (loopback only, dropped at cleanup unless BENCH_KEEP_DATABASE=1); unset → embedded PGlite under the DATA_DIR, migrated (as `npm start`).
   * Returns `{ dataDir, target, mode }`: `target` for withDatabase, `mode` for the report.
   */
  async function prepareDatabase(prefix) {
    // Imported here, not at the top, so that run.mjs (which migrates nothing itself) does not load them.
    const { migratePglite, migratePostgres } = await import("../scripts/migrate.mjs");
    const serverUrl = process.env.DATABASE_URL || "";
    const dataDir = await mkdtemp(path.join(os.tmpdir(), `${prefix.replace(/_/g, "-")}`));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    if (serverUrl) {
      assertLoopback(serverUrl, "DATABASE_URL");
      const database = await createBenchDatabase(serverUrl, prefix, { keep: process.env.BENCH_KEEP_DATABASE === "1" });
      await migratePostgres(database.url);
      return { dataDir, target: { url: database.url }, mode: `PostgreSQL at ${new URL(serverUrl).host}, database ${database.name}` };
    }
    const target = { pgliteDir: path.join(dataDir, "pglite") };
    await withDatabase(target, (db) => migratePglite(db));
    return { dataDir, target, mode: "embedded PGlite (one Postgres session)" };
  }

  process.on("SIGINT", () => fail(new Error("interrupted")));
  process.on("SIGTERM", () => fail(new Error("terminated")));
  setTimeout(() => fail(new Error(`the bench exceeded ${deadlineMs / 1000} s`)), deadlineMs).unref();

  return { log, cleanups, cleanup, fail, finish, machine, createBenchDatabase, prepareDatabase };
}

/**
 * One JSON request over a keep-alive `agent` (the benches pass theirs, sized to the connection count);
 * resolves with `{ status, headers, text }` whatever the status, so each caller decides what it expects.
 */
export function jsonRequest({ base, agent, token }, method, pathname, body) {
  return new Promise((resolve, reject) => {
    const payload = body ? JSON.stringify(body) : undefined;
    const req = http.request(
      `${base}${pathname}`,
      {
        method,
        agent,
        timeout: 30_000,
        headers: {
          "PRIVATE-TOKEN": token,
          ...(payload ? { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, text }));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${pathname} timed out`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/** The inspector's first target (the Worker's isolate), over the Chrome DevTools Protocol. */
export async function inspector(port) {
  const targets = await new Promise((resolve, reject) =>
    http.get(`http://127.0.0.1:${port}/json`, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve(JSON.parse(text)));
    }).on("error", reject),
  );
  const target = targets.find((t) => /edgeforge|core:user/i.test(t.title ?? "") ) ?? targets[0];
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let id = 0;
  const pending = new Map();
  ws.on("message", (data) => {
    const message = JSON.parse(data);
    if (message.id && pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const messageId = ++id;
      pending.set(messageId, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      ws.send(JSON.stringify({ id: messageId, method, params }));
    });
  return { send, close: () => ws.close(), title: target.title };
}
