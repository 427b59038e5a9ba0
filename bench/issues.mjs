#!/usr/bin/env node
// `npm run bench:issues` (also run by `npm run bench` after bench/run.mjs): issues and
// notes at volume, Edgeforge as `npm start` runs it (scripts/start.mjs: the Worker on workerd through
// Miniflare, the WebSocket proxy, the database).
//
//   instances: two, side by side, each with its own database and its own `npm start` (separate DATA_DIRs):
//              one with BENCH_SMALL (1,000) issues, one with BENCH_ISSUES (100,000).
//              `npm run bench:flat` (not part of CI or `npm run bench`): 10,000 against 1,000,000, seeded in bulk.
//   database:  DATABASE_URL unset → embedded PGlite in each instance's temporary DATA_DIR (as `npm start`);
//              DATABASE_URL set   → fresh databases `edgeforge_bench_issues_<rand>` on that server (loopback
//              only), dropped at the end.
//   seed:      straight SQL (generate_series) before the instances start, the rows shaped as Edgeforge writes
//              them (as test/helpers/world.ts does): BENCH_USERS (20) users with tokens, developers of one
//              private group with BENCH_PROJECTS (10) projects, each with 8 labels (`a`, `b`, …) and 5
//              milestones; issues spread evenly over the projects, with authors, assignees (2 in 3),
//              milestones (2 in 3), labels (`a` on 1 in 2, `b` on 1 in 3, …), a quarter closed.
//   measure:   the first-page latency of `GET /projects/:id/issues?per_page=20` and
//              `GET /issues?scope=all&labels=a,b&state=opened` on both instances, one connection each, the
//              requests alternating between them (whatever else loads the machine weighs on both alike);
//              then, on the 100,000-issue instance alone, autocannon with BENCH_CONNECTIONS (10) connections
//              for BENCH_DURATION (10) s after a 2 s warm-up: those two lists (as root) and
//              `POST /projects/:id/issues/:iid/notes` (as the 20 users in turn, with `notes_create_limit`
//              set to 0 = unlimited, as an admin may, since the run posts more than 300 a minute).
//   env:       BENCH_DURATION, BENCH_CONNECTIONS, BENCH_ISSUES, BENCH_PROJECTS, BENCH_USERS override the figures
//              above; BENCH_KEEP_DATABASE=1 keeps the PostgreSQL database (its name is printed) for EXPLAIN;
//              BENCH_LISTS_AS=member measures the lists as the first bench user (a developer of the group)
//              instead of root.
//   report:    req/s, p50, p99, non-2xx, SQL statements per request (the X-Query-Count header, which
//              scripts/start.mjs turns on with EDGEFORGE_QUERY_COUNT=1), and the 100,000/1,000 latency
//              ratio against the target (1.2x).
//
// Everything listens on and targets 127.0.0.1 only; the run stops itself after 5 minutes at most; everything
// started is stopped and temporary files and databases removed.
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { bootstrap } from "../scripts/bootstrap.mjs";
import { migratePglite, migratePostgres } from "../scripts/migrate.mjs";
import { startServer } from "../test/e2e/server.mjs";
import { assertLoopback, benchRun, fmt, insertGroup, insertUsers, jsonRequest, table, withDatabase } from "./support.mjs";

const DURATION = Number(process.env.BENCH_DURATION || 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 10);
const ISSUES = Number(process.env.BENCH_ISSUES || 100_000);
const SMALL = Number(process.env.BENCH_SMALL || 1_000);
const TARGET = 1.2;
const PROJECTS = Number(process.env.BENCH_PROJECTS || 10);
const USERS = Number(process.env.BENCH_USERS || 20);
const WARMUP = 2;
const LATENCY_SECONDS = 5;
// Under 5 minutes in all at the default size; seeding a million issues takes longer (bench:flat).
const DEADLINE_MS = Math.max(290_000, 290_000 + (ISSUES - 100_000) * 0.6);
const ROOT_TOKEN = `glpat-bench${randomBytes(10).toString("hex")}`;
const LABELS = ["a", "b", "bug", "feature", "backend", "frontend", "docs", "security"];
const MILESTONES = 5;

const { log, cleanups, fail, finish, machine, createBenchDatabase } = benchRun({ label: "bench:issues", deadlineMs: DEADLINE_MS });

// ---------------------------------------------------------------------------------------------
// Seeding, in SQL. The shapes follow test/helpers/world.ts (users, namespaces, projects, members).

/** Users with tokens, the group, its projects, labels and milestones; returns ids and tokens. */
async function seedFixtures(db) {
  const { users, tokens } = await insertUsers(db, USERS, { prefix: "bench_user", name: "Bench User" });
  const group = await insertGroup(db, { name: "Bench", path: "bench", visibility: 0 }, users);
  const projects = (
    await db.query(
      `INSERT INTO projects (name, path, namespace_id, full_path, name_with_namespace, creator_id, visibility_level)
       SELECT 'bench-' || g, 'bench-' || g, $1::int, 'bench/bench-' || g, 'Bench / bench-' || g, 1, 0
       FROM generate_series(1, $2::int) g ORDER BY g RETURNING id`,
      [group, PROJECTS],
    )
  ).rows
    .map((r) => Number(r.id))
    .sort((a, b) => a - b);
  await db.query(
    `INSERT INTO labels (project_id, title, color)
     SELECT p, t, '#428BCA' FROM unnest($1::int[]) AS p CROSS JOIN unnest($2::text[]) AS t`,
    [projects, LABELS],
  );
  // Milestones laid out project by project, so that `ids[project * 5 + k]` is one of the project's own.
  const milestones = (
    await db.query(
      `INSERT INTO milestones (iid, project_id, title)
       SELECT k, p, 'v1.' || k FROM unnest($1::int[]) WITH ORDINALITY AS x(p, n) CROSS JOIN generate_series(1, $2::int) k
       ORDER BY n, k RETURNING id, project_id, iid`,
      [projects, MILESTONES],
    )
  ).rows
    .map((r) => ({ id: Number(r.id), project: projects.indexOf(Number(r.project_id)), iid: Number(r.iid) }))
    .sort((x, y) => x.project - y.project || x.iid - y.iid)
    .map((m) => m.id);
  await db.query(
    `INSERT INTO internal_ids (usage, project_id, last_value) SELECT 'milestones', p, $2::int FROM unnest($1::int[]) AS p`,
    [projects, MILESTONES],
  );
  // 0 = unlimited: the notes run sends more than the default 300 notes a minute per user.
  await db.query(`UPDATE application_settings SET notes_create_limit = 0 WHERE id = 1`);
  return { users, tokens, group, projects, milestones };
}

/** Issues `from`..`to` (global numbers, round-robin over the projects), their assignees and labels. */
async function seedIssues(db, fx, from, to) {
  const before = Number((await db.query(`SELECT COALESCE(max(id), 0) AS id FROM issues`)).rows[0].id);
  // Which labels an issue carries follows from its iid (the same rule fills label_links below).
  const labelRule = (iid) => `(l.title = 'a' AND ${iid} % 2 = 0) OR (l.title = 'b' AND ${iid} % 3 = 0) OR (l.title = 'bug' AND ${iid} % 5 = 0)
       OR (l.title = 'feature' AND ${iid} % 7 = 1) OR (l.title = 'backend' AND ${iid} % 4 = 1) OR (l.title = 'docs' AND ${iid} % 11 = 0)`;
  await db.query(
    `INSERT INTO issues (iid, project_id, title, description, state, author_id, milestone_id, closed_at, closed_by_id, created_at, updated_at, label_ids)
     SELECT x.iid, x.project_id,
            'Bench issue ' || g,
            'Steps to reproduce issue ' || g || E'\\n\\n- [x] triaged\\n- [ ] fixed',
            CASE WHEN g % 4 = 0 THEN 'closed' ELSE 'opened' END,
            ($5::int[])[g % cardinality($5::int[]) + 1],
            CASE WHEN g % 3 = 0 THEN NULL ELSE ($6::int[])[((g - 1) % $3::int) * $7::int + g % $7::int + 1] END,
            CASE WHEN g % 4 = 0 THEN ts + interval '1 hour' END,
            CASE WHEN g % 4 = 0 THEN ($5::int[])[1] END,
            ts, ts + interval '1 hour',
            ARRAY(SELECT l.id FROM labels l WHERE l.project_id = x.project_id AND (${labelRule("x.iid")}) ORDER BY l.id)
     FROM generate_series($1::int, $2::int) g,
          LATERAL (SELECT now() - ($8::int - g) * interval '1 minute' AS ts) t,
          LATERAL (SELECT (g - 1) / $3::int + 1 AS iid, ($4::int[])[(g - 1) % $3::int + 1] AS project_id) x`,
    [from, to, fx.projects.length, fx.projects, fx.users, fx.milestones, MILESTONES, ISSUES],
  );
  await db.query(
    `INSERT INTO issue_assignees (issue_id, user_id)
     SELECT i.id, ($2::int[])[i.iid % cardinality($2::int[]) + 1] FROM issues i WHERE i.id > $1 AND i.iid % 3 <> 0`,
    [before, fx.users],
  );
  // The label_links trigger would update each issue once per link (a million issues: 1.5 million updates):
  // `issues.label_ids` was written with the issues, so the links go in with triggers off for the session.
  await db.query(`SET session_replication_role = replica`);
  await db.query(
    `INSERT INTO label_links (label_id, target_type, target_id)
     SELECT l.id, 'Issue', i.id FROM issues i JOIN labels l ON l.project_id = i.project_id
     WHERE i.id > $1 AND (${labelRule("i.iid")})`,
    [before],
  );
  await db.query(`SET session_replication_role = DEFAULT`);
  await db.query(
    `INSERT INTO internal_ids (usage, project_id, last_value)
     SELECT 'issues', project_id, max(iid) FROM issues GROUP BY project_id
     ON CONFLICT (usage, project_id) WHERE project_id IS NOT NULL DO UPDATE SET last_value = EXCLUDED.last_value`,
  );
  await db.query(`VACUUM ANALYZE`);
}

// ---------------------------------------------------------------------------------------------
// Requests and measurements.

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

function request(base, method, pathname, { token = ROOT_TOKEN, body } = {}) {
  return jsonRequest({ base, agent, token }, method, pathname, body);
}

/** One request, which must answer `expected`: its statement count and size. */
async function sample(base, scenario) {
  const one = scenario.sample();
  const res = await request(base, one.method, one.path, one);
  if (res.status !== scenario.expected)
    throw new Error(`${scenario.name}: ${one.method} ${one.path} answered ${res.status}: ${res.text.slice(0, 300)}`);
  const count = res.headers["x-query-count"];
  return { statements: count === undefined ? null : Number(count), bytes: Buffer.byteLength(res.text), items: itemsOf(res.text) };
}

function itemsOf(text) {
  try {
    const body = JSON.parse(text);
    return Array.isArray(body) ? body.length : null;
  } catch {
    return null;
  }
}

function cannon(base, scenario, duration, connections) {
  return autocannon({ url: base, connections, duration, requests: scenario.requests() });
}

function figures(result) {
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function measure(base, scenario) {
  const first = await sample(base, scenario);
  await cannon(base, scenario, WARMUP, CONNECTIONS);
  const result = figures(await cannon(base, scenario, DURATION, CONNECTIONS));
  log(`${scenario.name}: ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${first.statements} SQL/req`);
  return { ...result, ...first };
}

/** A measurement, or `{ missing }` when the endpoint does not answer as expected (e.g. not built yet). */
async function attempt(fn) {
  try {
    return await fn();
  } catch (error) {
    log(`not measured: ${error.message}`);
    return { missing: error.message };
  }
}

/**
 * First-page latency with one connection per instance (no queueing): sequential requests alternating
 * between the instances for 2 × LATENCY_SECONDS after a one-second warm-up, each timed with hrtime
 * (autocannon's histogram rounds to whole milliseconds).
 */
async function firstPages(pair) {
  const firsts = [];
  for (const { base, scenario } of pair) firsts.push(await sample(base, scenario));
  const timings = pair.map(() => []);
  const once = async (i) => {
    const { base, scenario } = pair[i];
    const one = scenario.sample();
    const t0 = process.hrtime.bigint();
    const res = await request(base, one.method, one.path, one);
    if (res.status !== scenario.expected) throw new Error(`${scenario.name} answered ${res.status}`);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const warmUntil = Date.now() + 1000;
  while (Date.now() < warmUntil) for (const i of pair.keys()) await once(i);
  const until = Date.now() + 2 * LATENCY_SECONDS * 1000;
  while (Date.now() < until) for (const i of pair.keys()) timings[i].push(await once(i));
  return timings.map((list, i) => {
    list.sort((a, b) => a - b);
    const at = (q) => list[Math.min(list.length - 1, Math.floor(q * list.length))];
    const result = { p50: at(0.5), p99: at(0.99), total: list.length, ...firsts[i] };
    log(`first page, 1 connection, ${pair[i].scenario.name} (#${i + 1}): p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms (${result.items} items, ${result.statements} SQL)`);
    return result;
  });
}

/** The measured requests. Lists as root; notes as the bench users in turn, on issues of every project. */
function scenarios(fx, issueCount) {
  const rotate = (list) => {
    let i = 0;
    return () => list[i++ % list.length];
  };
  const perProject = Math.floor(issueCount / fx.projects.length);
  // BENCH_LISTS_AS=member: the lists as the first bench user (a developer of the group) instead of root.
  const listToken = process.env.BENCH_LISTS_AS === "member" ? fx.tokens[0] : ROOT_TOKEN;
  const root = { "PRIVATE-TOKEN": listToken };
  return {
    projectIssues: {
      name: "GET /projects/:id/issues?per_page=20",
      expected: 200,
      sample: () => ({ method: "GET", path: `/api/v4/projects/${fx.projects[0]}/issues?per_page=20`, token: listToken }),
      requests: () => {
        const next = rotate(fx.projects);
        return [{ method: "GET", headers: root, setupRequest: (req) => ({ ...req, path: `/api/v4/projects/${next()}/issues?per_page=20` }) }];
      },
    },
    labelledIssues: {
      name: "GET /issues?scope=all&labels=a,b&state=opened",
      expected: 200,
      sample: () => ({ method: "GET", path: "/api/v4/issues?scope=all&labels=a,b&state=opened", token: listToken }),
      requests: () => [{ method: "GET", headers: root, path: "/api/v4/issues?scope=all&labels=a,b&state=opened" }],
    },
    createNote: {
      name: "POST /projects/:id/issues/:iid/notes",
      expected: 201,
      sample: () => ({
        method: "POST",
        path: `/api/v4/projects/${fx.projects[0]}/issues/1/notes`,
        token: fx.tokens[0],
        body: { body: "Bench note, sampled" },
      }),
      requests: () => {
        let n = 0;
        return [
          {
            method: "POST",
            setupRequest: (req) => {
              n += 1;
              const project = fx.projects[n % fx.projects.length];
              const iid = (Math.floor(n / fx.projects.length) % perProject) + 1;
              return {
                ...req,
                path: `/api/v4/projects/${project}/issues/${iid}/notes`,
                headers: { "PRIVATE-TOKEN": fx.tokens[n % fx.tokens.length], "Content-Type": "application/json" },
                body: JSON.stringify({ body: `Bench note ${n}: looks good to me` }),
              };
            },
          },
        ];
      },
    },
  };
}

// ---------------------------------------------------------------------------------------------



function report(mode, load, latency) {
  console.log("");
  console.log(`Edgeforge issues bench: ${mode}`);
  console.log(`${ISSUES} issues over ${PROJECTS} projects, ${USERS} users; ${CONNECTIONS} connections, ${DURATION} s per endpoint after a ${WARMUP} s warm-up`);
  console.log(machine());
  console.log("");
  table(
    ["endpoint", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors", "requests", "SQL/req", "bytes/resp"],
    load.map((r) => (r.missing ? [r.name, "not measured", "", "", "", "", "", "", ""] : [r.name, fmt(r.rps), fmt(r.p50, 1), fmt(r.p99, 1), r.non2xx, r.errors, r.total, fmt(r.statements), r.bytes])),
  );
  for (const r of load) if (r.missing) console.log(`not measured: ${r.missing}`);
  console.log("");
  console.log(`first page, 1 connection, two instances timed in alternation for ${2 * LATENCY_SECONDS} s: ${SMALL} issues against ${ISSUES} (target: within ${TARGET}x)`);
  table(
    ["endpoint", `p50 @${SMALL}`, `p50 @${ISSUES}`, "ratio", "target", `p99 @${SMALL}`, `p99 @${ISSUES}`, "SQL"],
    latency.map(({ name, small, large }) => {
      if (small.missing || large.missing) return [name, "not measured", "", "", "", "", "", ""];
      const ratio = large.p50 / small.p50;
      return [name, fmt(small.p50, 2), fmt(large.p50, 2), `${fmt(ratio, 2)}x`, ratio <= TARGET ? "met" : "MISSED", fmt(small.p99, 2), fmt(large.p99, 2), `${fmt(small.statements)}/${fmt(large.statements)}`];
    }),
  );
}

/** A database of its own for one instance: PostgreSQL (created, dropped at the end) or PGlite files. */
async function prepareInstance(label, serverUrl, dataDir, issueCount) {
  let target;
  if (serverUrl) {
    const database = await createBenchDatabase(serverUrl, "edgeforge_bench_issues_", { keep: process.env.BENCH_KEEP_DATABASE === "1" });
    target = { url: database.url, name: database.name };
    await migratePostgres(database.url);
  } else {
    target = { pgliteDir: path.join(dataDir, "pglite") };
    await mkdir(target.pgliteDir, { recursive: true });
    await withDatabase(target, (db) => migratePglite(db));
  }
  const seconds = Date.now();
  const fx = await withDatabase(target, async (db) => {
    await bootstrap(db, { initialRootToken: ROOT_TOKEN });
    const fixtures = await seedFixtures(db);
    await seedIssues(db, fixtures, 1, issueCount);
    return fixtures;
  });
  log(`${label}: seeded ${USERS} users, ${PROJECTS} projects and ${issueCount} issues in ${((Date.now() - seconds) / 1000).toFixed(1)} s${target.name ? ` (database ${target.name})` : ""}`);
  return { label, target, fx, dataDir, issueCount, server: null };
}

async function startInstance(instance) {
  const server = await startServer({ dataDir: instance.dataDir, rootToken: ROOT_TOKEN, databaseUrl: instance.target.url, timeoutMs: 90_000 });
  const stop = () => server.stop(20_000);
  cleanups.push(stop);
  instance.server = server;
  instance.stop = async () => {
    await stop();
    cleanups.splice(cleanups.indexOf(stop), 1);
  };
  log(`${instance.label}: Edgeforge on ${server.apiUrl}`);
}

async function main() {
  const serverUrl = process.env.DATABASE_URL || "";
  const tmp = await mkdtemp(path.join(os.tmpdir(), "edgeforge-bench-issues-"));
  cleanups.push(() => rm(tmp, { recursive: true, force: true }));
  // scripts/start.mjs adds `--var QUERY_COUNT_HEADER:1` with this: responses carry X-Query-Count.
  process.env.EDGEFORGE_QUERY_COUNT = "1";
  if (serverUrl) assertLoopback(serverUrl, "DATABASE_URL");
  const mode = serverUrl ? `PostgreSQL at ${new URL(serverUrl).host}` : "embedded PGlite (one Postgres session per instance)";
  log(`database: ${mode}`);

  // Two instances side by side, 1,000 and 100,000 issues: their first pages are timed in alternation, so
  // whatever else loads the machine weighs on both alike.
  const small = await prepareInstance(`${SMALL} issues`, serverUrl, path.join(tmp, "small"), SMALL);
  const large = await prepareInstance(`${ISSUES} issues`, serverUrl, path.join(tmp, "large"), ISSUES);
  await startInstance(small);
  await startInstance(large);

  const latency = [];
  for (const key of ["projectIssues", "labelledIssues"]) {
    const pair = [small, large].map((instance) => ({ base: instance.server.host, scenario: scenarios(instance.fx, instance.issueCount)[key] }));
    const result = await attempt(() => firstPages(pair));
    latency.push({ name: pair[0].scenario.name, small: result.missing ? result : result[0], large: result.missing ? result : result[1] });
  }
  await small.stop();

  const load = [];
  const measured = scenarios(large.fx, ISSUES);
  for (const key of ["projectIssues", "labelledIssues", "createNote"])
    load.push({ name: measured[key].name, ...(await attempt(() => measure(large.server.host, measured[key]))) });

  report(mode, load, latency);
  await finish();
  agent.destroy();
  log("done");
  process.exit(0);
}

main().catch(fail);
