// End to end for CI (docs/ci.md, "The shipped runner"): Edgeforge started as `npm start` does, a two-stage
// pipeline with needs, rules, artifacts, dependencies, a JUnit report, allow_failure, when: manual and a
// retried job, run by the runner we ship (scripts/runner/runner.mjs, shell executor).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { runRunner } from "../../scripts/runner/runner.mjs";
import { gitServer } from "./git-server.mjs";

const g = gitServer("ci", { timeoutMs: 300_000 });
const { call, newUser, rootToken: ROOT_TOKEN } = g;
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

before(async () => {
  await g.start();
  ({ dataDir, server } = g);
  buildsDir = path.join(dataDir, "builds");
});

after(() => g.stop());

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

async function projectWithReadme(owner, name) {
  const project = await call("POST", "/projects", { name: `${name}-${randomBytes(3).toString("hex")}`, visibility: "private" }, owner.token);
  assert.equal(project.status, 201, JSON.stringify(project.body));
  const commit = await call("POST", `/projects/${project.body.id}/repository/commits`, {
    branch: "main",
    commit_message: "readme",
    actions: [{ action: "create", file_path: "README.md", content: `${name}\n` }],
  }, owner.token);
  assert.equal(commit.status, 201, JSON.stringify(commit.body));
  return project.body;
}

const git = (cwd, args) => spawnSync("git", ["-c", "protocol.version=2", ...args], { cwd, encoding: "utf8", env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } });

describe("the shell runner fetches sources by git clone with the job token (user gitlab-ci-token)", () => {
  it("checks out the pipeline's commit; the token reads what its user may read, never pushes, and dies with the job", { timeout: 240_000 }, async () => {
    const dev = await newUser("dev");
    const other = await newUser("other");
    const secret = await projectWithReadme(other, "secret");
    const shared = await projectWithReadme(other, "shared");
    assert.equal((await call("POST", `/projects/${shared.id}/members`, { user_id: dev.id, access_level: 20 }, other.token)).status, 201);
    const host = new URL(server.host).host;
    const repo = (fullPath) => `http://gitlab-ci-token:\${CI_JOB_TOKEN}@${host}/${fullPath}.git`;
    const yaml = `
clone:
  script:
    - test -d .git
    - echo "HEAD $(git rev-parse HEAD) SHA $CI_COMMIT_SHA"
    - test "$(git rev-parse HEAD)" = "$CI_COMMIT_SHA"
    - git log -1 --format=%s
    - cat app.txt
    - printf '%s' "$CI_JOB_TOKEN" > "$CI_BUILDS_DIR/token-$CI_JOB_ID"
    - if git clone -q "${repo(secret.path_with_namespace)}" secret 2> secret.err; then echo SECRET-CLONED; else echo SECRET-REFUSED; cat secret.err; fi
    - git clone -q "${repo(shared.path_with_namespace)}" shared && cat shared/README.md
    - git -c user.name=ci -c user.email=ci@example.com commit -q --allow-empty -m "from the job"
    - if git push -q origin HEAD:refs/heads/from-job 2> push.err; then echo PUSHED; else echo PUSH-REFUSED; cat push.err; fi
`;
    const project = await call("POST", "/projects", { name: `ci-clone-${randomBytes(3).toString("hex")}`, visibility: "private" }, dev.token);
    assert.equal(project.status, 201, JSON.stringify(project.body));
    const pid = project.body.id;
    const first = await call("POST", `/projects/${pid}/repository/commits`, {
      branch: "main",
      commit_message: "CI [skip ci]",
      actions: [{ action: "create", file_path: ".gitlab-ci.yml", content: yaml }, { action: "create", file_path: "app.txt", content: "version one\n" }],
    }, dev.token);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    // A second commit: the job must check out this one, not the first.
    const second = await call("POST", `/projects/${pid}/repository/commits`, {
      branch: "main",
      commit_message: "version two [skip ci]",
      actions: [{ action: "update", file_path: "app.txt", content: "version two\n" }],
    }, dev.token);
    assert.equal(second.status, 201, JSON.stringify(second.body));
    const runner = await call("POST", "/user/runners", { runner_type: "project_type", project_id: pid, description: "clone" }, dev.token);
    assert.equal(runner.status, 201, JSON.stringify(runner.body));
    const pipeline = await call("POST", `/projects/${pid}/pipeline`, { ref: "main" }, dev.token);
    assert.equal(pipeline.status, 201, JSON.stringify(pipeline.body));
    assert.equal(pipeline.body.sha, second.body.id);

    const opts = { url: server.host, token: runner.body.token, once: true, buildsDir, tags: [] };
    assert.equal((await runRunner(opts, () => undefined)).jobs, 1);
    const [job] = (await call("GET", `/projects/${pid}/pipelines/${pipeline.body.id}/jobs`, undefined, dev.token)).body;
    const trace = (await call("GET", `/projects/${pid}/jobs/${job.id}/trace`, undefined, dev.token)).body;
    assert.equal(job.status, "success", trace);
    assert.match(trace, /Fetching changes with git depth set to 20\.\.\./);
    assert.match(trace, new RegExp(`Checking out ${second.body.id.slice(0, 8)} as main\\.\\.\\.`));
    assert.match(trace, new RegExp(`HEAD ${second.body.id} SHA ${second.body.id}`));
    assert.match(trace, /^version two \[skip ci\]$/m);
    assert.match(trace, /^version two$/m);
    // A private project of someone else: refused as if it did not exist.
    assert.match(trace, /^SECRET-REFUSED$/m);
    assert.doesNotMatch(trace, /^SECRET-CLONED$/m);
    assert.match(trace, /could not be found or you don't have permission to view it/);
    // A project where the job's user is a reporter: read.
    assert.match(trace, /^shared$/m);
    // The job token never pushes (GitLab's auth_upload).
    assert.match(trace, /^PUSH-REFUSED$/m);
    assert.doesNotMatch(trace, /^PUSHED$/m);
    assert.match(trace, /You are not allowed to upload code\./);
    // The token is masked in the trace, and it no longer clones once the job has finished.
    const token = readFileSync(path.join(buildsDir, `token-${job.id}`), "utf8");
    assert.ok(token.length > 10);
    assert.ok(!trace.includes(token));
    const after = git(dataDir, ["ls-remote", `http://gitlab-ci-token:${token}@${host}/${project.body.path_with_namespace}.git`]);
    assert.notEqual(after.status, 0);
    assert.match(after.stderr, /Authentication failed|Access denied/);
    const refs = await fetch(`${server.host}/${project.body.path_with_namespace}.git/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`gitlab-ci-token:${token}`).toString("base64")}`, "Git-Protocol": "version=2" },
    });
    assert.equal(refs.status, 401);
    // The job's working tree is a clone: its .git holds the pipeline's commit, under the job's own commit.
    const workTree = path.join(buildsDir, String(job.id));
    assert.equal(git(workTree, ["rev-parse", "HEAD~1"]).stdout.trim(), second.body.id);
    assert.match(git(workTree, ["remote", "get-url", "origin"]).stdout, new RegExp(`^http://gitlab-ci-token:[^@]+@${host}/${project.body.path_with_namespace}\\.git$`, "m"));
  });
});
