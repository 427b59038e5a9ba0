#!/usr/bin/env node
// `npm run bench:writes`: the cost of four writes, Edgeforge as `npm start` runs it (scripts/start.mjs: the
// Worker on workerd through Miniflare, the proxy, PostgreSQL) against a bare server running the same SQL.
//
//   writes:    `POST /projects/:id/issues` (labels `a,b`), `POST /projects/:id/issues/:iid/notes` (on one issue),
//              `POST /projects/:id/repository/commits` (one `update` action on main) and
//              `PUT /projects/:id/merge_requests/:iid/merge` (a merge request whose target moved on since it
//              branched: a real three-way merge), BENCH_WRITES (20) of each after BENCH_WARM (3) unmeasured,
//              one request at a time, as root; after each, Edgeforge's background work (the queue consumers
//              the write fed: hooks, push events) is let finish (1 to 2 s), so that the log tells a request's
//              own statements from the background's.
//   database:  PostgreSQL only (DATABASE_URL, default 127.0.0.1:5432; loopback only): a fresh database
//              `edgeforge_bench_writes_<rand>` and its copy, both dropped at the end.
//   seed:      a project owned by root with a 200-commit history (bench/repository.mjs), labels `a` and `b`,
//              one issue; `issues_create_limit` and `notes_create_limit` 0 (unlimited); then, through the API,
//              BENCH_WRITES + BENCH_WARM merge requests, each from a branch with a commit of its own.
//   statements: every response's X-Query-Count (EDGEFORGE_QUERY_COUNT=1 sets the QUERY_COUNT_HEADER binding,
//              as the tests do; BEGIN and COMMIT count), against the budget the endpoint's test pins.
//   baseline:  the database is copied (CREATE DATABASE … TEMPLATE) before Edgeforge serves the writes, and both
//              log every statement (`log_statement = all` on these two databases only). The statements each
//              request ran, with their parameters, are read back from PostgreSQL's log, and bench/bare_replay.mjs
//              runs them on the copy, request by request in the same order, behind the same HTTP requests:
//              the bare server that runs the same statements (as `bare-named` in bench/run.mjs: named where the
//              Worker named them); the background work a write starts is not replayed (it is not the request's:
//              the Worker runs it after the answer), only counted. One request at a time on both, because a replayed statement carries the ids
//              its recorded run got (a new issue's id in its label links): the replay must keep the order.
//              req/s with one connection is 1 / the mean latency.
//   report:    per write: requests, req/s and p50 for each server, the ratio, SQL statements per request (the
//              header's, and the log's), the pinned budget; the load average with each.
//   env:       BENCH_WRITES, BENCH_WARM, BENCH_POSTGRES_LOG (the server's log file; default
//              /var/log/postgresql/postgresql-15-main.log), BENCH_TRACE_OUT=<file> (every request's logged
//              statements, as JSON, to read what a write runs).
//
// Everything listens on and targets 127.0.0.1 only; the run stops itself after 8 minutes at most; everything
// started is stopped and temporary files and databases removed.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { bootstrap } from "../scripts/bootstrap.mjs";
import { freePort, startServer } from "../test/e2e/server.mjs";
import { buildRepository, initialContent, loadRepository } from "./repository.mjs";
import { benchRun, jsonRequest, loadavg, withDatabase } from "./support.mjs";

const WRITES = Number(process.env.BENCH_WRITES || 20);
const WARM = Number(process.env.BENCH_WARM || 3);
const POSTGRES_LOG = process.env.BENCH_POSTGRES_LOG || "/var/log/postgresql/postgresql-15-main.log";
const DEADLINE_MS = 480_000;
const ROOT_TOKEN = `glpat-bench${randomBytes(10).toString("hex")}`;
const FILE = "src/dir0/file0.txt";
const bareScript = fileURLToPath(new URL("./bare_replay.mjs", import.meta.url));

const { log, cleanups, fail, finish, machine, prepareDatabase } = benchRun({ label: "bench:writes", deadlineMs: DEADLINE_MS });

// The budgets the endpoints' tests pin (statements per request, BEGIN and COMMIT included).
const PINS = {
  issue: { max: 6, where: "test/issues/create.test.ts" },
  note: { max: null, where: "none" },
  commit: { max: 4, where: "test/commits/statements.test.ts (one action)" },
  merge: { max: 14, where: "test/merge_requests/merge_statements.test.ts (unchecked)" },
};

async function seed(db, repo) {
  const project = Number(
    (
      await db.query(
        `INSERT INTO projects (name, path, namespace_id, full_path, name_with_namespace, creator_id, visibility_level, default_branch, empty_repo)
         SELECT 'writes', 'writes', n.id, 'root/writes', 'Administrator / writes', 1, 0, 'main', false
         FROM namespaces n WHERE n.type = 'User' AND n.path = 'root' RETURNING id`,
      )
    ).rows[0].id,
  );
  await db.query(`INSERT INTO members (source_type, source_id, user_id, access_level) VALUES ('Project', $1, 1, 50)`, [project]);
  await loadRepository(db, project, repo);
  await db.query(`INSERT INTO labels (project_id, title, color) SELECT $1::int, t, '#428BCA' FROM unnest(ARRAY['a','b']) AS t`, [project]);
  await db.query(`INSERT INTO issues (iid, project_id, title, state, author_id) VALUES (1, $1, 'The discussed issue', 'opened', 1)`, [project]);
  await db.query(`INSERT INTO internal_ids (usage, project_id, last_value) VALUES ('issues', $1, 1)`, [project]);
  await db.query(`UPDATE application_settings SET issues_create_limit = 0, notes_create_limit = 0 WHERE id = 1`);
  await db.query("VACUUM ANALYZE");
  return { project };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

async function api(base, method, pathname, body, expected) {
  const res = await jsonRequest({ base, agent, token: ROOT_TOKEN }, method, pathname, body);
  if (res.status !== expected) throw new Error(`${method} ${pathname} answered ${res.status}: ${res.text.slice(0, 300)}`);
  return res;
}

/** The sequence of writes, in the order both servers get them: `{ kind, method, path, body }`. */
function writes(project, merges) {
  const p = `/api/v4/projects/${project}`;
  const list = [];
  const total = WARM + WRITES;
  for (let i = 0; i < total; i++) list.push({ kind: "issue", method: "POST", path: `${p}/issues`, body: { title: `Written issue ${i}`, labels: "a,b", description: "A bench write" } });
  for (let i = 0; i < total; i++) list.push({ kind: "note", method: "POST", path: `${p}/issues/1/notes`, body: { body: `Written note ${i}` } });
  for (let i = 0; i < total; i++) {
    const lines = initialContent(FILE).split("\n");
    lines[i % 30] = `${FILE} written by request ${i}`;
    list.push({ kind: "commit", method: "POST", path: `${p}/repository/commits`, body: { branch: "main", commit_message: `Write ${i}`, actions: [{ action: "update", file_path: FILE, content: lines.join("\n") }] } });
  }
  for (const iid of merges) list.push({ kind: "merge", method: "PUT", path: `${p}/merge_requests/${iid}/merge`, body: {} });
  list.forEach((w, i) => (w.warm = i % total < WARM));
  return list;
}

/** One request, timed with hrtime; `headers` extra request headers. */
function timed(base, w, headers = {}) {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(w.body);
    const t0 = process.hrtime.bigint();
    const req = http.request(
      `${base}${w.path}`,
      {
        method: w.method,
        agent,
        timeout: 30_000,
        headers: { "PRIVATE-TOKEN": ROOT_TOKEN, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (text += c));
        res.on("end", () =>
          resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: res.statusCode, statements: Number(res.headers["x-query-count"]), text }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${w.method} ${w.path} timed out`)));
    req.on("error", reject);
    req.end(payload);
  });
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL's log (log_line_prefix '%m [%p] %q%u@%d '): each entry starts with a timestamp line; the
// lines of a multi-line message follow with a tab in front (elog.c `append_with_tabs`).

const ENTRY = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \S+ \[(\d+)\] (\S*)@(\S*) (LOG|DETAIL|ERROR|STATEMENT|WARNING|HINT|CONTEXT|FATAL|NOTICE):  (.*)$/;

/**
 * Waits for the background work a write started (the queue consumers, batched for up to 1 s: wrangler.toml
 * `max_batch_timeout`) to end: 1.1 s, then until the log has not grown for 300 ms (5 s at most). So the next
 * request's window of the log holds its own statements only.
 */
async function settled() {
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  await sleep(1100);
  const until = Date.now() + 5000;
  let size = statSync(POSTGRES_LOG).size;
  for (let quiet = 0; quiet < 300 && Date.now() < until; ) {
    await sleep(100);
    const now = statSync(POSTGRES_LOG).size;
    quiet = now === size ? quiet + 100 : 0;
    size = now;
  }
}

function readLog(from, to) {
  const fd = openSync(POSTGRES_LOG, "r");
  try {
    const buffer = Buffer.alloc(to - from);
    readSync(fd, buffer, 0, buffer.length, from);
    return buffer.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** The statements of database `database` in a slice of the log, in order: `{ kind, name?, text, params? }`. */
function statementsOf(text, database) {
  const entries = [];
  for (const line of text.split("\n")) {
    const m = ENTRY.exec(line);
    if (m) entries.push({ pid: m[1], database: m[3], level: m[4], message: m[5] });
    else if (entries.length && line.startsWith("\t")) entries[entries.length - 1].message += `\n${line.slice(1)}`;
    else if (entries.length && line !== "") entries[entries.length - 1].message += `\n${line}`;
  }
  const out = [];
  const lastOf = new Map();
  for (const e of entries) {
    if (e.database !== database) continue;
    if (e.level === "LOG" && e.message.startsWith("statement: ")) {
      const s = { kind: "simple", text: e.message.slice("statement: ".length) };
      out.push(s);
      lastOf.set(e.pid, s);
    } else if (e.level === "LOG" && e.message.startsWith("execute ")) {
      const colon = e.message.indexOf(": ");
      const name = e.message.slice("execute ".length, colon);
      const s = name === "<unnamed>" ? { kind: "unnamed", text: e.message.slice(colon + 2), params: [] } : { kind: "named", name, text: e.message.slice(colon + 2), params: [] };
      out.push(s);
      lastOf.set(e.pid, s);
    } else if (e.level === "DETAIL" && e.message.startsWith("parameters: ")) {
      const s = lastOf.get(e.pid);
      if (!s || s.kind === "simple") continue;
      const re = /\$(\d+) = (NULL|'((?:[^']|'')*)')/g;
      let m;
      while ((m = re.exec(e.message)) !== null) s.params[Number(m[1]) - 1] = m[2] === "NULL" ? null : m[3].replace(/''/g, "'");
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

async function admin(serverUrl, sql) {
  const c = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
}

async function startBare(env) {
  const port = await freePort();
  const child = spawn(process.execPath, [bareScript], { env: { ...process.env, ...env, BARE_PORT: String(port) }, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGINT");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  cleanups.push(stop);
  await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`bare server did not start: ${out}`)), 30_000);
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      out += chunk;
      if (out.includes("BARE: ")) {
        clearTimeout(timer);
        resolve();
      }
    });
    exited.then((code) => reject(new Error(`bare server exited (${code}): ${out}`)));
  });
  return { base: `http://127.0.0.1:${port}`, stop };
}

function fmt(n, digits = 0) {
  return n === null || n === undefined || Number.isNaN(n) ? "-" : Number(n).toFixed(digits);
}

function table(header, rows) {
  const lines = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
  const render = (l) => l.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join("  ");
  console.log(render(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const l of rows) console.log(render(l));
}

function figures(samples) {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  return { n: ms.length, rps: 1000 / mean, p50: ms[Math.floor(ms.length / 2)] };
}

async function main() {
  process.env.EDGEFORGE_QUERY_COUNT = "1";
  process.env.DATABASE_URL ||= "postgres://postgres@127.0.0.1:5432/postgres";
  const serverUrl = process.env.DATABASE_URL;
  statSync(POSTGRES_LOG); // the baseline needs the server's log: fail early without it
  const { dataDir, target, mode } = await prepareDatabase("edgeforge_bench_writes_");
  const database = new URL(target.url).pathname.slice(1);
  log(`database: ${mode}`);

  const repo = buildRepository({ commits: 200, pathFilter: FILE, log, cleanups });
  const { project } = await withDatabase(target, async (db) => {
    await bootstrap(db, { initialRootToken: ROOT_TOKEN });
    return seed(db, repo);
  });

  // The merge requests, through the API (each from a branch with a commit of its own).
  let server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: target.url, timeoutMs: 90_000 });
  cleanups.push(() => server.stop(20_000));
  const merges = [];
  for (let k = 0; k < WARM + WRITES; k++) {
    const branch = `to-merge-${k}`;
    await api(server.host, "POST", `/api/v4/projects/${project}/repository/commits`, {
      branch,
      start_branch: "main",
      commit_message: `Work ${k}`,
      actions: [{ action: "create", file_path: `merged/${k}.txt`, content: `merged ${k}\n` }],
    }, 201);
    const mr = await api(server.host, "POST", `/api/v4/projects/${project}/merge_requests`, { source_branch: branch, target_branch: "main", title: `Merge ${k}` }, 201);
    merges.push(JSON.parse(mr.text).iid);
  }
  log(`created ${merges.length} merge requests through the API`);
  await server.stop(20_000);
  cleanups.pop();

  // The copy for the bare server, then every statement of both databases logged.
  const copy = `${database}_bare`;
  await admin(serverUrl, `CREATE DATABASE ${copy} TEMPLATE ${database}`);
  cleanups.push(() => admin(serverUrl, `DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`));
  for (const name of [database, copy]) await admin(serverUrl, `ALTER DATABASE ${name} SET log_statement = 'all'`);
  cleanups.push(async () => {
    for (const name of [database, copy]) await admin(serverUrl, `ALTER DATABASE ${name} RESET log_statement`).catch(() => {});
  });

  server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: target.url, timeoutMs: 90_000 });
  cleanups.push(() => server.stop(20_000));
  log(`Edgeforge: ${server.apiUrl}`);
  const sequence = writes(project, merges);
  const load = { edgeforge: loadavg(), bare: "" };
  const recorded = [];
  for (const w of sequence) {
    const from = statSync(POSTGRES_LOG).size;
    const r = await timed(server.host, w);
    // Postgres writes an entry when the statement arrives, before it answers: the log holds them all by now.
    const answered = statSync(POSTGRES_LOG).size;
    const expected = w.kind === "merge" ? 200 : 201;
    if (r.status !== expected) throw new Error(`${w.kind}: ${w.method} ${w.path} answered ${r.status}: ${r.text.slice(0, 300)}`);
    recorded.push({ ...r, from, answered });
    await settled();
  }
  recorded.push({ from: statSync(POSTGRES_LOG).size });
  load.edgeforge += ` → ${loadavg()}`;
  await server.stop(20_000);
  cleanups.pop();
  // A request's own statements are those logged while it ran (the background of the one before has
  // settled); those logged after its answer are the background work it started (the queue consumers:
  // push events, hooks), which the Worker runs outside the request: counted apart, not replayed.
  const traces = sequence.map((_, i) => statementsOf(readLog(recorded[i].from, recorded[i].answered), database));
  const background = sequence.map((_, i) => statementsOf(readLog(recorded[i].answered, recorded[i + 1].from), database));
  const traceFile = path.join(dataDir, "trace.json");
  writeFileSync(traceFile, JSON.stringify(traces));
  // BENCH_TRACE_OUT=<file>: the statements of every request, with the request, kept for reading.
  if (process.env.BENCH_TRACE_OUT)
    writeFileSync(process.env.BENCH_TRACE_OUT, JSON.stringify(sequence.map((w, i) => ({ ...w, header: recorded[i].statements, statements: traces[i], background: background[i] })), null, 1));
  log(`recorded ${traces.reduce((n, t) => n + t.length, 0)} statements of ${traces.length} requests`);

  const bare = await startBare({ BARE_DATABASE_URL: new URL(`/${copy}`, serverUrl).toString(), BARE_TRACE: traceFile, BARE_POOL_MAX: "1" });
  load.bare = loadavg();
  const replayed = [];
  for (const [i, w] of sequence.entries()) {
    const r = await timed(bare.base, w, { "X-Replay": String(i) });
    if (r.status !== 201) throw new Error(`bare replay of request ${i} answered ${r.status}`);
    replayed.push(r);
  }
  load.bare += ` → ${loadavg()}`;
  const { failures } = JSON.parse((await jsonRequest({ base: bare.base, agent, token: "" }, "GET", "/stats")).text);
  await bare.stop();
  cleanups.pop();

  console.log("");
  console.log(`Edgeforge writes bench: ${mode}`);
  console.log(`${WRITES} of each write after ${WARM} unmeasured, one at a time, as root; Edgeforge (load ${load.edgeforge}), then the bare replay of the same statements (load ${load.bare})`);
  console.log(machine());
  console.log("");
  const rows = [];
  for (const kind of ["issue", "note", "commit", "merge"]) {
    const idx = sequence.map((w, i) => (w.kind === kind && !w.warm ? i : -1)).filter((i) => i >= 0);
    const e = figures(idx.map((i) => recorded[i]));
    const b = figures(idx.map((i) => replayed[i]));
    const header = idx.reduce((n, i) => n + recorded[i].statements, 0) / idx.length;
    const logged = idx.reduce((n, i) => n + traces[i].length, 0) / idx.length;
    const after = idx.reduce((n, i) => n + background[i].length, 0) / idx.length;
    const pin = PINS[kind];
    const name = { issue: "POST /projects/:id/issues", note: "POST /projects/:id/issues/:iid/notes", commit: "POST /projects/:id/repository/commits", merge: "PUT /projects/:id/merge_requests/:iid/merge" }[kind];
    rows.push([
      name,
      e.n,
      fmt(e.rps, 1),
      fmt(e.p50, 1),
      fmt(b.rps, 1),
      fmt(b.p50, 1),
      fmt(e.rps / b.rps, 3),
      fmt(header, 2),
      fmt(logged, 2),
      fmt(after, 2),
      pin.max === null ? "no pin" : `${pin.max} ${header <= pin.max ? "(within)" : "(OVER)"}`,
    ]);
  }
  table(["write", "requests", "Edgeforge req/s", "p50 ms", "bare req/s", "p50 ms", "ratio", "SQL/req (header)", "(log)", "after the answer", "test pin"], rows);
  console.log("");
  console.log("req/s: one connection, 1 / mean latency. SQL/req (header): X-Query-Count, which counts BEGIN and COMMIT; (log): entries");
  console.log("PostgreSQL logged while the request ran (BEGIN with txid_current() is one simple query), what the bare server replays;");
  console.log("after the answer: entries logged before the next request, the background work the write started (queue consumers), not replayed.");
  console.log("Pins: " + Object.entries(PINS).map(([k, p]) => `${k} ${p.where}`).join("; "));
  console.log(`bare replay: ${failures} statements failed (the Worker's own failed statements, or a replay that diverged)`);
  await finish();
  agent.destroy();
  log("done");
  process.exit(0);
}

main().catch(fail);
