// End to end for the npm registry: starts Edgeforge as `npm start` does and runs
// the real npm CLI against a project's registry, with the token in an `.npmrc`: `npm publish` of a
// scoped package, `npm install` of it into another folder, a second publish of the same version refused,
// and the package, its dist-tag and its file (sha1 = the shasum npm verified) seen through the REST API;
// then a CI job publishes with its job token as `_authToken`, and the package records the job's pipeline.
// E2E_DATABASE_URL uses that Postgres instead of PGlite; E2E_VERBOSE=1 shows the server's output.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { startServer, requiredApiCall } from "./server.mjs";

const run = promisify(execFile);
const ROOT_TOKEN = `glpat-npm${randomBytes(12).toString("hex")}`;
const RUN = `npm${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
const STEP = { timeout: 90_000 };

let dataDir;
let work;
let server;
const state = {};

function api(method, route, body) {
  return requiredApiCall(server.apiUrl, ROOT_TOKEN, method, route, body);
}

/** The npm CLI in `cwd` with only our `.npmrc` (no user or global config) and its own cache. */
function npm(cwd, args) {
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    npm_config_userconfig: path.join(work, ".npmrc"),
    npm_config_globalconfig: path.join(work, "global.npmrc"),
    npm_config_cache: path.join(work, "cache"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  };
  return run("npm", args, { cwd, env, timeout: 80_000 });
}

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-npm-"));
  work = await mkdtemp(path.join(os.tmpdir(), "edgeforge-npm-work-"));
  server = await startServer({
    dataDir,
    rootToken: ROOT_TOKEN,
    databaseUrl: process.env.E2E_DATABASE_URL || undefined,
    timeoutMs: 90_000,
    verbose: Boolean(process.env.E2E_VERBOSE),
  });
});

after(async () => {
  if (server) await server.stop(10_000);
  for (const dir of [dataDir, work]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the npm CLI against a project's registry", { timeout: 300_000 }, () => {
  it("publishes a scoped package with npm publish", STEP, async () => {
    const project = await api("POST", "/projects", { name: RUN });
    state.project = project;
    const registry = `${server.apiUrl}/projects/${project.id}/packages/npm/`;
    const hostPath = registry.replace(/^http:/, "");
    await writeFile(path.join(work, ".npmrc"), `@edge:registry=${registry}\n${hostPath}:_authToken=${ROOT_TOKEN}\n`);
    await writeFile(path.join(work, "global.npmrc"), "");
    const pkg = path.join(work, "hello");
    await mkdir(pkg);
    await writeFile(path.join(pkg, "package.json"), JSON.stringify({ name: "@edge/hello", version: "1.0.0", main: "index.js", license: "MIT" }));
    await writeFile(path.join(pkg, "index.js"), `module.exports = () => "hello from ${RUN}";\n`);
    await npm(pkg, ["publish"]);
  });

  it("installs it with npm install and runs it", STEP, async () => {
    const app = path.join(work, "app");
    await mkdir(app);
    await writeFile(path.join(app, "package.json"), JSON.stringify({ name: "app", version: "0.0.0", private: true, dependencies: { "@edge/hello": "^1.0.0" } }));
    await npm(app, ["install"]);
    const { stdout } = await run(process.execPath, ["-e", 'process.stdout.write(require("@edge/hello")())'], { cwd: app });
    assert.equal(stdout, `hello from ${RUN}`);
    const lock = JSON.parse(await readFile(path.join(app, "package-lock.json"), "utf8"));
    const entry = lock.packages["node_modules/@edge/hello"];
    assert.equal(entry.version, "1.0.0");
    assert.match(entry.resolved, new RegExp(`/api/v4/projects/${state.project.id}/packages/npm/`));
    assert.match(entry.integrity, /^sha512-/);
    state.tarball = await (await fetch(entry.resolved, { headers: { Authorization: `Bearer ${ROOT_TOKEN}` } })).arrayBuffer();
  });

  it("refuses to publish the same version twice", STEP, async () => {
    await assert.rejects(npm(path.join(work, "hello"), ["publish"]), (error) => /403|already exists|cannot publish over the previously published/i.test(String(error.stderr)));
  });

  it("shows the package, its dist-tag and its file through the REST API", STEP, async () => {
    const [pkg] = await api("GET", `/projects/${state.project.id}/packages?package_type=npm`);
    assert.equal(pkg.name, "@edge/hello");
    assert.equal(pkg.version, "1.0.0");
    assert.deepEqual(pkg.tags.map((t) => t.name), ["latest"]);
    const [file] = await api("GET", `/projects/${state.project.id}/packages/${pkg.id}/package_files`);
    assert.equal(file.file_name, "@edge/hello-1.0.0.tgz");
    assert.equal(file.size, state.tarball.byteLength);
    assert.equal(file.file_sha1, createHash("sha1").update(Buffer.from(state.tarball)).digest("hex"));
    assert.equal(file.file_sha256, createHash("sha256").update(Buffer.from(state.tarball)).digest("hex"));
    assert.equal(file.file_md5, createHash("md5").update(Buffer.from(state.tarball)).digest("hex"));
  });

  it("publishes from a CI job with the job token in .npmrc, and the package records the job's pipeline", STEP, async () => {
    const projectId = state.project.id;
    await api("POST", `/projects/${projectId}/repository/commits`, {
      branch: "main",
      commit_message: "Add CI [skip ci]",
      actions: [{ action: "create", file_path: ".gitlab-ci.yml", content: "publish:\n  script: npm publish\n" }],
    });
    const runner = await api("POST", "/user/runners", { runner_type: "project_type", project_id: projectId, run_untagged: true });
    const pipeline = await api("POST", `/projects/${projectId}/pipeline`, { ref: "main" });
    // The runner's side of the job: POST /jobs/request answers the job and its CI job token.
    let job = null;
    for (let i = 0; i < 100 && !job; i++) {
      const res = await fetch(`${server.apiUrl}/jobs/request`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ token: runner.token, info: { name: "e2e" } }),
      });
      if (res.status === 201) job = await res.json();
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.ok(job, "the runner got no job");
    assert.equal(job.job_info.pipeline_id, pipeline.id);
    // What a job's script does: `_authToken=${CI_JOB_TOKEN}`.
    const registry = `${server.apiUrl}/projects/${projectId}/packages/npm/`;
    await writeFile(path.join(work, ".npmrc"), `@edge:registry=${registry}\n${registry.replace(/^http:/, "")}:_authToken=${job.token}\n`);
    const pkg = path.join(work, "hello");
    const manifest = JSON.parse(await readFile(path.join(pkg, "package.json"), "utf8"));
    await writeFile(path.join(pkg, "package.json"), JSON.stringify({ ...manifest, version: "1.1.0" }));
    await npm(pkg, ["publish"]);
    const finished = await fetch(`${server.apiUrl}/jobs/${job.id}`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token: job.token, state: "success" }),
    });
    assert.equal(finished.status, 200);

    const published = (await api("GET", `/projects/${projectId}/packages?package_type=npm`)).find((p) => p.version === "1.1.0");
    assert.equal(published.pipeline.id, pipeline.id);
    assert.equal(published.pipeline.user.username, "root");
    assert.deepEqual((await api("GET", `/projects/${projectId}/packages/${published.id}/pipelines`)).map((p) => p.id), [pipeline.id]);
    // The finished job's token publishes nothing more.
    await writeFile(path.join(pkg, "package.json"), JSON.stringify({ ...manifest, version: "1.2.0" }));
    await assert.rejects(npm(pkg, ["publish"]), (error) => /401|E401|unauthorized/i.test(String(error.stderr)));
  });
});
