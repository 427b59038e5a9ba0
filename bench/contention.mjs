#!/usr/bin/env node
// `npm run bench:contention`: writes that contend for the same rows, Edgeforge as `npm start` runs it
// (scripts/start.mjs: the Worker on workerd through Miniflare, the proxy, the database), with the
// issue-counting triggers of migration 0040_issue_counts and without them.
//
//   database:  PostgreSQL only (DATABASE_URL, default 127.0.0.1:5432; loopback only; embedded PGlite is one
//              session, where writers queue and never contend): a fresh database
//              `edgeforge_bench_contention_<rand>`, dropped at the end.
//   seed:      straight SQL before the server starts: BENCH_CLIENTS (32) users with tokens, developers of one
//              project with 4 labels (`a`, `b`, `c`, `d`) and one issue; `issues_create_limit` and
//              `notes_create_limit` set to 0 (unlimited, as an admin may: the run posts more than the
//              default 300 a minute per user).
//   measure:   autocannon, BENCH_CLIENTS (32) connections (each request as the next user), BENCH_DURATION (10) s
//              after a 2 s warm-up: `POST /projects/:id/issues` with the shared labels `a,b` (every new issue
//              counts in the same issue_counts row, and takes the project's next iid), and
//              `POST /projects/:id/issues/:iid/notes` on the one issue (every note bumps its notes count).
//              Each twice, BENCH_ROUNDS (2) rounds, the triggers enabled and then disabled in each round
//              (`ALTER TABLE issues DISABLE TRIGGER` on the bench database only; re-enabled after), so that
//              other work on the machine weighs on both alike.
//   report:    req/s, p50, p99, non-2xx, errors, SQL statements per request (X-Query-Count) and retries (the
//              sum of X-Retry-Count: statements and transactions kernel/db.ts ran again after a deadlock or a
//              serialization failure; a request whose retries ran out answers 500 and counts as non-2xx), per
//              round and in all; the triggers' cost (1 - req/s with / req/s without; target: at most 15%) and
//              that no request failed. Both headers are sent with EDGEFORGE_QUERY_COUNT=1 (QUERY_COUNT_HEADER).
//   env:       BENCH_CLIENTS, BENCH_DURATION, BENCH_ROUNDS override the figures above.
//
// Everything listens on and targets 127.0.0.1 only; the run stops itself after 5 minutes at most; everything
// started is stopped and temporary files and databases removed.
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { bootstrap, generateToken, sha256Hex } from "../scripts/bootstrap.mjs";
import { startServer } from "../test/e2e/server.mjs";
import { benchRun, loadavg, withDatabase } from "./support.mjs";

const CLIENTS = Number(process.env.BENCH_CLIENTS || 32);
const DURATION = Number(process.env.BENCH_DURATION || 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 2);
const WARMUP = 2;
const TARGET_COST = 0.15;
const TRIGGERS = ["issues_counts_insert", "issues_counts_update", "issues_counts_delete", "issues_counts_truncate"];
const DEADLINE_MS = 295_000;
const ROOT_TOKEN = `glpat-bench${randomBytes(10).toString("hex")}`;

const { log, cleanups, fail, finish, machine, prepareDatabase } = benchRun({ label: "bench:contention", deadlineMs: DEADLINE_MS });

async function seed(db) {
  const tokens = Array.from({ length: CLIENTS }, () => generateToken());
  const users = (
    await db.query(
      `INSERT INTO users (username, name, email, state, confirmed_at)
       SELECT 'writer_' || g, 'Writer ' || g, 'writer_' || g || '@example.com', 'active', now()
       FROM generate_series(1, $1::int) g RETURNING id`,
      [CLIENTS],
    )
  ).rows.map((r) => Number(r.id));
  await db.query(
    `INSERT INTO namespaces (type, name, path, full_path, full_name, owner_id, visibility_level)
     SELECT 'User', u.name, u.username, u.username, u.name, u.id, 20 FROM users u WHERE u.id = ANY($1::int[])`,
    [users],
  );
  await db.query(
    `INSERT INTO personal_access_tokens (user_id, name, token_digest, scopes)
     SELECT u, 'bench', d, ARRAY['api'] FROM unnest($1::int[], $2::text[]) AS t(u, d)`,
    [users, tokens.map((t) => sha256Hex(t))],
  );
  const project = Number(
    (
      await db.query(
        `INSERT INTO projects (name, path, namespace_id, full_path, name_with_namespace, creator_id, visibility_level)
         SELECT 'contention', 'contention', n.id, 'root/contention', 'Administrator / contention', 1, 0
         FROM namespaces n WHERE n.type = 'User' AND n.path = 'root' RETURNING id`,
      )
    ).rows[0].id,
  );
  await db.query(
    `INSERT INTO members (source_type, source_id, user_id, access_level)
     SELECT 'Project', $1::int, u, CASE WHEN u = 1 THEN 50 ELSE 30 END FROM unnest(array_prepend(1, $2::int[])) AS u`,
    [project, users],
  );
  await db.query(`INSERT INTO labels (project_id, title, color) SELECT $1::int, t, '#428BCA' FROM unnest(ARRAY['a','b','c','d']) AS t`, [project]);
  await db.query(
    `INSERT INTO issues (iid, project_id, title, state, author_id) VALUES (1, $1, 'The discussed issue', 'opened', 1)`,
    [project],
  );
  await db.query(`INSERT INTO internal_ids (usage, project_id, last_value) VALUES ('issues', $1, 1)`, [project]);
  // 0 = unlimited: the run creates far more than 300 issues and notes a minute per user.
  await db.query(`UPDATE application_settings SET issues_create_limit = 0, notes_create_limit = 0 WHERE id = 1`);
  await db.query("VACUUM ANALYZE");
  return { project, tokens };
}

/** Enables or disables the issue_counts triggers of migration 0040 (this bench's database only). */
async function setTriggers(target, enabled) {
  await withDatabase(target, async (db) => {
    for (const name of TRIGGERS) await db.query(`ALTER TABLE issues ${enabled ? "ENABLE" : "DISABLE"} TRIGGER ${name}`);
  });
}

function scenarios(fx) {
  const json = (n, body) => ({ "PRIVATE-TOKEN": fx.tokens[n % fx.tokens.length], "Content-Type": "application/json", body });
  return [
    {
      name: "POST /projects/:id/issues (labels a,b)",
      requests: () => {
        let n = 0;
        return [
          {
            method: "POST",
            setupRequest: (req) => {
              n += 1;
              const { body, ...headers } = json(n, JSON.stringify({ title: `Contended issue ${n}`, labels: "a,b", description: "Created under contention" }));
              return { ...req, path: `/api/v4/projects/${fx.project}/issues`, headers, body };
            },
          },
        ];
      },
    },
    {
      name: "POST /projects/:id/issues/:iid/notes (one issue)",
      requests: () => {
        let n = 0;
        return [
          {
            method: "POST",
            setupRequest: (req) => {
              n += 1;
              const { body, ...headers } = json(n, JSON.stringify({ body: `Note ${n} under contention` }));
              return { ...req, path: `/api/v4/projects/${fx.project}/issues/1/notes`, headers, body };
            },
          },
        ];
      },
    },
  ];
}

/** A response header from autocannon's `onResponse` headers, whatever the case of its name. */
function header(headers, name) {
  for (const key of Object.keys(headers ?? {})) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

/** One measured run: autocannon's figures plus the sums of X-Query-Count and X-Retry-Count over every response. */
async function measure(base, scenario, duration) {
  let counted = 0;
  let statements = 0;
  let retries = 0;
  let retried = 0;
  const statuses = new Map();
  const requests = scenario.requests().map((r) => ({
    ...r,
    onResponse: (status, body, context, headers) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const q = Number(header(headers, "x-query-count"));
      const t = Number(header(headers, "x-retry-count"));
      if (!Number.isNaN(q)) {
        counted += 1;
        statements += q;
      }
      if (!Number.isNaN(t)) {
        retries += t;
        if (t > 0) retried += 1;
      }
    },
  }));
  const result = await autocannon({ url: base, connections: CLIENTS, duration, requests });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statements: counted ? statements / counted : NaN,
    retries,
    retried,
    statuses: [...statuses.entries()].sort().map(([s, n]) => `${s}×${n}`).join(" "),
  };
}

function fmt(n, digits = 0) {
  return n === null || n === undefined || Number.isNaN(n) ? "-" : Number(n).toFixed(digits);
}

function table(header, rows) {
  const lines = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
  const render = (l) => l.map((cell, i) => (i < 2 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join("  ");
  console.log(render(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const l of rows) console.log(render(l));
}

async function main() {
  process.env.EDGEFORGE_QUERY_COUNT = "1";
  process.env.DATABASE_URL ||= "postgres://postgres@127.0.0.1:5432/postgres";
  const { dataDir, target, mode } = await prepareDatabase("edgeforge_bench_contention_");
  log(`database: ${mode}`);
  const fx = await withDatabase(target, async (db) => {
    await bootstrap(db, { initialRootToken: ROOT_TOKEN });
    return seed(db);
  });
  const server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: target.url, timeoutMs: 90_000 });
  cleanups.push(() => server.stop(20_000));
  log(`Edgeforge: ${server.apiUrl}`);
  // Whatever happens, the database is left with its triggers on (it is dropped at the end anyway unless kept).
  cleanups.push(() => setTriggers(target, true));

  const list = scenarios(fx);
  const runs = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const triggers of [true, false]) {
      await setTriggers(target, triggers);
      for (const scenario of list) {
        await measure(server.host, scenario, WARMUP);
        const load = loadavg();
        const r = await measure(server.host, scenario, DURATION);
        runs.push({ round, triggers, name: scenario.name, load, ...r });
        log(
          `round ${round}, triggers ${triggers ? "on " : "off"}: ${scenario.name}: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ` +
            `${r.retries} retries (${r.retried} requests), ${fmt(r.statements, 1)} SQL/req, ${r.statuses} (load ${load})`,
        );
      }
    }
  }

  console.log("");
  console.log(`Edgeforge contention bench: ${mode}`);
  console.log(`${CLIENTS} clients (connections, each request as the next of ${CLIENTS} developers), ${DURATION} s per run after a ${WARMUP} s warm-up, ${ROUNDS} rounds, triggers on then off in each`);
  console.log(machine());
  console.log("");
  table(
    ["endpoint", "triggers", "round", "req/s", "p50 ms", "p99 ms", "requests", "non-2xx", "errors", "retries", "retried req", "SQL/req", "load (1 5 15 min)"],
    runs.map((r) => [r.name, r.triggers ? "on" : "off", r.round, fmt(r.rps), fmt(r.p50, 1), fmt(r.p99, 1), r.total, r.non2xx, r.errors, r.retries, r.retried, fmt(r.statements, 1), r.load]),
  );
  console.log("");
  let failed = 0;
  for (const scenario of list) {
    const of = (on) => runs.filter((r) => r.name === scenario.name && r.triggers === on);
    const sum = (rs, key) => rs.reduce((n, r) => n + r[key], 0);
    const on = of(true);
    const off = of(false);
    const rpsOn = sum(on, "total") / (on.length * DURATION);
    const rpsOff = sum(off, "total") / (off.length * DURATION);
    const cost = 1 - rpsOn / rpsOff;
    const bad = sum([...on, ...off], "non2xx") + sum([...on, ...off], "errors");
    failed += bad;
    console.log(
      `${scenario.name}: ${fmt(rpsOn, 1)} req/s with the triggers, ${fmt(rpsOff, 1)} without: they cost ${fmt(100 * cost, 1)}% ` +
        `(target <= ${TARGET_COST * 100}%: ${cost <= TARGET_COST ? "met" : "MISSED"}); p99 ${Math.max(...on.map((r) => r.p99))} / ${Math.max(...off.map((r) => r.p99))} ms (worst round); ` +
        `retries ${sum(on, "retries")} / ${sum(off, "retries")}; failed requests ${bad}`,
    );
  }
  console.log(`no request may fail (a retry that runs out answers 500): ${failed === 0 ? "met" : `MISSED (${failed} failed)`}`);
  console.log("req/s in the summary: requests over the measured seconds of every round; 1 - with/without is the triggers' cost.");
  await finish();
  log("done");
  process.exit(0);
}

main().catch(fail);
