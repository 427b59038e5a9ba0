// node --test test/node/start.test.mjs
// Issue 26 items 17-19, what a newcomer trips on in `npm start` (scripts/start.mjs), started as a user
// starts it, with the embedded database in a fresh DATA_DIR:
// - a port in use is reported at once, before migrations, naming PORT=;
// - progress lines with their times; a restart reuses the Worker's bundle and skips migrations;
// - one access-log line per request, without the query string; ACCESS_LOG=0 silences it;
// - root's generated token kept in DATA_DIR/initial_root_token (0600), pointed at until first used;
// - RUNNER=shell registers a runner on any start (no root token at hand) and reuses it afterwards;
// - `npm run runner` without a token prints its usage; builds go under DATA_DIR.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { defaultBuildsDir, parseArgs } from "../../scripts/runner/runner.mjs";
import { apiCall, startServer } from "../e2e/server.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Runs a Node script of the repository to its end: `{ code, output, ms }`. */
function run(script, env) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [script], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (output += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (output += d));
    child.on("exit", (code) => resolve({ code, output, ms: Date.now() - started }));
  });
}

/** A clean environment for a start: none of the caller's npm start settings. */
function cleanEnv(extra) {
  const env = { ...process.env, ...extra };
  for (const name of ["DATABASE_URL", "INITIAL_ROOT_TOKEN", "RUNNER", "RUNNER_TOKEN", "ACCESS_LOG"]) if (!(name in extra)) delete env[name];
  return env;
}

describe("npm start, as a newcomer runs it", () => {
  let dataDir;
  /**
   * A start as the user runs it (no INITIAL_ROOT_TOKEN, the request log on unless `env` says), `fn`
   * run against it, and the stop, whatever `fn` did.
   */
  async function withServer(env, fn) {
    const server = await startServer({ dataDir, rootToken: "", embedded: true, timeoutMs: 240_000, env: { INITIAL_ROOT_TOKEN: "", ACCESS_LOG: "1", ...env } });
    try {
      await fn(server);
    } finally {
      await server.stop(20_000);
    }
  }

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-start-"));
  });

  after(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("reports a port in use within a second, before the database, naming PORT=", { timeout: 30_000 }, async () => {
    const blocker = net.createServer();
    await new Promise((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address();
    try {
      const result = await run("scripts/start.mjs", cleanEnv({ PORT: String(port), DATA_DIR: dataDir }));
      assert.equal(result.code, 1, result.output);
      assert.match(result.output, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*PORT=`));
      assert.doesNotMatch(result.output, /migrations|database:|\n\s+at /);
      assert.ok(!existsSync(path.join(dataDir, "pglite")), "the database was opened");
      // About 0.3 s on an idle machine (Node's start and the light imports); the bound leaves room for a
      // loaded one (1.6 s seen at a load of 21 on 2 cores). Before: 27 s, after migrations and the bundle.
      assert.ok(result.ms < 5000, `reported after ${result.ms} ms`);
    } finally {
      blocker.close();
    }
  });

  let rootToken;
  it("first start: timed progress lines, root's token printed and kept in a 0600 file, an access log without query strings", { timeout: 300_000 }, async () => {
    await withServer({}, async (server) => {
      const out = server.output();
      assert.match(out, /database: embedded PGlite in .* \(\d+\.\d s\)/);
      assert.match(out, /migrations applied \(\d+\.\d s\)/);
      assert.match(out, /Worker bundle: built with wrangler \(\d+\.\d s\)/);
      assert.match(out, /Worker started on workerd .* \(\d+\.\d s\)/);
      const file = path.join(dataDir, "initial_root_token");
      rootToken = /root personal access token: (glpat-\S+) \(kept in (\S+), mode 0600\)/.exec(out)?.[1];
      assert.ok(rootToken, out);
      assert.ok(out.includes(`kept in ${file}`));
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.match(readFileSync(file, "utf8"), new RegExp(`^Token: ${rootToken}$`, "m"));

      // Not root's token: it must stay unused until the next start has pointed at its file.
      const res = await fetch(`${server.apiUrl}/version?private_token=glpat-not-a-token-000000&job_token=sekrit`);
      assert.equal(res.status, 401);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // the line is written after the answer
      // (the cron ticker's calls, /cdn-cgi/handler/scheduled, are logged too: left out here)
      const lines = server.output().split("\n").filter((line) => line.startsWith("[access]") && line.includes("/api/v4/"));
      assert.deepEqual(lines.map((line) => line.replace(/\(\d+ms\)$/, "(ms)")), ["[access] GET /api/v4/version 401 Unauthorized (ms)"], "the readiness probes are not logged");
      assert.doesNotMatch(server.output().slice(out.length), /sekrit|glpat-|private_token/);
    });
  });

  it("restart: bundle reused, migrations skipped, the token's file pointed at until it is used; ACCESS_LOG=0 is quiet", { timeout: 300_000 }, async () => {
    await withServer({ ACCESS_LOG: "0" }, async (server) => {
      const out = server.output();
      assert.match(out, /migrations: up to date \(\d+\.\d s\)/);
      assert.match(out, /Worker bundle: reused, sources unchanged/);
      assert.match(out, new RegExp(`root personal access token: in ${path.join(dataDir, "initial_root_token")} \\(shown until it is first used; or start with INITIAL_ROOT_TOKEN=`));
      assert.doesNotMatch(out, /glpat-/);
      const me = await apiCall(server.host, rootToken, "GET", "/user");
      assert.equal(me.status, 200);
      assert.equal(me.body.username, "root");
      // Each cron of wrangler.toml runs on demand, as the ticker runs it, and all of its work succeeds.
      for (const cron of ["*/5 * * * *", "0 12 * * *"]) {
        const ran = await fetch(`${server.host}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(cron)}`);
        assert.deepEqual([ran.status, await ran.text()], [200, "ok"], cron);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000)); // last_used_at is written after the answer
      assert.doesNotMatch(server.output(), /\[access\]/);
    });
  });

  it("RUNNER=shell registers a runner without root's token, revoking the one-start token it used, and reuses it at the next start", { timeout: 400_000 }, async () => {
    await withServer({ RUNNER: "shell" }, async (server) => {
      const out = server.output();
      assert.match(out, /root personal access token: the one generated at the first start, already in use \(start with INITIAL_ROOT_TOKEN=/);
      assert.doesNotMatch(out, /initial_root_token/);
      const tokenFile = path.join(dataDir, "runner", "token");
      assert.match(out, new RegExp(`shell runner registered: instance runner \\d+ \\(token in ${tokenFile}\\)`));
      assert.ok(out.includes(`shell runner started (builds in ${path.join(dataDir, "runner", "builds")})`), out);
      assert.match(readFileSync(tokenFile, "utf8"), /^glrt-/);
      assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
      const runners = await apiCall(server.host, rootToken, "GET", "/runners/all");
      assert.deepEqual(runners.body.map((r) => r.description), ["npm start shell runner"]);
      const tokens = await apiCall(server.host, rootToken, "GET", "/personal_access_tokens?user_id=1");
      const used = tokens.body.filter((t) => t.name === "npm start: shell runner registration");
      assert.deepEqual(used.map((t) => [t.revoked, t.active]), [[true, false]], JSON.stringify(tokens.body));
    });

    await withServer({ RUNNER: "shell" }, async (server) => {
      const out = server.output();
      assert.match(out, /shell runner started/);
      assert.doesNotMatch(out, /shell runner registered/);
      assert.equal((await apiCall(server.host, rootToken, "GET", "/runners/all")).body.length, 1);
    });
  });
});

describe("npm run runner", () => {
  it("prints its usage, not a stack trace, without a token", { timeout: 30_000 }, async () => {
    const result = await run("scripts/runner/runner.mjs", cleanEnv({}));
    assert.equal(result.code, 2, result.output);
    assert.match(result.output, /^no token: pass --token or set RUNNER_TOKEN\n\nusage: npm run runner -- --token <token>/);
    assert.match(result.output, /RUNNER=shell npm start/);
    assert.doesNotMatch(result.output, /\n\s+at /);
  });

  it("builds under DATA_DIR, never in the repository", () => {
    assert.equal(parseArgs(["--token", "glrt-x"], { DATA_DIR: "/srv/edgeforge" }).buildsDir, "/srv/edgeforge/runner/builds");
    assert.equal(parseArgs(["--token", "glrt-x"], {}).buildsDir, path.join(root, ".data", "runner", "builds"));
    assert.equal(defaultBuildsDir({}), path.join(root, ".data", "runner", "builds"));
    assert.equal(parseArgs(["--builds-dir", "/tmp/b"], { RUNNER_TOKEN: "glrt-y" }).buildsDir, "/tmp/b");
    assert.throws(() => parseArgs(["--token"], {}), /--token needs a value/);
  });
});
