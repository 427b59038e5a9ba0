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
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import autocannon from "autocannon";
import { bootstrap } from "../scripts/bootstrap.mjs";
import { startServer } from "../test/e2e/server.mjs";
import { benchRun, jsonRequest, withDatabase } from "./support.mjs";

const COMMITS = Number(process.env.BENCH_COMMITS || 10_000);
const DURATION = Number(process.env.BENCH_DURATION || 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 10);
const WARMUP = 2;
const DIRS = 10;
const FILES_PER_DIR = 10;
const LINES = 30;
const SIDE_EVERY = 500;
const WRITE_BRANCHES = 3 * CONNECTIONS;
const PATH_FILTER = "src/dir3/file7.txt";
const DEADLINE_MS = 235_000; // under 4 minutes in all
const ROOT_TOKEN = `glpat-bench${randomBytes(10).toString("hex")}`;

const { log, cleanups, fail, finish, machine, prepareDatabase } = benchRun({ label: "bench:commits", deadlineMs: DEADLINE_MS });

// ---------------------------------------------------------------------------------------------
// The history, built by git.

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", LC_ALL: "C", TZ: "UTC" };

function git(dir, args, input) {
  return execFileSync("git", ["-c", "core.commitGraph=false", "-c", "gc.auto=0", ...args], { cwd: dir, env: GIT_ENV, input, maxBuffer: 1024 * 1024 * 1024 });
}

const fileName = (d, f) => `src/dir${d}/file${f}.txt`;
const initialContent = (p) => Array.from({ length: LINES }, (_, i) => `${p} line ${i}`).join("\n") + "\n";

/** A fast-import stream of `count` commits; returns the stream and the number of commits in it. */
function historyStream(count) {
  const TZS = ["+0000", "+0200", "-0700", "+0530"];
  const chunks = [];
  const files = new Map();
  let mark = 0;
  let made = 0;
  let time = 1_600_000_000;
  let mainTip = null;
  // mulberry32: a small seeded PRNG (an LCG's low bits would touch only a few of the files).
  let seed = 42;
  const random = (n) => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
  const data = (text) => {
    const bytes = Buffer.from(text);
    chunks.push(Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from("\n"));
  };
  const edit = (tree, p, n) => {
    const lines = tree.get(p).split("\n");
    lines[n % LINES] = `${p} edited by commit ${n}`;
    tree.set(p, lines.join("\n"));
  };
  const commit = (ref, parents, changes, message) => {
    mark += 1;
    made += 1;
    time += 60;
    const tz = TZS[made % TZS.length];
    chunks.push(Buffer.from(`commit ${ref}\nmark :${mark}\nauthor Bench Author ${made % 7} <author${made % 7}@example.com> ${time} ${tz}\ncommitter Bench Committer <committer@example.com> ${time} +0000\n`));
    data(message);
    if (parents[0]) chunks.push(Buffer.from(`from :${parents[0]}\n`));
    for (const p of parents.slice(1)) chunks.push(Buffer.from(`merge :${p}\n`));
    for (const [p, content] of changes) {
      chunks.push(Buffer.from(`M 100644 inline ${p}\n`));
      data(content);
    }
    return mark;
  };

  files.set("README.md", "# Bench\n");
  for (let d = 0; d < DIRS; d++) for (let f = 0; f < FILES_PER_DIR; f++) files.set(fileName(d, f), initialContent(fileName(d, f)));
  mainTip = commit("refs/heads/main", [], [...files.entries()], "Initial commit\n");
  while (made < count) {
    if (made % SIDE_EVERY === 0 && count - made >= 4) {
      // A side branch of three commits, merged back with a merge commit.
      const side = new Map(files);
      let sideTip = mainTip;
      const touched = new Set();
      for (let k = 0; k < 3; k++) {
        const p = fileName(random(DIRS), random(FILES_PER_DIR));
        edit(side, p, made);
        touched.add(p);
        sideTip = commit("refs/heads/side", [sideTip], [[p, side.get(p)]], `Side work ${made}\n`);
      }
      for (const p of touched) files.set(p, side.get(p));
      mainTip = commit("refs/heads/main", [mainTip, sideTip], [...touched].map((p) => [p, files.get(p)]), `Merge branch 'side' at ${made}\n`);
      continue;
    }
    const p = made % 50 === 0 ? "README.md" : fileName(random(DIRS), random(FILES_PER_DIR));
    if (p === "README.md") files.set(p, `${files.get(p)}Release ${made}\n`);
    else edit(files, p, made);
    mainTip = commit("refs/heads/main", [mainTip], [[p, files.get(p)]], `Change ${made}: edit ${p}\n\nA body line for commit ${made}.\n`);
  }
  return { stream: Buffer.concat(chunks), commits: made };
}

/** Every object of the repository: `{ oid, type, body }`. */
function exportObjects(dir) {
  const out = git(dir, ["cat-file", "--batch-all-objects", "--batch"]);
  const objects = [];
  let i = 0;
  while (i < out.length) {
    const nl = out.indexOf(10, i);
    const [oid, type, size] = out.subarray(i, nl).toString().split(" ");
    const start = nl + 1;
    objects.push({ oid, type, body: out.subarray(start, start + Number(size)) });
    i = start + Number(size) + 1;
  }
  return objects;
}

function parseIdent(line) {
  const m = /^(?:author|committer) (.*) <(.*)> (\d+) ([+-])(\d\d)(\d\d)$/.exec(line);
  return { name: m[1], email: m[2], time: Number(m[3]), tz: (m[4] === "-" ? -1 : 1) * (Number(m[5]) * 60 + Number(m[6])) };
}

function parseCommit(body) {
  const text = body.toString("utf8");
  const split = text.indexOf("\n\n");
  const headers = text.slice(0, split).split("\n");
  const parents = [];
  let tree;
  let author;
  let committer;
  for (const h of headers) {
    if (h.startsWith("tree ")) tree = h.slice(5);
    else if (h.startsWith("parent ")) parents.push(h.slice(7));
    else if (h.startsWith("author ")) author = parseIdent(h);
    else if (h.startsWith("committer ")) committer = parseIdent(h);
  }
  return { tree, parents, author, committer, message: text.slice(split + 2) };
}

/** The changed paths of every commit against its first parent, as the commit index keeps them. */
function commitChanges(dir) {
  const out = git(dir, ["log", "--all", "--no-renames", "--diff-merges=first-parent", "--root", "--raw", "--numstat", "--no-abbrev", "--format=%x01%H"]).toString();
  const byCommit = new Map();
  for (const record of out.split("\x01").filter(Boolean)) {
    const lines = record.split("\n");
    const oid = lines[0].trim();
    const changes = new Map();
    for (const line of lines.slice(1)) {
      if (line.startsWith(":")) {
        const [meta, p] = line.slice(1).split("\t");
        const [oldMode, newMode, oldOid, newOid, status] = meta.split(" ");
        const zero = /^0+$/;
        changes.set(p, {
          path: p,
          status,
          oldMode: zero.test(oldMode) ? null : parseInt(oldMode, 8),
          newMode: zero.test(newMode) ? null : parseInt(newMode, 8),
          oldOid: zero.test(oldOid) ? null : oldOid,
          newOid: zero.test(newOid) ? null : newOid,
          additions: 0,
          deletions: 0,
          binary: false,
        });
      } else if (/^(\d+|-)\t(\d+|-)\t/.test(line)) {
        const [a, d, p] = line.split("\t");
        const change = changes.get(p);
        if (a === "-") change.binary = true;
        else {
          change.additions = Number(a);
          change.deletions = Number(d);
        }
      }
    }
    byCommit.set(oid, [...changes.values()]);
  }
  return byCommit;
}

function buildRepository() {
  const dir = execFileSync("mktemp", ["-d", path.join(os.tmpdir(), "edgeforge-bench-git-XXXXXX")]).toString().trim();
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  git(dir, ["init", "--quiet", "--bare", "-b", "main", "."]);
  let t = Date.now();
  const step = (what) => {
    log(`  ${what} ${((Date.now() - t) / 1000).toFixed(1)} s`);
    t = Date.now();
  };
  const { stream, commits } = historyStream(COMMITS);
  git(dir, ["fast-import", "--quiet"], stream);
  step("git fast-import");
  const objects = exportObjects(dir);
  step("git cat-file --batch-all-objects");
  const changes = commitChanges(dir);
  step("git log --raw --numstat");
  const refs = git(dir, ["for-each-ref", "--format=%(refname) %(objectname)"]).toString().trim().split("\n").map((l) => l.split(" "));
  // What the two measured lists must answer: `git log`'s first page.
  const expected = {
    firstPage: git(dir, ["log", "--format=%H", "--max-count=20", "main"]).toString().trim().split("\n"),
    pathPage: git(dir, ["--literal-pathspecs", "log", "--format=%H", "--max-count=20", "main", "--", PATH_FILTER]).toString().trim().split("\n"),
  };
  return { objects, changes, refs: new Map(refs), commits, expected };
}

// ---------------------------------------------------------------------------------------------
// Seeding, in SQL: the rows the git core writes (db/schema/repository.ts), and the project.

const TYPE_CODE = { commit: 1, tree: 2, blob: 3, tag: 4 };
const CHUNK = 2000;

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

  for (let i = 0; i < repo.objects.length; i += CHUNK) {
    const part = repo.objects.slice(i, i + CHUNK);
    await db.query(
      `INSERT INTO git_objects (pool_id, oid, type, size, zdata)
       SELECT $1::int, decode(o, 'hex'), t, s, decode(z, 'hex') FROM unnest($2::text[], $3::int[], $4::int[], $5::text[]) AS u(o, t, s, z)
       ON CONFLICT DO NOTHING`,
      [project, part.map((o) => o.oid), part.map((o) => TYPE_CODE[o.type]), part.map((o) => o.body.length), part.map((o) => zlib.deflateSync(o.body, { level: 6 }).toString("hex"))],
    );
  }

  const commits = new Map();
  for (const o of repo.objects) if (o.type === "commit") commits.set(o.oid, parseCommit(o.body));
  const generation = new Map();
  const generationOf = (oid) => {
    const stack = [oid];
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (generation.has(top)) {
        stack.pop();
        continue;
      }
      const pending = commits.get(top).parents.filter((p) => !generation.has(p));
      if (pending.length) stack.push(...pending);
      else {
        generation.set(top, 1 + Math.max(0, ...commits.get(top).parents.map((p) => generation.get(p))));
        stack.pop();
      }
    }
    return generation.get(oid);
  };
  const rows = [...commits.entries()].map(([oid, c]) => {
    const changes = repo.changes.get(oid) ?? [];
    const text = changes.filter((ch) => !ch.binary);
    return {
      oid,
      c,
      generation: generationOf(oid),
      additions: text.reduce((n, ch) => n + ch.additions, 0),
      deletions: text.reduce((n, ch) => n + ch.deletions, 0),
      files: changes.length,
    };
  });
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK);
    const col = (f) => part.map(f);
    await db.query(
      `INSERT INTO git_commits (pool_id, oid, tree, parents, generation, author_name, author_email, authored_at, author_tz,
                                committer_name, committer_email, committed_at, committer_tz, message, additions, deletions, files_changed, changes_indexed)
       SELECT $1::int, oid, tree, string_to_array(parents, ','), gen, an, ae, to_timestamp(at), atz, cn, ce, to_timestamp(ct), ctz, msg, adds, dels, files, true
       FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::bigint[], $9::int[], $10::text[], $11::text[],
                   $12::bigint[], $13::int[], $14::text[], $15::int[], $16::int[], $17::int[])
         AS u(oid, tree, parents, gen, an, ae, at, atz, cn, ce, ct, ctz, msg, adds, dels, files)`,
      [
        project,
        col((r) => r.oid),
        col((r) => r.c.tree),
        col((r) => r.c.parents.join(",")),
        col((r) => r.generation),
        col((r) => r.c.author.name),
        col((r) => r.c.author.email),
        col((r) => r.c.author.time),
        col((r) => r.c.author.tz),
        col((r) => r.c.committer.name),
        col((r) => r.c.committer.email),
        col((r) => r.c.committer.time),
        col((r) => r.c.committer.tz),
        col((r) => r.c.message),
        col((r) => r.additions),
        col((r) => r.deletions),
        col((r) => r.files),
      ],
    );
  }

  const changeRows = [...repo.changes.entries()].flatMap(([oid, list]) => list.map((ch) => ({ oid, ...ch })));
  for (let i = 0; i < changeRows.length; i += CHUNK) {
    const part = changeRows.slice(i, i + CHUNK);
    const col = (f) => part.map(f);
    await db.query(
      `INSERT INTO git_commit_changes (pool_id, commit_oid, path, old_path, status, old_mode, new_mode, old_oid, new_oid, additions, deletions, "binary")
       SELECT $1::int, c, p, NULL, s, om, nm, oo, no, a, d, b
       FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::text[], $8::text[], $9::int[], $10::int[], $11::bool[])
         AS u(c, p, s, om, nm, oo, no, a, d, b)`,
      [
        project,
        col((r) => r.oid),
        col((r) => r.path),
        col((r) => r.status),
        col((r) => r.oldMode),
        col((r) => r.newMode),
        col((r) => r.oldOid),
        col((r) => r.newOid),
        col((r) => r.additions),
        col((r) => r.deletions),
        col((r) => r.binary),
      ],
    );
  }

  const main = repo.refs.get("refs/heads/main");
  const refs = [...repo.refs.entries(), ...Array.from({ length: WRITE_BRANCHES }, (_, n) => [`refs/heads/bench-${n}`, main]), ["refs/heads/shared", main]];
  await db.query(`INSERT INTO git_refs (project_id, name, target) SELECT $1::int, n, t FROM unnest($2::text[], $3::text[]) AS u(n, t)`, [
    project,
    refs.map((r) => r[0]),
    refs.map((r) => r[1]),
  ]);
  await db.query("ANALYZE");
  return { project, commits: rows.length, objects: repo.objects.length, changes: changeRows.length, expected: repo.expected };
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
  const repo = buildRepository();
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
