// YAML fidelity: every case of test/pipelines/ci_corpus/ is run through Edgeforge (started as
// `npm start` does; `POST /projects/:id/pipeline`, then `GET …/pipelines/:id/jobs`) and through
// gitlab-ci-local (the npm package, an independent parser, as a CLI with `--list-csv-all` and `--list-json` in a
// temporary git repository holding the case's files), and the jobs, stages and needs must agree.
//
// A case is a folder: the repository's files (`.gitlab-ci.yml`, included files, files for `exists`) and
// `case.yml`:
//   description   what the case covers
//   ref, tag      the pipeline's ref (default `main`; `tag: true` makes it a tag)
//   variables     the pipeline variables of `POST /pipeline` (`--variable` for gitlab-ci-local)
//   expected      only where gitlab-ci-local and GitLab's documentation disagree: what GitLab documents,
//                 asserted against Edgeforge, with `reason` citing the documentation; the test also checks
//                 that gitlab-ci-local still answers differently, so a stale note fails
//   error         Edgeforge's 400 message (GitLab's `yaml_errors` text); gitlab-ci-local must refuse the file
//                 too (it then runs with its JSON schema validation), unless `gitlabCiLocalAccepts: true`,
//                 with `reason` saying why (keywords this server does not build, checks it does not make)
//
// Comparison: the jobs created (name, stage, when, allow_failure, needs) and the stages that have jobs, in
// order. The REST API shows no `when` or `needs` (GitLab shows them only through GraphQL), so those two are
// read from the job rows (`ci_builds`) of the database the server runs on.
//
// Both sides see a pipeline of source `api` on a branch without a push diff, so `rules:changes` and
// `only:changes` are true (GitLab: "changes always evaluates to true" for pipelines without a push event, in
// doc/ci/jobs/job_control.md); gitlab-ci-local runs with `--no-evaluate-rule-changes` to match.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { parse as parseYaml } from "yaml";
import { startServer, apiCall } from "./server.mjs";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const corpusDir = path.join(root, "test/pipelines/ci_corpus");
const gclBin = path.join(root, "node_modules/gitlab-ci-local/dist/index.js");
const ROOT_TOKEN = `glpat-corpus${randomBytes(10).toString("hex")}`;

const caseNames = (await readdir(corpusDir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();

/** Runs `fn` over `items`, `limit` at a time, keeping order. */
async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

function answers(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** The case's repository files (everything but case.yml), as `{ path: content }`. */
async function caseFiles(dir, prefix = "") {
  const files = {};
  for (const entry of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(files, await caseFiles(dir, rel));
    else if (rel !== "case.yml") files[rel] = await readFile(path.join(dir, rel), "utf8");
  }
  return files;
}

async function loadCase(name) {
  const dir = path.join(corpusDir, name);
  const meta = parseYaml(await readFile(path.join(dir, "case.yml"), "utf8")) ?? {};
  return { name, dir, meta, files: await caseFiles(dir) };
}

/** `{ stages, jobs }` with jobs sorted by name and defaults filled in, or `{ error }`. */
function normalise({ jobs, stageOrder }) {
  const list = jobs
    .map((j) => ({ name: j.name, stage: j.stage, when: j.when ?? "on_success", allow_failure: j.allow_failure ?? false, needs: j.needs ?? null }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const used = new Set(list.map((j) => j.stage));
  return { stages: stageOrder.filter((s) => used.has(s)), jobs: list };
}

/** `expected:` of case.yml (jobs as a map with defaults) in the shape of `normalise`. */
function expectedOf(expected) {
  if (expected.error !== undefined) return { error: expected.error };
  const jobs = Object.entries(expected.jobs ?? {}).map(([name, j]) => ({ name, ...(j ?? {}) }));
  return normalise({ jobs, stageOrder: expected.stages });
}

// ---- gitlab-ci-local --------------------------------------------------------------------------------

async function gitlabCiLocal(testCase) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-gcl-"));
  try {
    await cp(testCase.dir, dir, { recursive: true, filter: (src) => path.basename(src) !== "case.yml" });
    const ref = testCase.meta.ref ?? "main";
    const git = (...args) => run("git", args, { cwd: dir, env: { ...process.env, GIT_AUTHOR_NAME: "c", GIT_AUTHOR_EMAIL: "c@example.com", GIT_COMMITTER_NAME: "c", GIT_COMMITTER_EMAIL: "c@example.com" } });
    await git("init", "-q", "-b", "main");
    await git("add", "-A");
    await git("commit", "-q", "-m", "corpus");
    if (!testCase.meta.tag && ref !== "main") await git("checkout", "-q", "-b", ref);
    await git("remote", "add", "origin", "https://gitlab.example.com/corpus/project.git");
    // gitlab-ci-local always sets CI_COMMIT_BRANCH to the checked-out branch and never CI_COMMIT_TAG, and
    // its pipeline source is `push`: the pipeline's facts are given as variables.
    const vars = { CI_PIPELINE_SOURCE: "api", ...(testCase.meta.tag ? { CI_COMMIT_TAG: ref, CI_COMMIT_REF_NAME: ref } : {}), ...(testCase.meta.variables ?? {}) };
    const args = [
      "--no-evaluate-rule-changes", "--no-color",
      "--ignore-predefined-vars", Object.keys(vars).join(","),
      ...Object.entries(vars).flatMap(([k, v]) => ["--variable", `${k}=${v}`]),
      ...(testCase.meta.tag ? ["--unset-variable", "CI_COMMIT_BRANCH"] : []),
    ];
    // Schema validation costs a second per run: only where the file is expected to be refused.
    if (testCase.meta.error === undefined) args.push("--no-json-schema-validation");
    const gcl = (flag) =>
      run(process.execPath, [gclBin, flag, ...args], { cwd: dir, env: { ...process.env, HOME: dir }, maxBuffer: 16 * 1024 * 1024, timeout: 60_000 });
    // Loading gitlab-ci-local costs most of a run, so a case gets one run (--list-csv-all: jobs sorted by
    // stage, with when, allow_failure and needs, `[]` for none and nothing for `needs: []`) and a second
    // (--list-json) only when it uses `needs`, since the CSV does not say `optional`.
    const usesNeeds = Object.values(testCase.files).some((text) => /\bneeds\b/.test(text));
    let csv;
    let listed;
    try {
      [csv, listed] = await Promise.all([gcl("--list-csv-all"), usesNeeds ? gcl("--list-json") : null]);
    } catch (error) {
      return { error: true, output: `${error.stdout ?? ""}${error.stderr ?? ""}` };
    }
    const lines = csv.stdout.split("\n");
    const header = lines.indexOf("name;description;stage;when;allowFailure;needs");
    assert.ok(header >= 0, csv.stdout);
    const jobs = [];
    for (const line of lines.slice(header + 1)) {
      const m = /^(.*);"(.*)";([^;]*);([^;]*);(true|false);(.*)$/.exec(line);
      if (m && m[4] !== "never") jobs.push({ name: m[1], stage: m[3], when: m[4], allow_failure: m[5] === "true", needs: m[6] === "[]" ? null : m[6] === "" ? [] : m[6].split(",").map((job) => ({ job, optional: false })) });
    }
    if (listed) {
      const needs = new Map(JSON.parse(listed.stdout.slice(listed.stdout.indexOf("\n[") + 1)).map((j) => [j.name, j.needs ?? null]));
      for (const job of jobs) job.needs = needs.get(job.name) ?? null;
    }
    const created = new Set(jobs.map((j) => j.name));
    return normalise({
      stageOrder: [...new Set(jobs.map((j) => j.stage))],
      jobs: jobs.map((j) => ({
        ...j,
        // needs:optional on a job that is not created is dropped (doc/ci/yaml/index.md#needsoptional).
        needs: j.needs ? j.needs.filter((n) => created.has(n.job) || !n.optional).map((n) => n.job).sort() : null,
      })),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ---- Edgeforge --------------------------------------------------------------------------------------

let server;
let db;
let dataDir;
const cleanups = [];

const call = (method, route, body) => apiCall(server.host, ROOT_TOKEN, method, route, body);

async function edgeforge(testCase) {
  const project = await call("POST", "/projects", { name: `corpus-${testCase.name}-${randomBytes(3).toString("hex")}` });
  assert.equal(project.status, 201, JSON.stringify(project.body));
  const pid = project.body.id;
  const ref = testCase.meta.ref ?? "main";
  const commit = await call("POST", `/projects/${pid}/repository/commits`, {
    branch: "main",
    commit_message: "corpus [skip ci]",
    actions: Object.entries(testCase.files).map(([file_path, content]) => ({ action: "create", file_path, content })),
  });
  assert.equal(commit.status, 201, JSON.stringify(commit.body));
  if (!testCase.meta.tag && ref !== "main") {
    const branch = await call("POST", `/projects/${pid}/repository/branches`, { branch: ref, ref: "main" });
    assert.equal(branch.status, 201, JSON.stringify(branch.body));
  }
  if (testCase.meta.tag) {
    const tag = await call("POST", `/projects/${pid}/repository/tags`, { tag_name: ref, ref: "main" });
    assert.equal(tag.status, 201, JSON.stringify(tag.body));
  }
  const variables = Object.entries(testCase.meta.variables ?? {}).map(([key, value]) => ({ key, value: String(value) }));
  const created = await call("POST", `/projects/${pid}/pipeline`, { ref, variables });
  if (created.status === 400) return { error: created.body.message?.base?.[0] ?? JSON.stringify(created.body) };
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const listed = await call("GET", `/projects/${pid}/pipelines/${created.body.id}/jobs?per_page=100`);
  assert.equal(listed.status, 200);
  const { rows } = await db.query(
    `SELECT b.id, b."when", b.needs, b.scheduling_type, s.name AS stage, s.position
       FROM ci_builds b JOIN ci_stages s ON s.id = b.stage_id WHERE b.pipeline_id = $1`,
    [created.body.id],
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const positions = [...new Map(rows.map((r) => [r.stage, r.position]))].sort((a, b) => a[1] - b[1]).map(([s]) => s);
  return normalise({
    stageOrder: positions,
    jobs: listed.body.map((job) => {
      const row = byId.get(job.id);
      return {
        name: job.name,
        stage: job.stage,
        allow_failure: job.allow_failure,
        when: row.when,
        needs: row.scheduling_type === "dag" ? row.needs.map((n) => n.name).sort() : null,
      };
    }),
  });
}

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-corpus-"));
  const explicit = process.env.TEST_DATABASE_URL;
  const serverUrl = explicit === "pglite" ? null : explicit ?? ((await answers("127.0.0.1", 5432)) ? "postgres://postgres@127.0.0.1:5432/postgres" : null);
  let databaseUrl;
  if (serverUrl) {
    const name = `edgeforge_corpus_${process.pid}_${randomBytes(3).toString("hex")}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    cleanups.push(async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    });
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl, timeoutMs: 120_000, verbose: Boolean(process.env.E2E_VERBOSE) });
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    cleanups.push(() => db.end());
  } else {
    // No PostgreSQL: PGlite in this process, served over the wire to the server, read here directly.
    const { openPglite, servePglite } = await import("../../scripts/pglite-server.mjs");
    const { migratePglite } = await import("../../scripts/migrate.mjs");
    const pglite = await openPglite({});
    await migratePglite(pglite);
    const served = await servePglite(pglite);
    cleanups.push(async () => {
      await served.close();
      await pglite.close();
    });
    server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: served.url, timeoutMs: 120_000, verbose: Boolean(process.env.E2E_VERBOSE) });
    db = { query: (text, params) => pglite.query(text, params) };
  }
});

after(async () => {
  if (server) await server.stop(10_000);
  while (cleanups.length) await cleanups.pop()().catch(() => {});
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("the .gitlab-ci.yml corpus against gitlab-ci-local", () => {
  /** name → { testCase, ours, theirs }, computed once for every case before the cases are checked. */
  const results = new Map();

  before(async () => {
    const cases = await Promise.all(caseNames.map(loadCase));
    // Edgeforge and gitlab-ci-local (two processes per case) side by side, a few cases at a time.
    await mapLimit(cases, 3, async (testCase) => {
      const [ours, theirs] = await Promise.all([edgeforge(testCase), gitlabCiLocal(testCase)]);
      results.set(testCase.name, { testCase, ours, theirs });
    });
  }, { timeout: 300_000 });

  it(`has at least 30 cases (${caseNames.length})`, () => {
    assert.ok(caseNames.length >= 30);
  });

  for (const name of caseNames) {
    it(name, () => {
      const { testCase, ours, theirs } = results.get(name);
      const { meta } = testCase;
      const context = `\n  edgeforge: ${JSON.stringify(ours)}\n  gitlab-ci-local: ${JSON.stringify(theirs.error ? { error: theirs.output.slice(-600) } : theirs)}`;
      assert.ok(typeof meta.description === "string" && meta.description, "case.yml needs a description");
      if (meta.error !== undefined) {
        assert.deepEqual(ours, { error: meta.error }, context);
        if (meta.gitlabCiLocalAccepts) {
          assert.ok(typeof meta.reason === "string" && meta.reason, "gitlabCiLocalAccepts needs a reason");
          assert.ok(!theirs.error, `gitlab-ci-local now refuses this file too: drop gitlabCiLocalAccepts${context}`);
        } else assert.ok(theirs.error, `gitlab-ci-local accepts what Edgeforge refuses${context}`);
      } else if (meta.expected !== undefined) {
        assert.ok(typeof meta.reason === "string" && meta.reason, "an expected result needs the documentation's reason");
        assert.deepEqual(ours, expectedOf(meta.expected), context);
        assert.notDeepEqual(theirs, ours, `gitlab-ci-local now agrees: drop \`expected\`${context}`);
      } else {
        assert.ok(!theirs.error, `gitlab-ci-local refused the file${context}`);
        assert.deepEqual(ours, theirs, context);
      }
    });
  }
});
