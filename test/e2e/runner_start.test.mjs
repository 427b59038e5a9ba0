// `npm start` with RUNNER=shell: the server starts the shipped shell runner beside the
// Worker, registered as an instance runner with the root token and kept in DATA_DIR/runner/token; a push
// with a .gitlab-ci.yml runs to success without anything else started.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startServer, apiCall } from "./server.mjs";

const ROOT_TOKEN = `glpat-e2e${randomBytes(12).toString("hex")}`;
let dataDir;
let server;

const call = (method, route, body) => apiCall(server.host, ROOT_TOKEN, method, route, body);

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-runner-start-"));
  server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: process.env.E2E_DATABASE_URL || undefined, timeoutMs: 300_000, verbose: Boolean(process.env.E2E_VERBOSE), env: { RUNNER: "shell" } });
});

after(async () => {
  if (server) await server.stop(10_000);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("npm start with RUNNER=shell", () => {
  it("starts the shell runner, which runs a pushed pipeline to success", { timeout: 180_000 }, async () => {
    assert.match(server.output(), /shell runner started/);
    const tokenFile = path.join(dataDir, "runner", "token");
    assert.ok(existsSync(tokenFile));
    assert.match(readFileSync(tokenFile, "utf8"), /^glrt-/);
    const runners = (await call("GET", "/runners/all")).body;
    assert.ok(runners.some((r) => r.description === "npm start shell runner" && r.runner_type === "instance_type"), JSON.stringify(runners));

    const project = await call("POST", "/projects", { name: `runner-start-${randomBytes(3).toString("hex")}` });
    assert.equal(project.status, 201, JSON.stringify(project.body));
    const pid = project.body.id;
    const commit = await call("POST", `/projects/${pid}/repository/commits`, {
      branch: "main",
      commit_message: "CI",
      actions: [{ action: "create", file_path: ".gitlab-ci.yml", content: "hello:\n  script:\n    - test -d .git\n    - echo \"ran $CI_COMMIT_SHORT_SHA\"\n" }],
    });
    assert.equal(commit.status, 201, JSON.stringify(commit.body));
    let pipeline;
    const deadline = Date.now() + 150_000;
    while (Date.now() < deadline) {
      [pipeline] = (await call("GET", `/projects/${pid}/pipelines`)).body;
      if (pipeline && ["success", "failed", "canceled"].includes(pipeline.status)) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const [job] = (await call("GET", `/projects/${pid}/pipelines/${pipeline.id}/jobs`)).body;
    const trace = (await call("GET", `/projects/${pid}/jobs/${job.id}/trace`)).body;
    assert.equal(pipeline.status, "success", trace);
    assert.equal(pipeline.source, "push");
    assert.match(trace, new RegExp(`ran ${commit.body.short_id}`));
    assert.equal(job.runner?.description, "npm start shell runner");
  });
});
