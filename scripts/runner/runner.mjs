#!/usr/bin/env node
// The runner we ship: GitLab's runner protocol with a shell executor.
//   npm run runner -- --url http://127.0.0.1:8787 --token <registration or glrt- token> [--once] [--builds-dir DIR] [--tags a,b]
// Builds go under DATA_DIR (default ./.data, git-ignored), never into the repository itself.
// It executes repository code on this machine: run it only against a server you trust.
// Plain ESM JavaScript for Node 20, with no build step.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync, unzipSync, zipSync } from "fflate";

const VERSION = "15.4.0";
const POLL_MS = 3000;

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

export const USAGE = `usage: npm run runner -- --token <token> [--url URL] [--builds-dir DIR] [--tags a,b] [--once]

  --token TOKEN     a registration token (GR1348941...) or a runner's glrt- token; or set RUNNER_TOKEN
                    (an administrator gets one with POST /api/v4/user/runners or
                    POST /api/v4/runners/reset_registration_token)
  --url URL         the server (default http://127.0.0.1:8787)
  --builds-dir DIR  where jobs run (default $DATA_DIR/runner/builds, DATA_DIR defaulting to ./.data)
  --tags a,b        tags of a runner it registers
  --once            take one job (or none) and exit

Or let the server start it: RUNNER=shell npm start (registers a runner, keeps its token in DATA_DIR).
It runs repository code on this machine: use it only with a server you trust.`;

/** A command line the runner cannot run with: main prints its message and the usage. */
export class UsageError extends Error {}

/** The builds directory of a runner started without --builds-dir: under DATA_DIR (resolved as `npm start` does), as `npm start`'s runner's. */
export function defaultBuildsDir(env = process.env) {
  return path.join(path.resolve(env.DATA_DIR || path.join(repoRoot, ".data")), "runner", "builds");
}

export function parseArgs(argv, env = process.env) {
  const out = { url: "http://127.0.0.1:8787", token: null, once: false, buildsDir: null, tags: [], help: false };
  const value = (i, name) => {
    if (i >= argv.length || argv[i].startsWith("--")) throw new UsageError(`${name} needs a value`);
    return argv[i];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--url") out.url = value(++i, a);
    else if (a === "--token") out.token = value(++i, a);
    else if (a === "--once") out.once = true;
    else if (a === "--builds-dir") out.buildsDir = value(++i, a);
    else if (a === "--tags") out.tags = value(++i, a).split(",").filter(Boolean);
    else if (a === "--help" || a === "-h") out.help = true;
    else throw new UsageError(`unknown argument ${a}`);
  }
  if (out.help) return out;
  if (!out.token) out.token = env.RUNNER_TOKEN || null;
  if (!out.token) throw new UsageError("no token: pass --token or set RUNNER_TOKEN");
  out.buildsDir = path.resolve(out.buildsDir ?? defaultBuildsDir(env));
  out.url = out.url.replace(/\/+$/, "");
  return out;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
export function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return ((c ^ 0xffffffff) >>> 0).toString(16).padStart(8, "0");
}

async function api(base, method, route, { json, headers = {}, body } = {}) {
  const init = { method, headers: { ...headers } };
  if (json !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(json);
  } else if (body !== undefined) init.body = body;
  return fetch(`${base}/api/v4${route}`, init);
}

/** A registration token is exchanged for a `glrt-` token; a `glrt-` token is verified. */
export async function authenticate(opts) {
  const info = { name: "edgeforge-runner", version: VERSION, revision: "edgeforge", platform: process.platform, architecture: process.arch, executor: "shell", shell: "bash" };
  if (opts.token.startsWith("glrt-")) {
    const res = await api(opts.url, "POST", "/runners/verify", { json: { token: opts.token } });
    if (res.status !== 200) throw new Error(`runner verification failed: ${res.status}`);
    return { token: opts.token, info };
  }
  const res = await api(opts.url, "POST", "/runners", { json: { token: opts.token, description: "edgeforge shell runner", tag_list: opts.tags, run_untagged: true, info } });
  if (res.status !== 201) throw new Error(`runner registration failed: ${res.status}`);
  const body = await res.json();
  return { token: body.token, info };
}

/** An artifacts path: a glob, or a directory (then everything under it). */
function globRegExp(pattern) {
  const glob = pattern.replace(/^\.\//, "").replace(/\/+$/, "");
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === "*") {
      if (glob[i + 1] === "*") {
        out += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
        i += glob[i + 2] === "/" ? 2 : 1;
      } else out += "[^/]*";
    } else if (ch === "?") out += "[^/]";
    else out += ch.replace(/[.+^$()|[\]\\{}]/g, "\\$&");
  }
  return new RegExp(`^${out}(?:/.*)?$`);
}

function walk(dir, prefix = "") {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...walk(path.join(dir, entry.name), rel));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}

const matchFiles = (dir, globs, exclude = []) => {
  const inc = globs.map(globRegExp);
  const exc = exclude.map(globRegExp);
  return walk(dir).filter((f) => inc.some((r) => r.test(f)) && !exc.some((r) => r.test(f)));
};

/** Trace buffer: appended output, sent with Content-Range; on 416 resent from the server's size. */
class Trace {
  constructor(base, job, masks) {
    this.base = base;
    this.job = job;
    this.masks = masks.filter((m) => m && m.length >= 4);
    this.buffer = Buffer.alloc(0);
    this.sent = 0;
    this.canceled = false;
    this.pending = Promise.resolve();
  }
  write(text) {
    let t = String(text);
    for (const m of this.masks) t = t.split(m).join("[MASKED]");
    this.buffer = Buffer.concat([this.buffer, Buffer.from(t)]);
  }
  /**
   * One PATCH at a time: a periodic flush still in flight when the job's last flush started made both
   * send from the same offset; the server answered the second with 416 and the end of the trace was lost.
   */
  flush() {
    this.pending = this.pending.then(() => this.flushOnce()).catch(() => undefined);
    return this.pending;
  }
  /** Flushes until everything written is sent (a 416 moves `sent` to the server's size), a few times at most. */
  async drain() {
    for (let attempt = 0; attempt < 5 && this.sent < this.buffer.length; attempt++) await this.flush();
  }
  async flushOnce() {
    if (this.sent >= this.buffer.length) return;
    const chunk = this.buffer.subarray(this.sent);
    const res = await api(this.base, "PATCH", `/jobs/${this.job.id}/trace`, {
      headers: { "JOB-TOKEN": this.job.token, "Content-Range": `${this.sent}-${this.sent + chunk.length - 1}`, "Content-Type": "text/plain" },
      body: chunk,
    });
    if (res.status === 202) this.sent += chunk.length;
    else if (res.status === 416) this.sent = Number((res.headers.get("Range") ?? "0-0").split("-")[1]);
    else if (res.status === 403) this.canceled = res.headers.get("Job-Status") !== "running";
  }
}

function runStep(lines, env, cwd, trace, timeoutMs) {
  const script = ["set -eo pipefail", ...lines.flatMap((l) => [`printf '%s\\n' ${shellQuote(`$ ${l}`)}`, l])].join("\n");
  return new Promise((resolve) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-c", script], { cwd, env, detached: true });
    let timedOut = false;
    const kill = () => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    const watch = setInterval(() => {
      if (trace.canceled) kill();
    }, 200);
    child.stdout.on("data", (d) => trace.write(d));
    child.stderr.on("data", (d) => trace.write(d));
    child.on("close", (code) => {
      clearTimeout(timer);
      clearInterval(watch);
      resolve({ code: code ?? 1, timedOut });
    });
  });
}

const shellQuote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs one command with its output in the trace; resolves with its exit code. */
function runCommand(command, args, cwd, trace, env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env });
    child.stdout.on("data", (d) => trace.write(d));
    child.stderr.on("data", (d) => trace.write(d));
    child.on("error", (error) => {
      trace.write(`${command}: ${error.message}\n`);
      resolve(127);
    });
    child.on("close", (code) => resolve(code ?? 1));
  });
}

/**
 * The job's sources, as gitlab-runner's `get_sources` stage does with GIT_STRATEGY fetch/clone (every
 * job gets a fresh directory here, so both clone): `git init`, `git remote add origin <repo_url>`
 * (user `gitlab-ci-token`, the job token as password), `git fetch` of the payload's refspecs at its
 * depth (GIT_DEPTH overrides it), `git checkout -f` of the pipeline's sha. GIT_STRATEGY none fetches
 * nothing. A server without smart HTTP sends CI_SOURCE_ARCHIVE_URL instead (docs/ci.md, "The shipped runner"): the archive.
 */
async function fetchSources(job, dir, trace) {
  const vars = Object.fromEntries(job.variables.map((v) => [v.key, v.value]));
  if (vars.CI_SOURCE_ARCHIVE_URL) return fetchArchive(job, vars.CI_SOURCE_ARCHIVE_URL, dir, trace);
  const git = job.git_info;
  if ((vars.GIT_STRATEGY ?? "fetch") === "none" || !git?.repo_url || job.allow_git_fetch === false) {
    trace.write("Skipping Git repository setup\n");
    return;
  }
  const depth = vars.GIT_DEPTH !== undefined && /^\d+$/.test(vars.GIT_DEPTH) ? Number(vars.GIT_DEPTH) : (git.depth ?? 0);
  trace.write(depth > 0 ? `Fetching changes with git depth set to ${depth}...\n` : "Fetching changes...\n");
  // No prompt for credentials, no user or system configuration: the job token is the only credential.
  const env = { PATH: process.env.PATH, HOME: dir, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1" };
  const gitIn = (args) => runCommand("git", args, dir, trace, env);
  const steps = [
    ["init", ["init", "-q", "."]],
    ["remote", ["remote", "add", "origin", git.repo_url]],
    ["fetch", ["-c", "protocol.version=2", "fetch", "origin", ...(git.refspecs ?? []), ...(depth > 0 ? [`--depth=${depth}`] : []), "--prune", "--quiet"]],
    ["checkout", ["-c", "advice.detachedHead=false", "checkout", "-f", "-q", git.sha]],
  ];
  for (const [name, args] of steps) {
    if (name === "checkout") trace.write(`Checking out ${git.sha.slice(0, 8)} as ${git.ref}...\n`);
    const code = await gitIn(args);
    if (code !== 0) throw Object.assign(new Error(`git ${name} failed (exit code ${code})`), { reason: "script_failure" });
  }
}

async function fetchArchive(job, url, dir, trace) {
  const res = await fetch(url, { headers: { "JOB-TOKEN": job.token } });
  if (res.status !== 200) {
    trace.write(`WARNING: sources not fetched (archive answered ${res.status}); running without sources\n`);
    return;
  }
  const tarball = path.join(dir, "..", `sources-${job.id}.tar.gz`);
  fs.writeFileSync(tarball, Buffer.from(await res.arrayBuffer()));
  await new Promise((r) => spawn("tar", ["-xzf", tarball, "--strip-components=1", "-C", dir]).on("close", r));
}

async function fetchDependencies(base, job, dir, trace) {
  for (const dep of job.dependencies ?? []) {
    if (!dep.artifacts_file) continue;
    trace.write(`Downloading artifacts for ${dep.name} (${dep.id})...\n`);
    const res = await api(base, "GET", `/jobs/${dep.id}/artifacts`, { headers: { "JOB-TOKEN": job.token } });
    if (res.status !== 200) throw Object.assign(new Error(`dependency ${dep.name}: ${res.status}`), { reason: "missing_dependency_failure" });
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    for (const [name, data] of Object.entries(files)) {
      if (name.endsWith("/")) continue;
      const target = path.join(dir, name);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, data);
    }
  }
}

async function uploadArtifacts(base, job, dir, status, trace) {
  for (const a of job.artifacts ?? []) {
    const wanted = a.when === "always" || (a.when === "on_failure" ? status === "failed" : status === "success");
    if (!wanted) continue;
    const files = matchFiles(dir, a.paths ?? [], a.exclude ?? []);
    if (!files.length) {
      trace.write(`WARNING: ${(a.paths ?? []).join(", ")}: no matching files\n`);
      continue;
    }
    let bytes;
    let name;
    if (a.artifact_type === "archive") {
      bytes = zipSync(Object.fromEntries(files.map((f) => [f, new Uint8Array(fs.readFileSync(path.join(dir, f)))])));
      name = "artifacts.zip";
    } else {
      bytes = Buffer.concat(files.map((f) => Buffer.from(gzipSync(new Uint8Array(fs.readFileSync(path.join(dir, f)))))));
      name = `${a.name || a.artifact_type}.gz`;
    }
    const form = new FormData();
    form.append("file", new Blob([bytes]), name);
    form.append("artifact_type", a.artifact_type);
    form.append("artifact_format", a.artifact_format);
    if (a.expire_in) form.append("expire_in", a.expire_in);
    trace.write(`Uploading artifacts (${a.artifact_type}): ${files.length} file(s)\n`);
    const res = await api(base, "POST", `/jobs/${job.id}/artifacts`, { headers: { "JOB-TOKEN": job.token }, body: form });
    if (res.status !== 201) trace.write(`WARNING: upload failed: ${res.status}\n`);
  }
}

/** Runs one claimed job to its final PUT. */
export async function runJob(base, job, buildsDir) {
  await api(base, "PUT", `/jobs/${job.id}`, { json: { token: job.token, state: "running" } });
  const masks = job.variables.filter((v) => v.masked).map((v) => v.value);
  const trace = new Trace(base, job, masks);
  const flusher = setInterval(() => trace.flush(), POLL_MS);
  const dir = path.resolve(buildsDir, String(job.id));
  fs.mkdirSync(dir, { recursive: true });
  const env = { PATH: process.env.PATH, HOME: process.env.HOME ?? dir, CI_PROJECT_DIR: dir, CI_BUILDS_DIR: path.resolve(buildsDir) };
  for (const v of job.variables) {
    if (v.file) {
      const file = path.join(dir, "..", `${job.id}-${v.key}`);
      fs.writeFileSync(file, v.value);
      env[v.key] = file;
    } else env[v.key] = v.value;
  }
  const timeoutMs = (job.runner_info?.timeout ?? 3600) * 1000;
  trace.write(`Running with edgeforge-runner ${VERSION}\nExecuting on ${process.platform} with the shell executor\n`);
  let status = "success";
  let failureReason = null;
  let exitCode = null;
  try {
    await fetchSources(job, dir, trace);
    await fetchDependencies(base, job, dir, trace);
    const script = job.steps.find((s) => s.name === "script");
    const result = await runStep(script?.script ?? [], env, dir, trace, timeoutMs);
    if (result.timedOut) [status, failureReason] = ["failed", "job_execution_timeout"];
    else if (result.code !== 0) [status, failureReason, exitCode] = ["failed", "script_failure", result.code];
    const after = job.steps.find((s) => s.name === "after_script");
    if (after && !trace.canceled) {
      trace.write("Running after_script\n");
      await runStep(after.script, { ...env, CI_JOB_STATUS: status }, dir, trace, 300_000);
    }
    if (!trace.canceled) await uploadArtifacts(base, job, dir, status, trace);
  } catch (error) {
    status = "failed";
    failureReason = error.reason ?? "runner_system_failure";
    trace.write(`ERROR: ${error.message}\n`);
  }
  trace.write(status === "success" ? "Job succeeded\n" : `ERROR: Job failed: exit code ${exitCode ?? 1}\n`);
  clearInterval(flusher);
  await trace.drain();
  const output = { checksum: `crc32:${crc32(trace.buffer)}`, bytesize: trace.buffer.length };
  for (let attempt = 0; attempt < 10; attempt++) {
    const res = await api(base, "PUT", `/jobs/${job.id}`, { json: { token: job.token, state: status, failure_reason: failureReason ?? undefined, exit_code: exitCode ?? undefined, checksum: output.checksum, output } });
    if (res.status < 500 && res.status !== 412) break;
    await new Promise((r) => setTimeout(r, 1000 * (attempt + 1)));
  }
  return status;
}

/** Polls `jobs/request`; with `once`, returns after the first job (or when none is pending). */
export async function runRunner(opts, log = console.log) {
  const { token, info } = await authenticate(opts);
  log(`runner ready at ${opts.url}`);
  let lastUpdate;
  for (;;) {
    let res;
    try {
      res = await api(opts.url, "POST", "/jobs/request", { json: { token, info: { ...info, features: { trace_sections: true } }, last_update: opts.once ? undefined : lastUpdate } });
    } catch (error) {
      // The server restarting or unreachable: a long-lived runner waits and asks again.
      if (opts.once) throw error;
      log(`jobs/request failed: ${error.message}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
      continue;
    }
    lastUpdate = res.headers.get("X-GitLab-Last-Update") ?? lastUpdate;
    if (res.status === 201) {
      const job = await res.json();
      log(`job ${job.id} (${job.job_info.name}) started`);
      const status = await runJob(opts.url, job, opts.buildsDir);
      log(`job ${job.id} finished: ${status}`);
      if (opts.once) return { token, jobs: 1 };
      continue;
    }
    // 409: every pending job it could take was locked by a concurrent claim; gitlab-runner asks again at once.
    if (res.status === 409) continue;
    if (res.status === 403) throw new Error("jobs/request answered 403: the runner token is not valid (any more)");
    if (res.status !== 204) {
      if (opts.once) throw new Error(`jobs/request answered ${res.status}`);
      // A 5xx or 503 (database unreachable): ask again after a pause rather than stop.
      log(`jobs/request answered ${res.status}`);
      await res.arrayBuffer().catch(() => undefined);
      await new Promise((r) => setTimeout(r, POLL_MS));
      continue;
    }
    if (opts.once) return { token, jobs: 0 };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (opts.help) {
    console.log(USAGE);
    process.exit(0);
  }
  runRunner(opts).catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
