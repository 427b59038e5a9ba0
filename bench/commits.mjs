#!/usr/bin/env node
// `npm run bench:commits` (also run by `npm run bench` after the other benches): the
// commits API on a repository of BENCH_COMMITS (10,000) commits, Edgeforge as `npm start` runs it
// (scripts/start.mjs: the Worker on workerd through Miniflare, the WebSocket proxy, the database).
//
//   database:  DATABASE_URL unset → embedded PGlite in a temporary DATA_DIR (as `npm start`);
//              DATABASE_URL set   → a fresh database `edgeforge_bench_commits_<rand>` on that server (loopback
//              only), dropped at the end.
//   seed:      the history is built by the git CLI (`git fast-import`, a second or two): 100 files in
//              `src/dir<d>/file<f>.txt` plus README.md, each commit on main editing one line of one file,
//              and every 500 commits a 3-commit side branch merged back. Its objects (`git cat-file
//              --batch-all-objects`) go into git_objects zlib-deflated, and the commit index rows come from
//              `git log --raw --numstat --diff-merges=first-parent` (what the git core computes at write
//              time), straight into the database before the server starts. The project, its refs
//              (main, side, 30 `bench-<n>` branches at main's tip) and root as its owner are rows too.
//   measure:   autocannon, BENCH_CONNECTIONS (10) connections, BENCH_DURATION (10) s each after a 2 s
//              warm-up, as root: `GET …/repository/commits` (first page), `GET …/repository/commits?path=`
//              a file one commit in 100 touches, `POST …/repository/commits` updating one file with each
//              connection on a branch of its own, and the same POST with every connection on one branch
//              (writers race for the compare-and-swap: the core retries 3 times, then answers 400). Before
//              the lists are measured, their first answer must be `git log`'s on the same repository.
//   report:    req/s, p50, p99, non-2xx, and SQL statements per request: the mean `X-Query-Count` of every
//              response of the run (scripts/start.mjs sets it with EDGEFORGE_QUERY_COUNT=1; BEGIN and
//              COMMIT count as statements).
//   env:       BENCH_COMMITS, BENCH_DURATION, BENCH_CONNECTIONS override the figures above.
//
// Everything listens on and targets 127.0.0.1 only; the run stops itself after 4 minutes at most; everything
// started is stopped and temporary files and databases removed.
import { randomBytes } from "node:crypto";
import http from "node:http";
import autocannon from "autocannon";
import { bootstrap } from "../scripts/bootstrap.mjs";
import { startServer } from "../test/e2e/server.mjs";
import { DIRS, FILES_PER_DIR, LINES, buildRepository, fileName, initialContent, loadRepository } from "./repository.mjs";
import { benchRun, jsonRequest, withDatabase } from "./support.mjs";

const COMMITS = Number(process.env.BENCH_COMMITS || 10_000);
const DURATION = Number(process.env.BENCH_DURATION || 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 10);
const WARMUP = 2;
const WRITE_BRANCHES = 3 * CONNECTIONS;
const PATH_FILTER = "src/dir3/file7.txt";
const DEADLINE_MS = 235_000; // under 4 minutes in all
const ROOT_TOKEN = `glpat-bench${randomBytes(10).toString("hex")}`;

const { log, cleanups, fail, finish, machine, prepareDatabase } = benchRun({ label: "bench:commits", deadlineMs: DEADLINE_MS });

// ---------------------------------------------------------------------------------------------
// Seeding: the history (bench/repository.mjs), and the project owned by root.

async function seed(db, repo) {
  const project = Number(
    (
      await db.query(
        `INSERT INTO projects (name, path, namespace_id, full_path, name_with_namespace, creator_id, visibility_level, default_branch, empty_repo)
         SELECT 'bench-commits', 'bench-commits', n.id, 'root/bench-commits', 'Administrator / bench-commits', 1, 0, 'main', false
         FROM namespaces n WHERE n.type = 'User' AND n.path = 'root' RETURNING id`,
      )
    ).rows[0].id,
  );
  await db.query(`INSERT INTO members (source_type, source_id, user_id, access_level) VALUES ('Project', $1, 1, 50)`, [project]);

  const main = repo.refs.get("refs/heads/main");
  const extra = [...Array.from({ length: WRITE_BRANCHES }, (_, n) => [`refs/heads/bench-${n}`, main]), ["refs/heads/shared", main]];
  const loaded = await loadRepository(db, project, repo, extra);
  await db.query("ANALYZE");
  return { project, ...loaded, expected: repo.expected };
}

// ---------------------------------------------------------------------------------------------
// Requests and measurements.

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
const ROOT = { "PRIVATE-TOKEN": ROOT_TOKEN };

function request(base, method, pathname, body) {
  return jsonRequest({ base, agent, token: ROOT_TOKEN }, method, pathname, body);
}

/** The content of a bench file with one line changed (`n` makes every update distinct). */
function updatedContent(p, n) {
  const lines = initialContent(p).split("\n");
  lines[n % LINES] = `${p} updated by request ${n}`;
  return lines.join("\n");
}

function scenarios(project, expected) {
  const list = `/api/v4/projects/${project}/repository/commits`;
  let n = 0;
  const commitBody = (branch) => {
    n += 1;
    const file = fileName(n % DIRS, Math.floor(n / DIRS) % FILES_PER_DIR);
    return JSON.stringify({ branch, commit_message: `Bench update ${n}`, actions: [{ action: "update", file_path: file, content: updatedContent(file, n) }] });
  };
  const post = (branchFor) => ({
    method: "POST",
    expected: 201,
    sample: () => ({ method: "POST", path: list, body: JSON.parse(commitBody(branchFor(null) ?? "main")) }),
    requests: () => {
      // Each connection has one request in flight: it leases a branch in setupRequest and returns it
      // in onResponse, so no two requests of the run write to the same branch at once.
      const free = Array.from({ length: WRITE_BRANCHES }, (_, k) => `bench-${k}`);
      return [
        {
          method: "POST",
          setupRequest: (req, context) => {
            const branch = branchFor(free);
            context.branch = branch;
            return { ...req, path: list, headers: { ...ROOT, "Content-Type": "application/json" }, body: commitBody(branch) };
          },
          onResponse: (status, body, context) => {
            if (context.branch && context.branch.startsWith("bench-")) free.push(context.branch);
          },
        },
      ];
    },
  });
  return [
    {
      name: "GET /projects/:id/repository/commits (first page, 20)",
      expected: 200,
      expectedIds: expected.firstPage,
      sample: () => ({ method: "GET", path: list }),
      requests: () => [{ method: "GET", path: list, headers: ROOT }],
    },
    {
      name: `GET /projects/:id/repository/commits?path=<1% of commits>`,
      expected: 200,
      expectedIds: expected.pathPage,
      sample: () => ({ method: "GET", path: `${list}?path=${encodeURIComponent(PATH_FILTER)}` }),
      requests: () => [{ method: "GET", path: `${list}?path=${encodeURIComponent(PATH_FILTER)}`, headers: ROOT }],
    },
    { name: "POST /projects/:id/repository/commits (a branch per connection)", ...post((free) => (free ? free.shift() ?? "bench-0" : "bench-0")) },
    { name: "POST /projects/:id/repository/commits (all on one branch)", ...post(() => "shared") },
  ];
}

const SEQUENTIAL_SECONDS = 3;

/**
 * Latency with one connection (no queueing behind other requests): sequential requests for
 * SEQUENTIAL_SECONDS, each timed with hrtime. Only for the reads, which do not change the repository.
 */
async function sequential(base, scenario) {
  const one = scenario.sample();
  const timings = [];
  const until = Date.now() + SEQUENTIAL_SECONDS * 1000;
  while (Date.now() < until) {
    const t0 = process.hrtime.bigint();
    const res = await request(base, one.method, one.path, one.body);
    timings.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (res.status !== scenario.expected) throw new Error(`${scenario.name} answered ${res.status}`);
  }
  timings.sort((a, b) => a - b);
  return { p50: timings[Math.floor(timings.length / 2)], p99: timings[Math.min(timings.length - 1, Math.floor(timings.length * 0.99))] };
}

async function measure(base, scenario) {
  const one = scenario.sample();
  const first = await request(base, one.method, one.path, one.body);
  if (first.status !== scenario.expected) throw new Error(`${scenario.name}: ${one.method} ${one.path} answered ${first.status}: ${first.text.slice(0, 300)}`);
  const items = (() => {
    try {
      const body = JSON.parse(first.text);
      return Array.isArray(body) ? body.length : null;
    } catch {
      return null;
    }
  })();
  // The answer must be git's before its speed means anything.
  if (scenario.expectedIds) {
    const got = JSON.parse(first.text).map((c) => c.id);
    if (JSON.stringify(got) !== JSON.stringify(scenario.expectedIds))
      throw new Error(`${scenario.name}: the ids differ from git log's (${got.length} against ${scenario.expectedIds.length})`);
  }
  await autocannon({ url: base, connections: CONNECTIONS, duration: WARMUP, requests: scenario.requests() });
  const alone = scenario.expected === 200 ? await sequential(base, scenario) : null;
  // Every response's X-Query-Count, through an onResponse wrapper.
  let counted = 0;
  let statements = 0;
  const statuses = new Map();
  const requests = scenario.requests().map((r) => ({
    ...r,
    onResponse: (status, body, context, headers) => {
      r.onResponse?.(status, body, context, headers);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const count = Number(headers["x-query-count"] ?? headers["X-Query-Count"]);
      if (!Number.isNaN(count)) {
        counted += 1;
        statements += count;
      }
    },
  }));
  const result = await autocannon({ url: base, connections: CONNECTIONS, duration: DURATION, requests });
  const figures = {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statements: counted ? statements / counted : null,
    statuses: [...statuses.entries()].sort().map(([s, n]) => `${s}×${n}`).join(" "),
    items,
    alone,
  };
  log(
    `${scenario.name}: ${Math.round(figures.rps)} req/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms, ${figures.statements?.toFixed(1)} SQL/req, ${figures.statuses}` +
      (alone ? `; one connection: p50 ${alone.p50.toFixed(1)} ms` : ""),
  );
  return figures;
}

function fmt(n, digits = 0) {
  return n === null || n === undefined || Number.isNaN(n) ? "-" : Number(n).toFixed(digits);
}

function report(mode, seeded, rows) {
  const header = ["endpoint", "req/s", "p50 ms", "p99 ms", "requests", "non-2xx", "errors", "SQL/req", "1-conn p50", "1-conn p99", "statuses"];
  const lines = [
    header,
    ...rows.map(({ name, r }) => [
      name,
      fmt(r.rps),
      fmt(r.p50, 1),
      fmt(r.p99, 1),
      String(r.total ?? "-"),
      String(r.non2xx ?? "-"),
      String(r.errors ?? "-"),
      fmt(r.statements, 1),
      fmt(r.alone?.p50, 1),
      fmt(r.alone?.p99, 1),
      r.statuses,
    ]),
  ];
  const widths = header.map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
  const render = (l) => l.map((cell, i) => (i === 0 || i === 10 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join("  ");
  console.log("");
  console.log(`Edgeforge commits bench: ${mode}`);
  console.log(`${seeded.commits} commits (${seeded.objects} objects, ${seeded.changes} changed-path rows); ${CONNECTIONS} connections, ${DURATION} s per endpoint after a ${WARMUP} s warm-up, as root`);
  console.log(machine());
  console.log("");
  console.log(render(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const l of lines.slice(1)) console.log(render(l));
  console.log("");
  console.log("SQL/req: mean X-Query-Count over every response of the run (BEGIN and COMMIT included). 1-conn: sequential requests for");
  console.log(`${SEQUENTIAL_SECONDS} s with one connection (reads only). 400s on one branch: writers that lost the compare-and-swap 3 times.`);
}

async function main() {
  // scripts/start.mjs adds `--var QUERY_COUNT_HEADER:1` with this: responses carry X-Query-Count.
  process.env.EDGEFORGE_QUERY_COUNT = "1";
  const { dataDir, target, mode } = await prepareDatabase("edgeforge_bench_commits_");
  log(`database: ${mode}`);

  let seconds = Date.now();
  const repo = buildRepository({ commits: COMMITS, pathFilter: PATH_FILTER, log, cleanups });
  log(`git built ${repo.commits} commits (${repo.objects.length} objects) in ${((Date.now() - seconds) / 1000).toFixed(1)} s`);
  seconds = Date.now();
  const seeded = await withDatabase(target, async (db) => {
    await bootstrap(db, { initialRootToken: ROOT_TOKEN });
    return seed(db, repo);
  });
  log(`loaded them into project ${seeded.project} in ${((Date.now() - seconds) / 1000).toFixed(1)} s`);

  const server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: target.url, timeoutMs: 90_000 });
  cleanups.push(() => server.stop(20_000));
  log(`Edgeforge: ${server.apiUrl}`);

  const rows = [];
  for (const scenario of scenarios(seeded.project, seeded.expected)) {
    try {
      rows.push({ name: scenario.name, r: await measure(server.host, scenario) });
    } catch (error) {
      log(`not measured: ${error.message}`);
      rows.push({ name: scenario.name, r: { statuses: `not measured: ${error.message.slice(0, 80)}` } });
    }
  }

  report(mode, seeded, rows);
  await finish();
  agent.destroy();
  log("done");
  process.exit(0);
}

main().catch(fail);
