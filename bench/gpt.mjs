#!/usr/bin/env node
// `npm run bench:gpt`: a mixed read load in the shape of the GitLab Performance Tool's (GPT) API tests, Edgeforge
// as `npm start` runs it (scripts/start.mjs: the Worker on workerd through Miniflare, the proxy, the database).
//
//   endpoints: the GET endpoints of GPT's `api_v4_*` tests, each on the fixed entities GPT's environment file
//              names (one large project, one of its issues, merge requests, commits, files): projects,
//              project (by its URL-encoded path, as GPT asks), issues, issue, merge requests, merge request,
//              commits, commit, repository tree, file, branches, pipelines, groups, group projects, users,
//              search. An endpoint whose first answer is 404 is reported as not built and left out of the load.
//   database:  DATABASE_URL unset → embedded PGlite in a temporary DATA_DIR (as `npm start`);
//              DATABASE_URL set   → a fresh database `edgeforge_bench_gpt_<rand>` on that server (loopback only),
//              dropped at the end.
//   seed:      straight SQL before the server starts, in the shape of GPT's large project (gitlabhq): a public
//              group `gpt` with the large project `gpt/large` and BENCH_GROUP_PROJECTS (20) small ones;
//              BENCH_USERS (100) users; the large project's history of BENCH_COMMITS (10,000) commits, built by
//              git and loaded as the git core keeps it (bench/repository.mjs, as bench/commits.mjs), with
//              BENCH_BRANCHES (200) branches on main's first-parent line; BENCH_ISSUES (5,000) issues with
//              labels, assignees and milestones (as bench/issues.mjs); BENCH_MRS (2,000) merge requests, one
//              in ten open on a branch of its own, the rest merged; BENCH_PIPELINES (1,000) pipelines on main.
//   load:      an open model (arrivals do not wait for answers, as GPT's k6 `constant-arrival-rate`):
//              BENCH_RATE (200) requests/s in all, the endpoints in turn, over keep-alive connections that
//              are opened as needed (at most 512), for BENCH_DURATION (30) s after BENCH_WARMUP (5) s at the
//              same rate. An arrival that finds 512 requests unanswered is not sent and counts as an error (a
//              client that gave up), so that an overloaded server ends the run in seconds. Each request is sent at its scheduled time; its time to first byte is from the
//              request written to the response's headers (GPT's `http_req_waiting`).
//   alone:     before the load, each endpoint BENCH_ALONE (40) times on one connection, one request at a time:
//              its time to first byte without queueing, and the CPU time per request of the stack's processes
//              (workerd; node: scripts/start.mjs with the proxy; postgres: the backends of the bench's
//              database, on PostgreSQL), read from /proc as bench/cpu.mjs does. The CPU a mix of
//              them costs says what rate two cores can hold at best.
//   report:    per endpoint: requests, p50/p90/p99 time to first byte, non-2xx, errors, SQL statements per
//              request (X-Query-Count, EDGEFORGE_QUERY_COUNT=1); in all, the achieved rate. Target (GPT's):
//              every endpoint's p90 under BENCH_P90_MS (200) ms and at least 95% of the target rate achieved.
//   env:       the BENCH_* figures above.
//
// Everything listens on and targets 127.0.0.1 only; the run stops itself after 5 minutes at most; everything
// started is stopped and temporary files and databases removed.
import { randomBytes } from "node:crypto";
import http from "node:http";
import os from "node:os";
import { bootstrap, generateToken, sha256Hex } from "../scripts/bootstrap.mjs";
import { startServer } from "../test/e2e/server.mjs";
import { buildRepository, loadRepository } from "./repository.mjs";
import { CPU_TICKS, benchRun, groupCpu, jsonRequest, loadavg, pidsCpu, withDatabase } from "./support.mjs";

const RATE = Number(process.env.BENCH_RATE || 200);
const DURATION = Number(process.env.BENCH_DURATION || 30);
const WARMUP = Number(process.env.BENCH_WARMUP || 5);
const P90_MS = Number(process.env.BENCH_P90_MS || 200);
const COMMITS = Number(process.env.BENCH_COMMITS || 10_000);
const BRANCHES = Number(process.env.BENCH_BRANCHES || 200);
const ISSUES = Number(process.env.BENCH_ISSUES || 5_000);
const MRS = Number(process.env.BENCH_MRS || 2_000);
const PIPELINES = Number(process.env.BENCH_PIPELINES || 1_000);
const USERS = Number(process.env.BENCH_USERS || 100);
const GROUP_PROJECTS = Number(process.env.BENCH_GROUP_PROJECTS || 20);
const ALONE = Number(process.env.BENCH_ALONE || 40);
const MAX_SOCKETS = 512;
const RATE_TARGET = 0.95;
const FILE = "src/dir3/file7.txt";
const LABELS = ["bug", "feature", "backend", "frontend", "docs", "security", "performance", "database", "UX", "QA"];
const DEADLINE_MS = 295_000;
const ROOT_TOKEN = `glpat-bench${randomBytes(10).toString("hex")}`;

const { log, cleanups, fail, finish, machine, prepareDatabase } = benchRun({ label: "bench:gpt", deadlineMs: DEADLINE_MS });

// ---------------------------------------------------------------------------------------------
// Seeding, in SQL (the shapes of test/helpers/world.ts, bench/issues.mjs and bench/commits.mjs).

async function seed(db, repo) {
  const tokens = Array.from({ length: USERS }, () => generateToken());
  const users = (
    await db.query(
      `INSERT INTO users (username, name, email, state, confirmed_at)
       SELECT 'gpt_user_' || g, 'GPT User ' || g, 'gpt_user_' || g || '@example.com', 'active', now()
       FROM generate_series(1, $1::int) g RETURNING id`,
      [USERS],
    )
  ).rows.map((r) => Number(r.id));
  await db.query(
    `INSERT INTO namespaces (type, name, path, full_path, full_name, owner_id, visibility_level)
     SELECT 'User', u.name, u.username, u.username, u.name, u.id, 20 FROM users u WHERE u.id = ANY($1::int[])`,
    [users],
  );
  await db.query(
    `INSERT INTO personal_access_tokens (user_id, name, token_digest, scopes)
     SELECT u, 'bench', d, ARRAY['api','read_api'] FROM unnest($1::int[], $2::text[]) AS t(u, d)`,
    [users, tokens.map((t) => sha256Hex(t))],
  );
  const group = Number(
    (
      await db.query(
        `INSERT INTO namespaces (type, name, path, full_path, full_name, visibility_level)
         VALUES ('Group', 'GPT', 'gpt', 'gpt', 'GPT', 20) RETURNING id`,
      )
    ).rows[0].id,
  );
  await db.query(`UPDATE namespaces SET traversal_ids = ARRAY[id] WHERE id = $1`, [group]);
  await db.query(
    `INSERT INTO members (source_type, source_id, user_id, access_level)
     SELECT 'Namespace', $1::int, u, CASE WHEN u = 1 THEN 50 ELSE 30 END FROM unnest(array_prepend(1, $2::int[])) AS u`,
    [group, users],
  );
  const project = Number(
    (
      await db.query(
        `INSERT INTO projects (name, path, namespace_id, full_path, name_with_namespace, creator_id, visibility_level, default_branch, empty_repo, description)
         VALUES ('large', 'large', $1, 'gpt/large', 'GPT / large', 1, 20, 'main', false, 'The large project of the GPT bench') RETURNING id`,
        [group],
      )
    ).rows[0].id,
  );
  await db.query(
    `INSERT INTO projects (name, path, namespace_id, full_path, name_with_namespace, creator_id, visibility_level)
     SELECT 'small-' || g, 'small-' || g, $1::int, 'gpt/small-' || g, 'GPT / small-' || g, 1, 20 FROM generate_series(1, $2::int) g`,
    [group, GROUP_PROJECTS],
  );

  // The repository: main, side, and BRANCHES branches spread over main's first-parent line.
  const line = repo.mainLine;
  const branchAt = (k) => line[Math.floor(((k + 1) * (line.length - 1)) / (BRANCHES + 1))];
  const branches = Array.from({ length: BRANCHES }, (_, k) => [`refs/heads/feature-${k}`, branchAt(k)]);
  const loaded = await loadRepository(db, project, repo, branches);

  // Labels, milestones, issues (as bench/issues.mjs: label_ids with the issues, label_links with triggers off).
  const labels = (
    await db.query(`INSERT INTO labels (project_id, title, color) SELECT $1::int, t, '#428BCA' FROM unnest($2::text[]) AS t RETURNING id`, [project, LABELS])
  ).rows.map((r) => Number(r.id));
  const milestones = (
    await db.query(`INSERT INTO milestones (iid, project_id, title) SELECT k, $1::int, 'v1.' || k FROM generate_series(1, 5) k ORDER BY k RETURNING id`, [project])
  ).rows.map((r) => Number(r.id));
  await db.query(
    `INSERT INTO issues (iid, project_id, title, description, state, author_id, milestone_id, closed_at, closed_by_id, created_at, updated_at, label_ids)
     SELECT g, $1::int, 'GPT issue ' || g, 'Steps to reproduce issue ' || g || E'\\n\\n- [x] triaged\\n- [ ] fixed',
            CASE WHEN g % 4 = 0 THEN 'closed' ELSE 'opened' END,
            ($3::int[])[g % cardinality($3::int[]) + 1],
            CASE WHEN g % 3 = 0 THEN NULL ELSE ($4::int[])[g % 5 + 1] END,
            CASE WHEN g % 4 = 0 THEN ts + interval '1 hour' END,
            CASE WHEN g % 4 = 0 THEN 1 END,
            ts, ts + interval '1 hour',
            ARRAY(SELECT l FROM unnest($5::int[]) WITH ORDINALITY AS x(l, n) WHERE g % (n + 1) = 0 ORDER BY l)
     FROM generate_series(1, $2::int) g, LATERAL (SELECT now() - ($2::int - g) * interval '10 minutes' AS ts) t`,
    [project, ISSUES, users, milestones, labels.slice(0, 4)],
  );
  await db.query(
    `INSERT INTO issue_assignees (issue_id, user_id)
     SELECT i.id, ($2::int[])[i.iid % cardinality($2::int[]) + 1] FROM issues i WHERE i.project_id = $1 AND i.iid % 3 <> 0`,
    [project, users],
  );
  await db.query(`SET session_replication_role = replica`);
  await db.query(`INSERT INTO label_links (label_id, target_type, target_id) SELECT unnest(label_ids), 'Issue', id FROM issues WHERE project_id = $1`, [project]);
  await db.query(`SET session_replication_role = DEFAULT`);

  // Merge requests: one in ten open, each on a feature branch of its own (one open merge request per
  // branch pair); the rest merged, their merge commit on main.
  const openMrs = Math.min(BRANCHES, Math.ceil(MRS / 10));
  await db.query(
    `INSERT INTO merge_requests (iid, project_id, source_project_id, title, description, state, source_branch, target_branch,
                                 author_id, merged_by_id, merged_at, merge_status, sha, merge_commit_sha, created_at, updated_at)
     SELECT g, $1::int, $1::int, 'GPT merge request ' || g, 'Implements part ' || g || E'\\n\\nCloses #' || g,
            CASE WHEN open THEN 'opened' ELSE 'merged' END,
            CASE WHEN open THEN 'feature-' || (g / 10) ELSE 'merged-' || g END, 'main',
            ($3::int[])[g % cardinality($3::int[]) + 1],
            CASE WHEN open THEN NULL ELSE 1 END, CASE WHEN open THEN NULL ELSE ts + interval '1 hour' END,
            CASE WHEN open THEN 'unchecked' ELSE 'can_be_merged' END,
            ($4::text[])[g % cardinality($4::text[]) + 1],
            CASE WHEN open THEN NULL ELSE ($4::text[])[g % cardinality($4::text[]) + 1] END,
            ts, ts + interval '1 hour'
     FROM generate_series(1, $2::int) g,
          LATERAL (SELECT g % 10 = 0 AND g / 10 < $5::int AS open, now() - ($2::int - g) * interval '20 minutes' AS ts) x`,
    [project, MRS, users, line, openMrs],
  );
  // Open merge requests point at their branch's tip (the `sha` above is for the merged ones).
  await db.query(
    `UPDATE merge_requests m SET sha = r.target FROM git_refs r
     WHERE m.project_id = $1 AND m.state = 'opened' AND r.project_id = $1 AND r.name = 'refs/heads/' || m.source_branch`,
    [project],
  );
  await db.query(
    `INSERT INTO ci_pipelines (iid, project_id, ref, sha, source, status, user_id, created_at, updated_at, started_at, finished_at, duration)
     SELECT g, $1::int, 'main', ($3::text[])[($2::int - g) % cardinality($3::text[]) + 1], 'push',
            CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'success' END, 1,
            ts, ts + interval '5 minutes', ts + interval '10 seconds', ts + interval '5 minutes', 290
     FROM generate_series(1, $2::int) g, LATERAL (SELECT now() - ($2::int - g) * interval '30 minutes' AS ts) t`,
    [project, PIPELINES, line],
  );
  await db.query(
    `INSERT INTO internal_ids (usage, project_id, last_value)
     VALUES ('issues', $1, $2), ('merge_requests', $1, $3), ('milestones', $1, 5), ('ci_pipelines', $1, $4)
     ON CONFLICT (usage, project_id) WHERE project_id IS NOT NULL DO UPDATE SET last_value = EXCLUDED.last_value`,
    [project, ISSUES, MRS, PIPELINES],
  );
  await db.query(`VACUUM ANALYZE`);
  return { project, group, commit: line[Math.floor(line.length / 2)], ...loaded };
}

// ---------------------------------------------------------------------------------------------
// The endpoints: GPT's `api_v4_*` GET tests, on GPT's fixed entities.

function endpoints(seeded) {
  const p = `/api/v4/projects/${seeded.project}`;
  const mr = 10 * Math.floor(Math.min(BRANCHES, MRS / 10) / 2) + 3; // a merged one, mid-history
  return [
    { name: "GET /projects", path: "/api/v4/projects" },
    { name: "GET /projects/:id (URL-encoded path)", path: `/api/v4/projects/${encodeURIComponent("gpt/large")}` },
    { name: "GET /projects/:id/issues", path: `${p}/issues` },
    { name: "GET /projects/:id/issues/:iid", path: `${p}/issues/${Math.floor(ISSUES / 2) + 1}` },
    { name: "GET /projects/:id/merge_requests", path: `${p}/merge_requests` },
    { name: "GET /projects/:id/merge_requests/:iid", path: `${p}/merge_requests/${mr}` },
    { name: "GET /projects/:id/repository/commits", path: `${p}/repository/commits` },
    { name: "GET /projects/:id/repository/commits/:sha", path: `${p}/repository/commits/${seeded.commit}` },
    { name: "GET /projects/:id/repository/tree", path: `${p}/repository/tree?ref=main` },
    { name: "GET /projects/:id/repository/files/:file_path", path: `${p}/repository/files/${encodeURIComponent(FILE)}?ref=main` },
    { name: "GET /projects/:id/repository/branches", path: `${p}/repository/branches` },
    { name: "GET /projects/:id/pipelines", path: `${p}/pipelines` },
    { name: "GET /groups", path: "/api/v4/groups" },
    { name: "GET /groups/:id/projects", path: `/api/v4/groups/${seeded.group}/projects` },
    { name: "GET /users", path: "/api/v4/users" },
    { name: "GET /search?scope=issues", path: "/api/v4/search?scope=issues&search=reproduce" },
  ];
}

// ---------------------------------------------------------------------------------------------
// The open-model load.

const agent = new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });

/** One GET; resolves with its time to first byte, total time, status and statement count (never rejects). */
function timedGet(base, path) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(`${base}${path}`, { method: "GET", agent, timeout: 30_000, headers: { "PRIVATE-TOKEN": ROOT_TOKEN } }, (res) => {
      const ttfb = Number(process.hrtime.bigint() - t0) / 1e6;
      res.on("data", () => {});
      res.on("end", () =>
        resolve({ ttfb, total: Number(process.hrtime.bigint() - t0) / 1e6, status: res.statusCode, statements: Number(res.headers["x-query-count"] ?? NaN) }),
      );
      res.on("error", (error) => resolve({ error }));
    });
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", (error) => resolve({ error }));
    req.end();
  });
}

/**
 * Sends RATE requests a second for `seconds`, the endpoints in turn, each at its scheduled time whether or
 * not earlier ones have answered. Resolves once every request has answered, with the samples per endpoint,
 * the send lag (how late the scheduler sent, a check that the client kept up) and the wall time from the
 * first send to the last answer.
 */
async function openLoad(base, list, seconds) {
  const total = Math.round(RATE * seconds);
  const samples = list.map(() => []);
  const pending = [];
  let lagMax = 0;
  let sent = 0;
  let inFlight = 0;
  let dropped = 0;
  const start = performance.now();
  let lastAnswer = start;
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + (sent * 1000) / RATE <= now) {
        const i = sent % list.length;
        lagMax = Math.max(lagMax, now - (start + (sent * 1000) / RATE));
        sent += 1;
        // An arrival that finds MAX_SOCKETS requests unanswered is not sent (a client that gave up): counted
        // as an error of its endpoint, so that an overloaded server ends the run in seconds, not minutes.
        if (inFlight >= MAX_SOCKETS) {
          samples[i].push({ error: new Error("dropped: too many requests in flight") });
          dropped += 1;
          continue;
        }
        inFlight += 1;
        pending.push(
          timedGet(base, list[i].path).then((r) => {
            inFlight -= 1;
            samples[i].push(r);
            lastAnswer = performance.now();
          }),
        );
      }
      if (sent < total) setTimeout(tick, 2);
      else resolve();
    };
    tick();
  });
  await Promise.all(pending);
  return { samples, lagMax, wallSeconds: Math.max(seconds, (lastAnswer - start) / 1000), sent, dropped };
}

/**
 * Each endpoint alone: ALONE sequential requests (after 5 unmeasured), their time-to-first-byte p50 and the
 * CPU milliseconds per request of the server's process group and of PostgreSQL.
 */
async function alone(server, list, target) {
  // PostgreSQL's CPU: this database's backends only (the server is shared; other sessions come and go).
  const backendPids = async () =>
    target.url ? new Set(await withDatabase({ url: target.url }, async (db) => (await db.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")).rows.map((r) => r.pid))) : new Set();
  const out = [];
  for (const endpoint of list) {
    for (let i = 0; i < 5; i++) await timedGet(server.host, endpoint.path);
    const backends = await backendPids();
    const before = { ...groupCpu(server.child.pid), postgres: pidsCpu(backends) };
    const ttfb = [];
    for (let i = 0; i < ALONE; i++) {
      const r = await timedGet(server.host, endpoint.path);
      if (r.error || r.status !== 200) throw new Error(`${endpoint.name}: ${r.error?.message ?? r.status}`);
      ttfb.push(r.ttfb);
    }
    const after = { ...groupCpu(server.child.pid), postgres: pidsCpu(new Set([...backends, ...(await backendPids())])) };
    const cpu = {};
    for (const [name, ticks] of Object.entries(after)) cpu[name] = (((ticks - (before[name] ?? 0)) / CPU_TICKS) * 1000) / ALONE;
    ttfb.sort((a, b) => a - b);
    out.push({ p50: quantile(ttfb, 0.5), cpu });
  }
  return out;
}

function quantile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
}

function summarize(list, load, seconds) {
  return list.map((endpoint, i) => {
    const all = load.samples[i];
    const ok = all.filter((r) => !r.error);
    const ttfb = ok.map((r) => r.ttfb).sort((a, b) => a - b);
    const counted = ok.filter((r) => !Number.isNaN(r.statements));
    return {
      name: endpoint.name,
      requests: all.length,
      rate: all.length / seconds,
      p50: quantile(ttfb, 0.5),
      p90: quantile(ttfb, 0.9),
      p99: quantile(ttfb, 0.99),
      max: ttfb[ttfb.length - 1],
      non2xx: ok.filter((r) => r.status < 200 || r.status >= 300).length,
      errors: all.length - ok.length,
      statements: counted.length ? counted.reduce((n, r) => n + r.statements, 0) / counted.length : NaN,
    };
  });
}

// ---------------------------------------------------------------------------------------------

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

async function main() {
  // scripts/start.mjs adds `--var QUERY_COUNT_HEADER:1` with this: responses carry X-Query-Count.
  process.env.EDGEFORGE_QUERY_COUNT = "1";
  const { dataDir, target, mode } = await prepareDatabase("edgeforge_bench_gpt_");
  log(`database: ${mode}`);

  let seconds = Date.now();
  const repo = buildRepository({ commits: COMMITS, pathFilter: FILE, log, cleanups });
  log(`git built ${repo.commits} commits (${repo.objects.length} objects) in ${((Date.now() - seconds) / 1000).toFixed(1)} s`);
  seconds = Date.now();
  const seeded = await withDatabase(target, async (db) => {
    await bootstrap(db, { initialRootToken: ROOT_TOKEN });
    return seed(db, repo);
  });
  log(`seeded project ${seeded.project}: ${seeded.commits} commits, ${BRANCHES} branches, ${ISSUES} issues, ${MRS} merge requests, ${PIPELINES} pipelines in ${((Date.now() - seconds) / 1000).toFixed(1)} s`);

  const server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: target.url, timeoutMs: 90_000 });
  cleanups.push(() => server.stop(20_000));
  log(`Edgeforge: ${server.apiUrl}`);

  // Each endpoint once: 404 = not built (left out of the load); any other non-2xx fails the run.
  const built = [];
  const missing = [];
  for (const endpoint of endpoints(seeded)) {
    const res = await jsonRequest({ base: server.host, agent, token: ROOT_TOKEN }, "GET", endpoint.path);
    if (res.status === 404) missing.push({ ...endpoint, body: res.text.slice(0, 80) });
    else if (res.status !== 200) throw new Error(`${endpoint.name}: ${endpoint.path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    else built.push({ ...endpoint, bytes: Buffer.byteLength(res.text), items: (() => { const b = JSON.parse(res.text); return Array.isArray(b) ? b.length : null; })() });
  }
  for (const m of missing) log(`not built: ${m.name} (${m.path} answered 404 ${m.body})`);

  log(`each endpoint alone, ${ALONE} requests on one connection`);
  const single = await alone(server, built, target);
  const cpuOf = (r, name) => r.cpu[name] ?? 0;
  const mixCpu = single.reduce((n, r) => n + cpuOf(r, "workerd") + cpuOf(r, "node") + cpuOf(r, "postgres"), 0) / single.length;

  log(`warm-up: ${RATE} req/s for ${WARMUP} s`);
  await openLoad(server.host, built, WARMUP);
  const loadBefore = loadavg();
  log(`measuring: ${RATE} req/s for ${DURATION} s over ${built.length} endpoints (load ${loadBefore})`);
  const load = await openLoad(server.host, built, DURATION);
  const loadAfter = loadavg();
  const rows = summarize(built, load, load.wallSeconds);
  const answered = rows.reduce((n, r) => n + r.requests - r.errors, 0);
  const achieved = answered / load.wallSeconds;

  console.log("");
  console.log(`Edgeforge GPT-shaped API bench: ${mode}`);
  console.log(`project gpt/large: ${seeded.commits} commits, ${BRANCHES} branches, ${ISSUES} issues, ${MRS} merge requests, ${PIPELINES} pipelines; ${USERS} users, ${GROUP_PROJECTS + 1} projects in the group`);
  console.log(`open model: ${RATE} req/s for ${DURATION} s after a ${WARMUP} s warm-up, the ${built.length} endpoints in turn, as root; load ${loadBefore} before, ${loadAfter} after`);
  console.log(machine());
  console.log("");
  table(
    ["endpoint", "requests", "p50 ms", "p90 ms", "p99 ms", "max ms", "non-2xx", "errors", "SQL/req", "bytes", "p90 target", "alone p50", "CPU workerd", "node", "postgres"],
    [
      ...rows.map((r, i) => [
        r.name, r.requests, fmt(r.p50, 1), fmt(r.p90, 1), fmt(r.p99, 1), fmt(r.max, 0), r.non2xx, r.errors, fmt(r.statements, 1), built[i].bytes,
        r.p90 < P90_MS && r.errors === 0 && r.non2xx === 0 ? "met" : "MISSED",
        fmt(single[i].p50, 1), fmt(cpuOf(single[i], "workerd"), 2), fmt(cpuOf(single[i], "node"), 2), fmt(cpuOf(single[i], "postgres"), 2),
      ]),
      ...missing.map((m) => [m.name, "not built (404)", "", "", "", "", "", "", "", "", "", "", "", "", ""]),
    ],
  );
  console.log("");
  const rateMet = achieved >= RATE_TARGET * RATE;
  console.log(
    `achieved ${fmt(achieved, 1)} req/s of ${RATE} (${fmt((100 * achieved) / RATE, 1)}%, target >= ${RATE_TARGET * 100}%: ${rateMet ? "met" : "MISSED"}); ` +
      `${load.sent - load.dropped} sent (${load.dropped} not sent: ${MAX_SOCKETS} in flight), the last answered ${fmt(load.wallSeconds - DURATION, 2)} s after the last send; scheduler lag at most ${fmt(load.lagMax, 1)} ms`,
  );
  console.log(
    `alone: time to first byte with one request at a time; CPU ms per request of workerd, node (start.mjs and the proxy) and postgres (the bench database's backends). ` +
      `The mix costs ${fmt(mixCpu, 2)} ms of CPU per request: ${os.cpus().length} cores hold at most ${fmt((os.cpus().length * 1000) / mixCpu, 0)} req/s of it, with nothing else running.`,
  );
  const missed = rows.filter((r) => !(r.p90 < P90_MS && r.errors === 0 && r.non2xx === 0));
  console.log(`p90 time to first byte under ${P90_MS} ms: ${missed.length === 0 ? "met by every endpoint" : `MISSED by ${missed.map((r) => r.name).join(", ")}`}`);
  await finish();
  agent.destroy();
  log("done");
  process.exit(0);
}

main().catch(fail);
