#!/usr/bin/env node
// `npm run sweep`: the edge-value sweep over HTTP against a started server. Every edge value
// (0, -1, 2^31-1, 2^31, 2^53, 1e308, NUL, 70 kB strings, impossible dates, arrays where scalars go, …)
// of every parameter every route declared, alone, as JSON and as a query string, then every malformed
// path segment of every path parameter: about 100,000 sequential requests. Reports the requests sent,
// each 5xx and each request that ended without a status line (a reset, an empty reply, no answer within
// 20 s) as it comes, and workerd's resident memory along the way; either fails the run.
//
// By default it starts its own server (`npm start` as test/e2e/server.mjs does, on a throwaway
// database of the Postgres at 127.0.0.1:5432, else embedded PGlite) with EDGEFORGE_FUZZ_REGISTRY=1.
// Against a server you started yourself (with EDGEFORGE_FUZZ_REGISTRY=1):
//   EDGEFORGE_URL=http://127.0.0.1:8787 EDGEFORGE_TOKEN=<root token> [WORKERD_PID=<pid>] npm run sweep
// SWEEP_LIMIT=n stops after n sweep requests; SWEEP_SEED=s with SWEEP_LIMIT takes a fixed-seed slice
// instead of the first n; SWEEP_CONCURRENCY=n sends n requests at a time (default 1: sequential);
// SWEEP_REPORT=file writes the summary as JSON. Ctrl-C stops the server it started and prints the summary.
// Run with `--max-http-header-size` raised (the npm script does): a GET carries a 70 kB value in its
// query string, and the pagination `Link` headers repeat it, past Node's 16 kB default.
//
// The cases, fixtures and requests are test/hardening/fuzz-core.ts (shared with the vitest fuzz test),
// bundled here with esbuild; the parameter registry is read from the Worker (`GET /-/fuzz-registry`).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import pg from "pg";
import { generateToken } from "./bootstrap.mjs";
import { startServer } from "../test/e2e/server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const LIMIT = process.env.SWEEP_LIMIT ? Number(process.env.SWEEP_LIMIT) : Infinity;
const CONCURRENCY = Math.max(1, Number(process.env.SWEEP_CONCURRENCY || 1));
const SEED = process.env.SWEEP_SEED ? Number(process.env.SWEEP_SEED) : null;
const log = (line) => console.log(`[sweep] ${line}`);

/** fuzz-core.ts as an ES module Node can import. */
async function loadCore(dir) {
  const outfile = path.join(dir, "fuzz-core.mjs");
  await build({
    entryPoints: [path.join(root, "test/hardening/fuzz-core.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outfile,
    logLevel: "error",
  });
  return import(pathToFileURL(outfile).href);
}

/** A database of its own on the local Postgres, else null (the server then runs embedded PGlite). */
async function throwawayDatabase() {
  const serverUrl = process.env.SWEEP_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `edgeforge_sweep_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** The workerd process started by the server whose process group is `pgid`. */
function workerdOf(pgid) {
  const rows = execFileSync("ps", ["-eo", "pid=,pgid=,comm="], { encoding: "utf8" }).trim().split("\n");
  const hit = rows.map((r) => r.trim().split(/\s+/)).find(([, g, comm]) => Number(g) === pgid && /workerd/.test(comm));
  return hit ? Number(hit[0]) : null;
}

/** Resident memory of `pid` in MB, from /proc (null elsewhere). */
function rssMb(pid) {
  if (!pid) return null;
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
    return Math.round(kb / 1024);
  } catch {
    return null;
  }
}

function client(base, token) {
  const call = (method) => (p, opts = {}) => {
    const headers = { "PRIVATE-TOKEN": token };
    let body;
    if (opts.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(opts.json);
    } else if (opts.formBody !== undefined) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = opts.formBody;
    } else if (opts.multipart) {
      body = opts.multipart;
    }
    return fetch(`${base}/api/v4${p}`, { method, headers, body });
  };
  return { get: call("GET"), post: call("POST"), put: call("PUT"), delete: call("DELETE") };
}

async function expectOk(res, what) {
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "edgeforge-sweep-"));
// Ctrl-C (or SIGTERM): the sweep stops after the requests in flight, reports, and stops its server.
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => (interrupted = true));
let server = null;
let database = null;
const started = Date.now();
try {
  const core = await loadCore(tmp);
  let base = process.env.EDGEFORGE_URL?.replace(/\/+$/, "");
  let rootToken = process.env.EDGEFORGE_TOKEN;
  let workerdPid = process.env.WORKERD_PID ? Number(process.env.WORKERD_PID) : null;
  if (!base) {
    database = await throwawayDatabase();
    rootToken = generateToken();
    log(`starting a server (${database ? "Postgres, a throwaway database" : "embedded PGlite"})`);
    server = await startServer({
      dataDir: path.join(tmp, "data"),
      rootToken,
      databaseUrl: database?.url,
      timeoutMs: 180_000,
      env: { EDGEFORGE_FUZZ_REGISTRY: "1" },
    });
    base = server.host;
    workerdPid = workerdOf(server.child.pid);
  }
  if (!rootToken) throw new Error("EDGEFORGE_TOKEN (an administrator's token) is needed with EDGEFORGE_URL");
  const root_ = client(base, rootToken);

  // The fuzzing administrator (no `sudo` scope: a fuzzed `sudo` must not act as someone else), a user
  // the run may change, and a group of the administrator's.
  const stamp = Date.now().toString(36);
  const newUser = async (name, admin) =>
    expectOk(
      await root_.post("/users", { json: { username: `${name}-${stamp}`, name, email: `${name}-${stamp}@example.com`, password: `Sweep-${generateToken("")}`, skip_confirmation: true, admin } }),
      `create user ${name}`,
    );
  const admin = await newUser("sweeper", true);
  const victim = await newUser("swept", false);
  const pat = await expectOk(
    await root_.post(`/users/${admin.id}/personal_access_tokens`, {
      json: { name: "sweep", scopes: ["api", "read_api", "read_user", "read_repository", "write_repository", "admin_mode"] },
    }),
    "token",
  );
  const token = pat.token;
  const api = client(base, token);
  const group = await expectOk(await api.post("/groups", { json: { name: `sweep-${stamp}`, path: `sweep-${stamp}`, visibility: "public" } }), "group");
  const values = await core.fuzzFixtures(api, { groupId: group.id, victimId: victim.id });

  const registry = async () => expectOk(await fetch(`${base}/-/fuzz-registry`, { headers: { "PRIVATE-TOKEN": token } }), "GET /-/fuzz-registry (is the server started with EDGEFORGE_FUZZ_REGISTRY=1?)");
  const routes = core.routesOf((await registry()).routes);

  let sent = 0;
  let unavailable = 0;
  const failures = [];
  /** Requests that ended without a status line: never sent again, each one fails the run. */
  const unanswered = [];
  const memory = [];
  const send = async (c) => {
    const attempt = async () => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 20_000);
      try {
        const req = core.requestOf(base, token, c, values);
        const res = await fetch(req, { signal: controller.signal, duplex: "half" });
        await res.arrayBuffer();
        return { status: res.status, retry: res.headers.get("retry-after") };
      } catch (error) {
        return { status: null, error: String(error?.message ?? error) };
      } finally {
        clearTimeout(timer);
      }
    };
    let res = await attempt();
    // 503 with Retry-After: the database is unavailable, not an input fault. Retried once, then counted.
    if (res.status === 503 && res.retry) {
      sent += 1;
      res = await attempt();
      if (res.status === 503 && res.retry) unavailable += 1;
    }
    sent += 1;
    if (res.status === null) {
      // No status line (undici's "fetch failed": a reset or a connection closed as the request went out;
      // or no answer within 20 s): a request the server never answered, whatever the reason.
      const failure = `no status (${res.error}) ${core.describeCase(c)}`;
      unanswered.push(failure);
      log(`unanswered: ${failure}`);
    } else if (res.status >= 500 && !(res.status === 503 && res.retry)) {
      const failure = `${res.status} ${core.describeCase(c)}`;
      failures.push(failure);
      log(`5xx: ${failure}`);
    }
    if (sent % 1000 === 0) {
      const rss = rssMb(workerdPid);
      memory.push({ requests: sent, rssMb: rss });
      log(`${sent} requests, ${failures.length} 5xx, ${unanswered.length} unanswered, ${unavailable} unavailable, workerd RSS ${rss ?? "?"} MB, ${Math.round((Date.now() - started) / 1000)} s`);
    }
  };
  const alive = async (after) => {
    const res = await api.get("/user");
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`the sweep lost its credentials after ${after} (${res.status})`);
  };

  // Discovery: every route once with its fixtures (reads first, deletes last), which fills the Worker's
  // registry of declared parameters.
  const order = ["GET", "POST", "PUT", "PATCH", "DELETE"];
  const memoryAtStart = rssMb(workerdPid);
  for (const route of [...routes].sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method))) await send({ route, path: {}, params: {}, transport: "json" });
  const { declared } = await registry();
  const covered = routes.filter((r) => declared[r.key]).length;
  const unreached = routes.filter((r) => !declared[r.key]).map((r) => r.key);
  log(`${routes.length} routes, ${covered} with recorded parameters, ${unreached.length} never reached`);
  if (process.env.SWEEP_TRACE) for (const key of unreached) log(`never reached: ${key}`);

  let groups = core.sweepCases(routes, (key) => Object.entries(declared[key] ?? {}));
  const total = groups.reduce((n, g) => n + g.length, 0);
  if (SEED !== null && Number.isFinite(LIMIT)) groups = [core.sliceOf(groups.flat(), SEED, LIMIT)];
  log(`sweep: ${total} cases${Number.isFinite(LIMIT) ? `, sending ${SEED !== null ? `a slice (seed ${SEED}) of` : "the first"} ${LIMIT}` : ""}`);
  let swept = 0;
  for (const cases of groups) {
    if (swept >= LIMIT || interrupted) break;
    let next = 0;
    const lane = async () => {
      while (next < cases.length && swept < LIMIT && !interrupted) {
        const c = cases[next++];
        swept += 1;
        await send(c);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    await alive(cases[0]?.route.key ?? "a route");
  }
  if (!interrupted) await alive("the sweep");
  const summary = {
    interrupted,
    requests: sent,
    sweepCases: total,
    swept,
    routes: routes.length,
    routesWithRecordedParameters: covered,
    neverReached: unreached,
    failures,
    unanswered,
    unavailable,
    workerdRssMb: { start: memoryAtStart, end: rssMb(workerdPid), samples: memory },
    seconds: Math.round((Date.now() - started) / 1000),
  };
  if (process.env.SWEEP_REPORT) writeFileSync(process.env.SWEEP_REPORT, JSON.stringify(summary, null, 2));
  log(
    `${sent} requests (${swept} sweep cases of ${total}), ${failures.length} 5xx, ${unanswered.length} without a status, ` +
      `${unavailable} answered 503 (database unavailable); ` +
      `workerd RSS ${summary.workerdRssMb.start ?? "?"} → ${summary.workerdRssMb.end ?? "?"} MB; ${summary.seconds} s`,
  );
  process.exitCode = failures.length || unanswered.length ? 1 : 0;
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  if (server) await server.stop();
  if (database) await database.drop().catch(() => {});
  rmSync(tmp, { recursive: true, force: true });
}
