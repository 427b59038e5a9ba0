// node --test test/node/restart_outcome.test.mjs
// Across three PostgreSQL restarts under load, every write Edgeforge acknowledged exists and every write
// it answered as failed does not. Edgeforge runs as `npm start` runs it (its HTTP entry point, the
// pooling proxy) against a PostgreSQL cluster of this test's own (initdb in a temporary folder, a free
// port, run as the `postgres` user): the shared server on 127.0.0.1:5432 is never restarted. Concurrent
// clients write two kinds of rows meanwhile: custom attributes (one upsert statement outside any
// transaction) and labels (a transaction). The restarts are a fast shutdown, an immediate one (a crash:
// recovery replays the WAL) and a fast one again. The test also reports how long `npm start` takes to
// serve again when restarted on the up-to-date database.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { apiCall, freePort, startServer } from "../e2e/server.mjs";

const BIN = "/usr/lib/postgresql/15/bin";
const ROOT_TOKEN = `glpat-rst${randomBytes(12).toString("hex")}`;
const WORKERS = 6;

/** The uid and gid of `postgres`, when this runs as root and the user exists; null otherwise. */
function postgresUser() {
  try {
    if (process.getuid?.() !== 0) return null;
    return { uid: Number(execFileSync("id", ["-u", "postgres"]).toString()), gid: Number(execFileSync("id", ["-g", "postgres"]).toString()) };
  } catch {
    return null;
  }
}

const owner = postgresUser();
const skip = !existsSync(`${BIN}/initdb`) ? `no PostgreSQL 15 binaries in ${BIN}` : !owner ? "needs root (to run the cluster as postgres)" : false;

/** A PostgreSQL binary as the `postgres` user. */
const asPostgres = (bin, args) => execFileSync("runuser", ["-u", "postgres", "--", `${BIN}/${bin}`, ...args], { stdio: "pipe", timeout: 60_000 }).toString();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe("PostgreSQL restarts under load", { skip }, () => {
  let dir;
  let dataDir;
  let port;
  let server;
  let databaseUrl;
  const pgctl = (...args) => asPostgres("pg_ctl", ["-D", path.join(dir, "data"), "-l", path.join(dir, "log"), "-w", "-t", "60", ...args]);

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-restart-"));
    chownSync(dir, owner.uid, owner.gid);
    port = await freePort();
    asPostgres("initdb", ["-D", path.join(dir, "data"), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]);
    // Its own port and socket folder; fsync stays on, so a crash loses nothing that was committed.
    pgctl("-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=60`, "start");
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    await admin.query("CREATE DATABASE edgeforge");
    await admin.end();
    databaseUrl = `postgres://postgres@127.0.0.1:${port}/edgeforge`;
    dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-restart-data-"));
    server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl, timeoutMs: 180_000 });
  });

  after(async () => {
    await server?.stop(20_000);
    if (dir) {
      try {
        pgctl("-m", "immediate", "stop");
      } catch {
        // not running
      }
      await rm(dir, { recursive: true, force: true });
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const call = (method, route, body) => apiCall(server.host, ROOT_TOKEN, method, route, body).catch((error) => ({ status: 0, body: String(error) }));

  it("keeps every acknowledged write and none answered as failed", { timeout: 150_000 }, async (t) => {
    const user = await call("GET", "/user");
    assert.equal(user.status, 200, JSON.stringify(user.body));
    const project = await call("POST", "/projects", { name: `restarts-${randomBytes(3).toString("hex")}` });
    assert.equal(project.status, 201, JSON.stringify(project.body));

    /** @type {{ kind: "attribute" | "label", name: string, status: number }[]} */
    const writes = [];
    let loading = true;
    const worker = async (w) => {
      for (let i = 0; loading; i++) {
        const name = `w${w}-${i}`;
        const write =
          i % 2 === 0
            ? call("PUT", `/users/${user.body.id}/custom_attributes/${name}`, { value: name }).then((r) => ({ kind: "attribute", name, status: r.status }))
            : call("POST", `/projects/${project.body.id}/labels`, { name, color: "#428bca" }).then((r) => ({ kind: "label", name, status: r.status }));
        writes.push(await write);
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));

    const restarts = [];
    for (const mode of ["fast", "immediate", "fast"]) {
      await sleep(2500);
      const started = Date.now();
      pgctl("-m", mode, "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=60`, "restart");
      restarts.push({ mode, ms: Date.now() - started });
    }
    await sleep(2500);
    loading = false;
    await load;

    // What the database holds, read directly.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const attributes = new Set((await db.query("SELECT key FROM user_custom_attributes WHERE user_id = $1", [user.body.id])).rows.map((r) => r.key));
    const labels = new Set((await db.query("SELECT title FROM labels WHERE project_id = $1", [project.body.id])).rows.map((r) => r.title));
    await db.end();
    const exists = (w) => (w.kind === "attribute" ? attributes : labels).has(w.name);

    const acknowledged = writes.filter((w) => w.status === 200 || w.status === 201);
    const failed = writes.filter((w) => w.status >= 500 || w.status === 0);
    const other = writes.filter((w) => !acknowledged.includes(w) && !failed.includes(w));
    t.diagnostic(
      `restarts ${JSON.stringify(restarts)}; writes ${writes.length}: ${acknowledged.length} acknowledged, ${failed.length} answered as failed, ` +
        `${other.length} other (${[...new Set(other.map((w) => w.status))].join(", ")}); failed: ` +
        `${failed.filter((w) => w.kind === "attribute").length} single statements, ${failed.filter((w) => w.kind === "label").length} transactions`,
    );
    // The load went on across the restarts. (How many writes a restart meets depends on the machine's load:
    // a quick restart may find every write between two statements and fail none; the diagnostic says.)
    assert.ok(acknowledged.length > WORKERS * 3, `only ${acknowledged.length} writes acknowledged`);
    assert.deepEqual(other, [], "every write is either acknowledged or answered as failed");
    assert.deepEqual(acknowledged.filter((w) => !exists(w)), [], "acknowledged writes that do not exist");
    assert.deepEqual(failed.filter((w) => exists(w)), [], "writes answered as failed that exist");
  });

  // A measurement, not a check of the change: EDGEFORGE_MEASURE_RESTART=1 (it adds about 17 s).
  // Not a test of `npm test` (a timing is not asserted there): defined only when asked for.
  const measure = process.env.EDGEFORGE_MEASURE_RESTART === "1" ? it : () => {};
  measure("serves again soon after `npm start` restarts on the up-to-date database", { timeout: 120_000 }, async (t) => {
    await server.stop(20_000);
    const started = Date.now();
    server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl, timeoutMs: 90_000 });
    const ready = Date.now() - started;
    const first = await call("GET", "/version");
    const served = Date.now() - started;
    t.diagnostic(`npm start: "API:" after ${ready} ms, first answer after ${served} ms (load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")})`);
    for (const line of server.output().split("\n").filter((l) => /migrations|Worker bundle|Worker started|API:/.test(l))) t.diagnostic(line.trim());
    assert.equal(first.status, 200);
  });
});
