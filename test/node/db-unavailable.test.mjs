// node --test test/node/db-unavailable.test.mjs
// A database that cannot be reached gives 503 with Retry-After and GitLab's JSON error
// body within 2 s, never a hang, and requests succeed again as soon as it is back, without restarting
// anything. Edgeforge runs as `npm start` runs it (wrangler dev, the pooling WebSocket proxy) against a
// throwaway database on the local PostgreSQL, reached through a relay this test controls: "down" closes
// every connection and refuses new ones (a stopped server), "silent" accepts connections and never
// answers (an unreachable host), "up" relays to PostgreSQL again.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { freePort, startServer } from "../e2e/server.mjs";

const PG = "postgres://postgres@127.0.0.1:5432/postgres";
const ROOT_TOKEN = `glpat-down${randomBytes(12).toString("hex")}`;

/** @returns {Promise<boolean>} */
const answers = (host, port) =>
  new Promise((resolve) => {
    const s = net.connect({ host, port, timeout: 1000 });
    const done = (ok) => { s.destroy(); resolve(ok); };
    s.once("connect", () => done(true)).once("error", () => done(false)).once("timeout", () => done(false));
  });

/** A TCP relay to 127.0.0.1:5432 on `port` whose state the test sets. */
function relay(port) {
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  let mode = "up";
  /** @type {net.Server | null} */
  let server = null;
  const listen = () =>
    new Promise((resolve, reject) => {
      server = net.createServer((client) => {
        sockets.add(client);
        client.on("close", () => sockets.delete(client));
        client.on("error", () => client.destroy());
        if (mode === "silent") return; // accepted, never answered
        const upstream = net.connect({ host: "127.0.0.1", port: 5432 });
        sockets.add(upstream);
        upstream.on("close", () => { sockets.delete(upstream); client.destroy(); });
        upstream.on("error", () => upstream.destroy());
        client.on("close", () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve(undefined));
    });
  const cut = () => { for (const s of sockets) s.destroy(); sockets.clear(); };
  return {
    listen,
    /** @param {"up" | "down" | "silent"} next */
    async set(next) {
      cut();
      if (next === "down") {
        if (server) await new Promise((resolve) => server.close(() => resolve(undefined)));
        server = null;
      } else if (!server) await listen();
      mode = next;
    },
  };
}

describe("a database that cannot be reached", { skip: !(await answers("127.0.0.1", 5432)) && "nothing listening on 127.0.0.1:5432" }, () => {
  const name = `edgeforge_down_${randomBytes(4).toString("hex")}`;
  let dataDir;
  let server;
  let link;

  before(async () => {
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const port = await freePort();
    link = relay(port);
    await link.listen();
    dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-down-"));
    server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: `postgres://postgres@127.0.0.1:${port}/${name}` });
  });

  after(async () => {
    await server?.stop(20_000);
    await link?.set("down");
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  /** GET /api/v4/user as root, with how long it took; aborted (a hang) after 10 s. */
  async function getUser() {
    const started = Date.now();
    const res = await fetch(`${server.apiUrl}/user`, { headers: { "PRIVATE-TOKEN": ROOT_TOKEN }, signal: AbortSignal.timeout(10_000) });
    return { status: res.status, headers: res.headers, body: await res.json(), ms: Date.now() - started };
  }

  async function assertUnavailable() {
    const res = await getUser();
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.deepEqual(res.body, { message: "503 Service Unavailable" });
    assert.match(res.headers.get("retry-after") ?? "", /^\d+$/);
    assert.ok(res.ms < 2000, `answered after ${res.ms} ms`);
  }

  async function assertServing() {
    const res = await getUser();
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.username, "root");
  }

  it("serves, answers 503 while the server is down, and serves again once it is back", { timeout: 60_000 }, async () => {
    await assertServing();
    await link.set("down");
    for (let i = 0; i < 3; i++) await assertUnavailable();
    await link.set("up");
    await assertServing();
  });

  it("answers 503 within 2 s while the database accepts connections and never answers", { timeout: 60_000 }, async () => {
    await assertServing();
    await link.set("silent");
    await assertUnavailable();
    await link.set("up");
    await assertServing();
  });

  it("keeps no broken pooled connection: after a restart every request succeeds", { timeout: 60_000 }, async () => {
    await Promise.all(Array.from({ length: 8 }, () => assertServing()));
    await link.set("down");
    await link.set("up");
    const results = await Promise.all(Array.from({ length: 8 }, () => getUser()));
    assert.deepEqual(results.map((r) => r.status), Array(8).fill(200));
  });
});
