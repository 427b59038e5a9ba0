// Git LFS end to end (issue 10): Edgeforge started as `npm start` does, driven by the real git-lfs client
// (the Debian `git-lfs` package): `git lfs track`, a push of binary files through the batch API and
// `basic` transfers into R2, a clone elsewhere whose files match byte for byte, the pointer in the
// repository, `raw?lfs=true` through the API, and a reporter's refused upload. E2E_VERBOSE=1 shows the
// server's output.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GIT_ENV } from "./git-history.mjs";
import { startServer } from "./server.mjs";

const ROOT_TOKEN = `glpat-lfs${randomBytes(12).toString("hex")}`;
const RUN = `lfs${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
const STEP = { timeout: 180_000 };
// git-lfs's filters, as `git lfs install` would write them to a global config (the tests have none).
const LFS_CONFIG = [
  "-c", "filter.lfs.clean=git-lfs clean -- %f",
  "-c", "filter.lfs.smudge=git-lfs smudge -- %f",
  "-c", "filter.lfs.process=git-lfs filter-process",
  "-c", "filter.lfs.required=true",
];

let dataDir;
let server;
const state = {};

async function api(method, endpoint, body, token = ROOT_TOKEN) {
  const response = await fetch(`${server.apiUrl}${endpoint}`, {
    method,
    headers: { "PRIVATE-TOKEN": token, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${endpoint} → ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A GET, asked once more if the keep-alive connection was closed by the dev server while git ran. */
async function get(url, headers) {
  try {
    return await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  } catch {
    return fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  }
}

function remote(fullPath, token) {
  const url = new URL(`${server.host}/${fullPath}.git`);
  url.username = "anyone";
  url.password = token;
  return url.toString();
}

function gitTry(cwd, args) {
  const result = spawnSync(
    "git",
    ["-c", "gc.auto=0", "-c", "user.name=E2E", "-c", "user.email=e2e@example.com", "-c", "credential.helper=", ...LFS_CONFIG, ...args],
    { cwd, env: { ...GIT_ENV, GIT_LFS_SKIP_PUSH: undefined }, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, timeout: 180_000 },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function gitOk(cwd, args) {
  const result = gitTry(cwd, args);
  assert.equal(result.status, 0, `git ${args.join(" ")} failed:\n${result.stderr}`);
  return result.stdout;
}

async function newUser(label) {
  const user = await api("POST", "/users", {
    email: `${RUN}_${label}@example.com`,
    username: `${RUN}_${label}`,
    name: `${RUN} ${label}`,
    password: "Edgeforge-lfs-Pass-5521",
    skip_confirmation: true,
  });
  const { token } = await api("POST", `/users/${user.id}/personal_access_tokens`, { name: "lfs", scopes: ["api"] });
  return { ...user, token };
}

before(async () => {
  const version = spawnSync("git-lfs", ["version"], { encoding: "utf8" });
  assert.equal(version.status, 0, "git-lfs is not installed (apt-get install git-lfs)");
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-lfs-e2e-"));
  server = await startServer({
    dataDir: path.join(dataDir, "server"),
    rootToken: ROOT_TOKEN,
    databaseUrl: process.env.E2E_DATABASE_URL,
    timeoutMs: 180_000,
    verbose: Boolean(process.env.E2E_VERBOSE),
  });
});

after(async () => {
  if (server) await server.stop(10_000);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("Git LFS with the git-lfs client", { timeout: 900_000 }, () => {
  it("sets up a developer, a reporter and a project", STEP, async () => {
    state.dev = await newUser("dev");
    state.reporter = await newUser("reporter");
    state.project = await api("POST", "/projects", { name: `${RUN}-lfs`, visibility: "private", initialize_with_readme: true });
    await api("POST", `/projects/${state.project.id}/members`, { user_id: state.dev.id, access_level: 30 });
    await api("POST", `/projects/${state.project.id}/members`, { user_id: state.reporter.id, access_level: 20 });
  });

  it("tracks and pushes binary files (a developer, on a branch); the repository holds pointers", STEP, async () => {
    const dir = path.join(dataDir, "push");
    gitOk(dataDir, ["clone", "-q", remote(state.project.path_with_namespace, state.dev.token), "push"]);
    gitOk(dir, ["checkout", "-q", "-b", "assets"]);
    gitOk(dir, ["lfs", "track", "*.bin"]);
    state.big = randomBytes(3 * 1024 * 1024 + 17);
    state.small = randomBytes(1000);
    writeFileSync(path.join(dir, "big.bin"), state.big);
    writeFileSync(path.join(dir, "small.bin"), state.small);
    gitOk(dir, ["add", ".gitattributes", "big.bin", "small.bin"]);
    gitOk(dir, ["commit", "-q", "-m", "binary assets"]);
    const pointer = gitOk(dir, ["cat-file", "-p", "HEAD:big.bin"]);
    assert.match(pointer, /^version https:\/\/git-lfs\.github\.com\/spec\/v1\noid sha256:[0-9a-f]{64}\nsize 3145745\n$/);
    const push = gitTry(dir, ["push", "origin", "assets"]);
    assert.equal(push.status, 0, push.stderr);
    // The repository itself holds the pointer.
    const raw = await get(`${server.apiUrl}/projects/${state.project.id}/repository/files/big.bin/raw?ref=assets`, { "PRIVATE-TOKEN": state.dev.token });
    assert.equal(await raw.text(), pointer);
  });

  it("clones elsewhere (a reporter): the files match byte for byte", STEP, async () => {
    gitOk(dataDir, ["clone", "-q", "-b", "assets", remote(state.project.path_with_namespace, state.reporter.token), "clone"]);
    const dir = path.join(dataDir, "clone");
    assert.ok(readFileSync(path.join(dir, "big.bin")).equals(state.big), "big.bin differs");
    assert.ok(readFileSync(path.join(dir, "small.bin")).equals(state.small), "small.bin differs");
    assert.match(gitOk(dir, ["lfs", "ls-files"]), /big\.bin/);
  });

  it("answers raw?lfs=true with the object's content", STEP, async () => {
    const response = await get(`${server.apiUrl}/projects/${state.project.id}/repository/files/big.bin/raw?ref=assets&lfs=true`, { "PRIVATE-TOKEN": state.reporter.token });
    assert.equal(response.status, 200);
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(state.big));
  });

  it("refuses a reporter's upload", STEP, async () => {
    const dir = path.join(dataDir, "clone");
    writeFileSync(path.join(dir, "more.bin"), randomBytes(2048));
    gitOk(dir, ["add", "more.bin"]);
    gitOk(dir, ["commit", "-q", "-m", "more"]);
    const push = gitTry(dir, ["push", "origin", "assets"]);
    assert.notEqual(push.status, 0);
    assert.match(push.stderr, /Access forbidden|not allowed to push/);
  });
});
