// node --test test/node/commit_outcome.test.mjs
// A: a write whose database session drops after Postgres received its COMMIT must not
// be answered as failed when it committed (as a Postgres restart under load did to 3 of 2,273 writes).
// Edgeforge runs as `npm start` runs it against a throwaway database on the local PostgreSQL, reached
// through a relay this test controls. Armed, the relay passes the next COMMITs to PostgreSQL, lets it
// execute them, then cuts that connection before the answer goes back: the Worker cannot know from its
// session whether the transaction committed. It answers what happened (functions/kernel/db.ts reads the
// transaction's status on a fresh session). The same cut after a ROLLBACK-bound failure is not needed:
// a transaction that did not reach COMMIT never committed.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { apiCall, freePort, startServer } from "../e2e/server.mjs";

const PG = "postgres://postgres@127.0.0.1:5432/postgres";
const ROOT_TOKEN = `glpat-cmt${randomBytes(12).toString("hex")}`;

/** @returns {Promise<boolean>} */
const answers = (host, port) =>
  new Promise((resolve) => {
    const s = net.connect({ host, port, timeout: 1000 });
    const done = (ok) => { s.destroy(); resolve(ok); };
    s.once("connect", () => done(true)).once("error", () => done(false)).once("timeout", () => done(false));
  });

/**
 * A TCP relay to 127.0.0.1:5432 on `port`. `cutCommits(n)`: the next `n` simple-protocol COMMITs reach
 * PostgreSQL, and their connections are cut as soon as PostgreSQL starts answering, the answer dropped.
 */
function relay(port) {
  let armed = 0;
  let cut = 0;
  /** `cutWrites`: the statement text that marks the write whose committing answer is dropped. */
  let writePattern = null;
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: "127.0.0.1", port: 5432 });
    let buffer = Buffer.alloc(0);
    let startup = true;
    let cutting = false;
    // `cutWrites`: whether this connection sent the marked statement since its last idle ReadyForQuery,
    // PostgreSQL's messages not yet passed on, and a CommandComplete held until the message after it.
    let marked = false;
    let answers = Buffer.alloc(0);
    let held = null;
    const close = () => { client.destroy(); upstream.destroy(); };
    client.on("error", close);
    upstream.on("error", close);
    client.on("close", close);
    upstream.on("close", close);
    upstream.on("data", (chunk) => {
      if (cutting) {
        // PostgreSQL has executed the COMMIT: its answer never reaches the proxy.
        cut += 1;
        close();
        return;
      }
      if (!writePattern && !held && answers.length === 0) {
        client.write(chunk);
        return;
      }
      // PostgreSQL's messages one by one: the CommandComplete of a write (INSERT, UPDATE, DELETE or
      // COMMIT) that a ReadyForQuery 'I' follows ended a transaction that committed. On a marked
      // connection that answer and everything after it are dropped; everything before it passes.
      answers = Buffer.concat([answers, chunk]);
      while (answers.length >= 5) {
        const length = 1 + answers.readInt32BE(1);
        if (answers.length < length) break;
        const message = answers.subarray(0, length);
        answers = answers.subarray(length);
        if (held) {
          const idle = message[0] === 0x5a && message[5] === 0x49; // ReadyForQuery 'I'
          if (idle && marked && writePattern && /^(INSERT|UPDATE|DELETE|COMMIT)\b/.test(held.subarray(5, held.length - 1).toString())) {
            writePattern = null;
            cut += 1;
            close();
            return;
          }
          client.write(held);
          held = null;
        }
        if (message[0] === 0x43) {
          held = Buffer.from(message); // CommandComplete: passed on with the message after it
          continue;
        }
        if (message[0] === 0x5a && message[5] === 0x49) marked = false;
        client.write(message);
      }
    });
    client.on("data", (chunk) => {
      if (cutting) return;
      buffer = Buffer.concat([buffer, chunk]);
      // Frame the client's messages to find a Query whose text is COMMIT.
      for (;;) {
        const head = startup ? 0 : 1;
        if (buffer.length < head + 4) break;
        const length = head + buffer.readInt32BE(head);
        if (buffer.length < length) break;
        const message = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        if (startup) {
          const code = message.readInt32BE(4);
          startup = code === 80877103 || code === 80877104; // SSLRequest / GSSENCRequest: a start-up follows
        } else if (writePattern && (message[0] === 0x50 || message[0] === 0x51) && message.includes(writePattern)) {
          marked = true; // a Parse or Query of the marked statement
        } else if (armed > 0 && message[0] === 0x51 && /^\s*commit\s*;?\s*$/i.test(message.subarray(5, length - 1).toString())) {
          armed -= 1;
          cutting = true;
          upstream.write(message);
          return;
        }
        upstream.write(message);
      }
    });
  });
  return {
    listen: () => new Promise((resolve, reject) => { server.once("error", reject); server.listen(port, "127.0.0.1", () => resolve(undefined)); }),
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
    cutCommits(n) { armed = n; cut = 0; },
    /** The next write whose statement text holds `pattern` commits, and its committing answer is lost. */
    cutWrite(pattern) { writePattern = Buffer.from(pattern); cut = 0; },
    get cut() { return cut; },
    disarm() { armed = 0; writePattern = null; },
  };
}

describe("a COMMIT whose answer is lost", { skip: !(await answers("127.0.0.1", 5432)) && "nothing listening on 127.0.0.1:5432" }, () => {
  const name = `edgeforge_commit_${randomBytes(4).toString("hex")}`;
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
    dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-commit-"));
    server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: `postgres://postgres@127.0.0.1:${port}/${name}`, timeoutMs: 180_000 });
  });

  after(async () => {
    await server?.stop(20_000);
    await link?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  const call = (method, route, body) => apiCall(server.host, ROOT_TOKEN, method, route, body);

  it("answers the write that committed as done, never as failed", { timeout: 120_000 }, async () => {
    // Milestones::PromoteService runs in one transaction: the group milestone, the project's moved to it.
    const group = await call("POST", "/groups", { name: `g${randomBytes(3).toString("hex")}`, path: `g${randomBytes(3).toString("hex")}` });
    assert.equal(group.status, 201, JSON.stringify(group.body));
    const project = await call("POST", "/projects", { name: "p", namespace_id: group.body.id });
    assert.equal(project.status, 201, JSON.stringify(project.body));
    const outcomes = [];
    for (let i = 0; i < 3; i++) {
      const milestone = await call("POST", `/projects/${project.body.id}/milestones`, { title: `M${i}` });
      assert.equal(milestone.status, 201, JSON.stringify(milestone.body));
      link.cutCommits(1);
      const promoted = await call("POST", `/projects/${project.body.id}/milestones/${milestone.body.id}/promote`);
      link.disarm();
      outcomes.push({ cut: link.cut, status: promoted.status, body: promoted.body });
    }
    // Every COMMIT was cut after PostgreSQL executed it (else the test proves nothing)…
    assert.deepEqual(outcomes.map((o) => o.cut), [1, 1, 1], JSON.stringify(outcomes));
    // …every promotion happened…
    const milestones = await call("GET", `/groups/${group.body.id}/milestones`);
    assert.deepEqual(milestones.body.map((m) => m.title).sort(), ["M0", "M1", "M2"]);
    // …and each was answered as done.
    assert.deepEqual(outcomes.map((o) => o.status), [200, 200, 200], JSON.stringify(outcomes));
  });

  it("answers a single-statement write that committed as done, never as failed", { timeout: 120_000 }, async () => {
    // PUT /users/:id/custom_attributes/:key is one statement (an upsert) outside any transaction.
    const user = await call("GET", "/user");
    assert.equal(user.status, 200, JSON.stringify(user.body));
    const outcomes = [];
    for (let i = 0; i < 3; i++) {
      link.cutWrite("user_custom_attributes");
      const put = await call("PUT", `/users/${user.body.id}/custom_attributes/outcome${i}`, { value: `v${i}` });
      link.disarm();
      outcomes.push({ cut: link.cut, status: put.status, body: put.body });
    }
    // Every write's committing answer was dropped after PostgreSQL executed it…
    assert.deepEqual(outcomes.map((o) => o.cut), [1, 1, 1], JSON.stringify(outcomes));
    // …every value is stored…
    const stored = await call("GET", `/users/${user.body.id}/custom_attributes`);
    assert.deepEqual(
      stored.body.filter((a) => a.key.startsWith("outcome")).map((a) => [a.key, a.value]).sort(),
      [["outcome0", "v0"], ["outcome1", "v1"], ["outcome2", "v2"]],
    );
    // …and each write was answered as done, with what it wrote.
    assert.deepEqual(outcomes.map((o) => [o.status, o.body.value]), [[200, "v0"], [200, "v1"], [200, "v2"]], JSON.stringify(outcomes));
  });
});
