// Push mirrors end to end: Edgeforge started as `npm start` does, a source project pushed with the git CLI,
// and its mirrors pushed by the Worker's own smart HTTP client (functions/shared/remote_mirrors) into a
// second project of the same server and into a bare repository served by `git http-backend` (a tiny CGI
// server below, with Basic authentication). Local addresses are allowed through the application setting,
// as an administrator would. E2E_VERBOSE=1 shows the server's output.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gitServer } from "./git-server.mjs";

const STEP = { timeout: 120_000 };
const g = gitServer("mirror");
const { api, call, remote, gitOk, gitTry, newUser, run: RUN } = g;
const state = {};
const BARE_USER = "mirror-bot";
const BARE_PASSWORD = "p@ss:word";

/** `git http-backend` as CGI behind Basic authentication; the repositories live under `root`. */
function startBareServer(root) {
  const expected = `Basic ${Buffer.from(`${BARE_USER}:${BARE_PASSWORD}`).toString("base64")}`;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { "WWW-Authenticate": 'Basic realm="bare"' });
        res.end("denied");
        return;
      }
      const body = Buffer.concat(chunks);
      const url = new URL(req.url, "http://bare");
      const child = spawn("git", ["http-backend"], {
        env: {
          PATH: process.env.PATH,
          GIT_PROJECT_ROOT: root,
          GIT_HTTP_EXPORT_ALL: "1",
          PATH_INFO: decodeURIComponent(url.pathname),
          QUERY_STRING: url.search.slice(1),
          REQUEST_METHOD: req.method,
          CONTENT_TYPE: req.headers["content-type"] ?? "",
          CONTENT_LENGTH: String(body.length),
          // A REMOTE_USER enables receive-pack (http.receivepack's default).
          REMOTE_USER: BARE_USER,
          REMOTE_ADDR: "127.0.0.1",
        },
      });
      const out = [];
      child.stdout.on("data", (c) => out.push(c));
      child.stderr.on("data", () => {});
      child.on("close", () => {
        const raw = Buffer.concat(out);
        const split = raw.indexOf("\r\n\r\n") >= 0 ? raw.indexOf("\r\n\r\n") : raw.indexOf("\n\n");
        const sep = raw[split] === 13 ? 4 : 2;
        const headers = {};
        let status = 200;
        for (const line of raw.subarray(0, split).toString().split(/\r?\n/)) {
          const at = line.indexOf(":");
          const [name, value] = [line.slice(0, at).trim(), line.slice(at + 1).trim()];
          if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]);
          else if (name) headers[name] = value;
        }
        res.writeHead(status, headers);
        res.end(raw.subarray(split + sep));
      });
      // git http-backend may exit before reading all of a request it refuses; its answer is on stdout.
      child.stdin.on("error", () => {});
      child.on("error", (error) => {
        if (!res.headersSent) res.writeHead(500).end(String(error.message));
      });
      child.stdin.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

/** Polls the mirror until `done(mirror)`; the last answer otherwise. */
async function waitForMirror(projectId, mirrorId, done, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const mirror = await api("GET", `/projects/${projectId}/remote_mirrors/${mirrorId}`);
    if (done(mirror) || Date.now() > until) return mirror;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `git ls-remote` of a URL as `{ ref: oid }` (heads and tags, peeled lines left out). */
function lsRemote(url) {
  const refs = {};
  for (const line of gitOk(g.dataDir, ["ls-remote", "--heads", "--tags", url]).trim().split("\n").filter(Boolean)) {
    const [oid, ref] = line.split("\t");
    if (!ref.endsWith("^{}")) refs[ref] = oid;
  }
  return refs;
}

function commit(dir, file, message) {
  writeFileSync(path.join(dir, file), `${message}\n`);
  gitOk(dir, ["add", file]);
  gitOk(dir, ["commit", "-q", "-m", message]);
  return gitOk(dir, ["rev-parse", "HEAD"]).trim();
}

before(async () => {
  await g.start();
  const bareRoot = path.join(g.dataDir, "bare");
  gitOk(g.dataDir, ["init", "-q", "--bare", bareRoot + "/target.git"]);
  state.bareDir = path.join(bareRoot, "target.git");
  state.bare = await startBareServer(bareRoot);
});
after(async () => {
  state.bare?.server.close();
  state.bare?.server.closeAllConnections();
  await g.stop();
});

describe("push mirrors", { timeout: 300_000 }, () => {
  it("pushes a project's branches and tags into another project of the server, then follows a push", STEP, async () => {
    state.source = await api("POST", "/projects", { name: `${RUN}-source`, visibility: "private" });
    state.target = await api("POST", "/projects", { name: `${RUN}-target`, visibility: "private" });
    // The server listens on 127.0.0.1: local requests must be allowed for the mirror to be saved.
    const refused = await call("POST", `/projects/${state.source.id}/remote_mirrors`, { url: remote(state.target.path_with_namespace) });
    assert.deepEqual([refused.status, refused.body], [400, { message: { url: ["is blocked: Requests to localhost are not allowed"] } }]);
    await api("PUT", "/application/settings", { allow_local_requests_from_web_hooks_and_services: true });
    state.work = path.join(g.dataDir, "work");
    gitOk(g.dataDir, ["init", "-q", "-b", "main", state.work]);
    commit(state.work, "a.txt", "first");
    gitOk(state.work, ["checkout", "-q", "-b", "feature"]);
    commit(state.work, "b.txt", "on feature");
    gitOk(state.work, ["checkout", "-q", "main"]);
    commit(state.work, "c.txt", "second");
    gitOk(state.work, ["tag", "-a", "v1.0", "-m", "release 1.0"]);
    gitOk(state.work, ["remote", "add", "origin", remote(state.source.path_with_namespace, g.rootToken)]);
    gitOk(state.work, ["push", "-q", "origin", "main", "feature", "v1.0"]);

    const url = remote(state.target.path_with_namespace, g.rootToken);
    const created = await api("POST", `/projects/${state.source.id}/remote_mirrors`, { url, enabled: true });
    assert.equal(created.url, url.replace(/\/\/anyone:[^@]+@/, "//*****:*****@"));
    const mirror = await waitForMirror(state.source.id, created.id, (m) => m.update_status === "finished" || m.update_status === "failed");
    assert.equal(mirror.update_status, "finished", mirror.last_error);
    assert.equal(mirror.last_error, null);
    assert.ok(mirror.last_successful_update_at && mirror.last_update_at && mirror.last_update_started_at);
    const sourceRefs = lsRemote(remote(state.source.path_with_namespace, g.rootToken));
    assert.deepEqual(lsRemote(url), sourceRefs);
    assert.equal(Object.keys(sourceRefs).length, 3);

    // A later push reaches the mirror by itself (the queue, after the push's answer).
    const next = commit(state.work, "d.txt", "third");
    gitOk(state.work, ["push", "-q", "origin", "main"]);
    const until = Date.now() + 30_000;
    while (lsRemote(url)["refs/heads/main"] !== next && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    assert.equal(lsRemote(url)["refs/heads/main"], next);
    // The whole history arrived: the mirror's clone logs the same commits.
    const clone = path.join(g.dataDir, "clone");
    gitOk(g.dataDir, ["clone", "-q", url, clone]);
    assert.equal(gitOk(clone, ["log", "--format=%H %s", "main"]), gitOk(state.work, ["log", "--format=%H %s", "main"]));
    assert.equal(gitOk(clone, ["cat-file", "-t", "v1.0"]).trim(), "tag");
  });

  it("reports the remote's refusal as last_error and retries (a user without access to the target)", STEP, async () => {
    const outsider = await newUser("outsider");
    const url = remote(state.target.path_with_namespace, outsider.token);
    const created = await api("POST", `/projects/${state.source.id}/remote_mirrors`, { url, enabled: true });
    const mirror = await waitForMirror(state.source.id, created.id, (m) => m.last_error !== null);
    assert.ok(["to_retry", "failed", "started"].includes(mirror.update_status), mirror.update_status);
    assert.match(mirror.last_error, /The requested URL returned error: 404|Authentication failed/);
    assert.ok(!mirror.last_error.includes(outsider.token), "the token never shows");
    assert.equal(mirror.last_successful_update_at, null);
    await api("DELETE", `/projects/${state.source.id}/remote_mirrors/${created.id}`);
  });

  it("pushes into a bare repository served by git http-backend: creates, keeps divergent refs, forces, deletes", STEP, async () => {
    const target = new URL(`${state.bare.url}/target.git`);
    target.username = BARE_USER;
    target.password = encodeURIComponent(BARE_PASSWORD);
    const created = await api("POST", `/projects/${state.source.id}/remote_mirrors`, { url: target.toString(), enabled: true });
    assert.equal(created.url, `${state.bare.url.replace("http://", "http://*****:*****@")}/target.git`);
    let mirror = await waitForMirror(state.source.id, created.id, (m) => ["finished", "failed"].includes(m.update_status));
    assert.equal(mirror.update_status, "finished", mirror.last_error);
    const sourceRefs = lsRemote(remote(state.source.path_with_namespace, g.rootToken));
    const bareRefs = () => {
      const out = {};
      for (const line of gitOk(state.bareDir, ["for-each-ref", "--format=%(objectname) %(refname)"]).trim().split("\n").filter(Boolean)) {
        const [oid, ref] = line.split(" ");
        out[ref] = oid;
      }
      return out;
    };
    assert.deepEqual(bareRefs(), sourceRefs);
    assert.equal(gitOk(state.bareDir, ["fsck", "--no-progress"]).trim(), "");
    assert.equal(gitOk(state.bareDir, ["log", "--format=%H", "main"]), gitOk(state.work, ["log", "--format=%H", "main"]));

    // Someone commits on the mirror's `feature` directly: it diverges from the source's.
    const other = path.join(g.dataDir, "other");
    gitOk(g.dataDir, ["clone", "-q", "-b", "feature", state.bareDir, other]);
    const theirs = commit(other, "x.txt", "only on the mirror");
    gitOk(other, ["push", "-q", "origin", "feature"]);
    // …and the source moves `feature` and `main`, and drops nothing yet.
    gitOk(state.work, ["checkout", "-q", "feature"]);
    const ours = commit(state.work, "e.txt", "feature moves");
    gitOk(state.work, ["checkout", "-q", "main"]);
    const main = commit(state.work, "f.txt", "main moves");

    await api("PUT", `/projects/${state.source.id}/remote_mirrors/${created.id}`, { keep_divergent_refs: true });
    const started = mirror.last_update_started_at;
    gitOk(state.work, ["push", "-q", "origin", "main", "feature"]);
    mirror = await waitForMirror(state.source.id, created.id, (m) => m.last_update_started_at !== started && ["finished", "failed"].includes(m.update_status));
    assert.equal(mirror.update_status, "failed");
    assert.equal(mirror.last_error, "Some refs have diverged and have not been updated on the remote:\n\nrefs/heads/feature");
    assert.equal(bareRefs()["refs/heads/feature"], theirs);
    assert.equal(bareRefs()["refs/heads/main"], main);

    // Without keep_divergent_refs the source wins (a forced update), and a deleted branch goes.
    await api("PUT", `/projects/${state.source.id}/remote_mirrors/${created.id}`, { keep_divergent_refs: false });
    await api("DELETE", `/projects/${state.source.id}/repository/tags/v1.0`);
    mirror = await waitForMirror(state.source.id, created.id, (m) => m.update_status === "finished" && !("refs/tags/v1.0" in bareRefs()));
    assert.equal(mirror.update_status, "finished", mirror.last_error);
    assert.equal(mirror.last_error, null);
    assert.equal(bareRefs()["refs/heads/feature"], ours);
    assert.ok(!("refs/tags/v1.0" in bareRefs()));

    // The sync endpoint queues an update at once (nothing changed: finished again, later).
    const before = mirror.last_update_started_at;
    assert.equal((await call("POST", `/projects/${state.source.id}/remote_mirrors/${created.id}/sync`)).status, 204);
    mirror = await waitForMirror(state.source.id, created.id, (m) => m.last_update_started_at !== before && m.update_status === "finished");
    assert.equal(mirror.update_status, "finished");
  });
});
