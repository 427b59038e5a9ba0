// End to end for CI (CI.md §9, issue 12 item 5): Edgeforge started as `npm start` does, a two-stage
// pipeline with needs, rules, artifacts, dependencies, a JUnit report, allow_failure, when: manual and a
// retried job, run by the runner we ship (scripts/runner/runner.mjs, shell executor).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { runRunner } from "../../scripts/runner/runner.mjs";
import { startServer } from "./server.mjs";

const ROOT_TOKEN = `glpat-e2e${randomBytes(12).toString("hex")}`;
const YAML = `
stages: [build, test, deploy]
variables:
  GREETING: hello
build:
  stage: build
  script:
    - echo "$GREETING from $CI_JOB_NAME on $CI_COMMIT_REF_NAME ($CI_PIPELINE_SOURCE)"
    - mkdir -p out && echo built > out/result.txt
    - printf '<testsuite name="s"><testcase classname="A" name="ok" time="0.2"/><testcase classname="A" name="bad"><failure message="no">boom</failure></testcase></testsuite>' > report.xml
  artifacts:
    paths: [out/]
    reports:
      junit: report.xml
flaky:
  stage: build
  script: [test -f retried-marker || exit 4]
  allow_failure: true
skipped:
  stage: build
  script: [echo never]
  rules:
    - if: '$CI_PIPELINE_SOURCE == "schedule"'
test:
  stage: test
  needs: [build]
  dependencies: [build]
  script: [cat out/result.txt, 'test "$(cat out/result.txt)" = built']
deploy:
  stage: deploy
  when: manual
  script: [echo deploying]
`;

let dataDir;
let buildsDir;
let server;

async function call(method, route, body) {
  const res = await fetch(`${server.host}/api/v4${route}`, {
    method,
    headers: { "PRIVATE-TOKEN": ROOT_TOKEN, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-ci-e2e-"));
  buildsDir = path.join(dataDir, "builds");
  server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: process.env.E2E_DATABASE_URL || undefined, timeoutMs: 90_000, verbose: Boolean(process.env.E2E_VERBOSE) });
});

after(async () => {
  if (server) await server.stop(10_000);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("a pipeline run by the shipped shell runner", () => {
  it("runs build and test, reports JUnit, keeps the manual job, retries a job", { timeout: 240_000 }, async () => {
    const project = await call("POST", "/projects", { name: `ci-e2e-${Date.now()}` });
    assert.equal(project.status, 201, JSON.stringify(project.body));
    const pid = project.body.id;
    const commit = await call("POST", `/projects/${pid}/repository/commits`, {
      branch: "main",
      commit_message: "CI [skip ci]",
      actions: [{ action: "create", file_path: ".gitlab-ci.yml", content: YAML }],
    });
    assert.equal(commit.status, 201, JSON.stringify(commit.body));
    const runner = await call("POST", "/user/runners", { runner_type: "project_type", project_id: pid, description: "e2e" });
    assert.equal(runner.status, 201);
    const pipeline = await call("POST", `/projects/${pid}/pipeline`, { ref: "main" });
    assert.equal(pipeline.status, 201, JSON.stringify(pipeline.body));
    assert.equal(pipeline.body.status, "pending");

    const opts = { url: server.host, token: runner.body.token, once: true, buildsDir, tags: [] };
    const quiet = () => undefined;
    for (let i = 0; i < 3; i++) await runRunner(opts, quiet); // build, flaky, test

    const jobs = (await call("GET", `/projects/${pid}/pipelines/${pipeline.body.id}/jobs`)).body;
    const byName = Object.fromEntries(jobs.map((j) => [j.name, j]));
    assert.deepEqual(Object.keys(byName).sort(), ["build", "deploy", "flaky", "test"]);
    for (const j of jobs) if (j.status === "failed" && j.name !== "flaky") console.error(j.name, (await call("GET", `/projects/${pid}/jobs/${j.id}/trace`)).body);
    assert.equal(byName.build.status, "success");
    assert.equal(byName.test.status, "success");
    assert.equal(byName.flaky.status, "failed");
    assert.equal(byName.flaky.allow_failure, true);
    assert.equal(byName.deploy.status, "manual");
    const done = (await call("GET", `/projects/${pid}/pipelines/${pipeline.body.id}`)).body;
    assert.equal(done.status, "success");

    const trace = (await call("GET", `/projects/${pid}/jobs/${byName.build.id}/trace`)).body;
    assert.match(trace, /hello from build on main \(api\)/);
    assert.match(trace, /Job succeeded/);
    const artifact = await fetch(`${server.host}/api/v4/projects/${pid}/jobs/${byName.build.id}/artifacts/out/result.txt`, { headers: { "PRIVATE-TOKEN": ROOT_TOKEN } });
    assert.equal(await artifact.text(), "built\n");
    const report = (await call("GET", `/projects/${pid}/pipelines/${pipeline.body.id}/test_report`)).body;
    assert.equal(report.total_count, 2);
    assert.equal(report.failed_count, 1);
    assert.equal(report.test_suites[0].name, "build");

    const retried = await call("POST", `/projects/${pid}/jobs/${byName.flaky.id}/retry`);
    assert.equal(retried.status, 201);
    await runRunner(opts, quiet);
    const after = (await call("GET", `/projects/${pid}/pipelines/${pipeline.body.id}/jobs`, undefined)).body;
    assert.equal(after.find((j) => j.name === "flaky").status, "failed");
    const all = (await call("GET", `/projects/${pid}/pipelines/${pipeline.body.id}/jobs?include_retried=true`)).body;
    assert.equal(all.filter((j) => j.name === "flaky").length, 2);
  });
});
