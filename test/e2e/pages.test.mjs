// End to end for GitLab Pages (docs/pages.md): Edgeforge started as `npm start` does, a repository pushed
// with the git CLI whose .gitlab-ci.yml has a `pages` job writing public/, the shipped shell runner
// running it, and curl reading the published site on `<namespace>.pages.localhost:<port>` (curl resolves
// `*.localhost` to loopback itself) and on a custom domain (sent as the Host header).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { runRunner } from "../../scripts/runner/runner.mjs";
import { GIT_ENV } from "./git-history.mjs";
import { freePort, startServer } from "./server.mjs";

const ROOT_TOKEN = `glpat-pages${randomBytes(12).toString("hex")}`;
const YAML = `
pages:
  script:
    - mkdir -p public/docs
    - echo "<h1>Hello from Pages</h1>" > public/index.html
    - echo "<p>docs</p>" > public/docs/index.html
    - echo "<p>gone</p>" > public/404.html
    - "printf 'body { color: green }' > public/style.css"
    - gzip -k public/style.css
  artifacts:
    paths: [public]
`;

let dataDir;
let server;
let port;

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-pages-e2e-"));
  port = await freePort();
  server = await startServer({
    dataDir: path.join(dataDir, "server"),
    rootToken: ROOT_TOKEN,
    databaseUrl: process.env.E2E_DATABASE_URL || undefined,
    port,
    timeoutMs: 180_000,
    verbose: Boolean(process.env.E2E_VERBOSE),
    // The instance's own name, so that another Host can be a custom domain.
    env: { EXTERNAL_URL: `http://127.0.0.1:${port}` },
  });
});

after(async () => {
  if (server) await server.stop(10_000);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function call(method, endpoint, body) {
  const res = await fetch(`${server.apiUrl}${endpoint}`, {
    method,
    headers: { "PRIVATE-TOKEN": ROOT_TOKEN, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

/** curl's answer: status, lower-cased headers and the raw body bytes. */
function curl(url, args = []) {
  const out = spawnSync("curl", ["-s", "-D", "-", "-o", "-", "--max-time", "20", ...args, url], { encoding: "buffer" });
  assert.equal(out.status, 0, `curl ${url}: ${out.stderr}`);
  const raw = out.stdout;
  const end = raw.indexOf("\r\n\r\n");
  const head = raw.subarray(0, end).toString("latin1").split("\r\n");
  const headers = Object.fromEntries(head.slice(1).map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
  return { status: Number(head[0].split(" ")[1]), headers, body: raw.subarray(end + 4) };
}

const git = (cwd, args) => {
  const r = spawnSync("git", ["-c", "user.name=E2E", "-c", "user.email=e2e@example.com", ...args], { cwd, encoding: "utf8", env: GIT_ENV });
  assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
};

describe("a pages job run by the shipped runner publishes a site", () => {
  it("pushes, runs the pipeline, and serves the site to curl (index, directories, 404.html, ETag, gzip, custom domain)", { timeout: 300_000 }, async () => {
    const name = `site-${randomBytes(3).toString("hex")}`;
    const project = await call("POST", "/projects", { name, visibility: "public" });
    assert.equal(project.status, 201, JSON.stringify(project.body));
    const pid = project.body.id;
    const runner = await call("POST", "/user/runners", { runner_type: "project_type", project_id: pid, description: "pages e2e" });
    assert.equal(runner.status, 201);

    const work = path.join(dataDir, "work");
    await mkdir(work, { recursive: true });
    await writeFile(path.join(work, ".gitlab-ci.yml"), YAML);
    git(work, ["init", "-q", "-b", "main"]);
    git(work, ["add", "."]);
    git(work, ["commit", "-q", "-m", "Pages site"]);
    git(work, ["push", "-q", `http://root:${ROOT_TOKEN}@127.0.0.1:${port}/${project.body.path_with_namespace}.git`, "main"]);

    let pipeline;
    for (let i = 0; i < 100 && !pipeline; i++) {
      pipeline = (await call("GET", `/projects/${pid}/pipelines`)).body[0];
      if (!pipeline) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(pipeline, "the push made a pipeline");
    // The push's pipeline is processed after its answer: the runner asks until it has run the job.
    let done;
    for (let i = 0; i < 60; i++) {
      await runRunner({ url: server.host, token: runner.body.token, once: true, buildsDir: path.join(dataDir, "builds"), tags: [] }, () => undefined);
      done = (await call("GET", `/projects/${pid}/pipelines/${pipeline.id}`)).body;
      if (!["created", "pending", "running"].includes(done.status)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    if (done.status !== "success") {
      const jobs = (await call("GET", `/projects/${pid}/pipelines/${pipeline.id}/jobs`)).body;
      console.error(JSON.stringify(done), JSON.stringify(jobs));
      if (jobs[0]) console.error((await call("GET", `/projects/${pid}/jobs/${jobs[0].id}/trace`)).body);
    }
    assert.equal(done.status, "success");

    let settings;
    for (let i = 0; i < 150; i++) {
      settings = (await call("GET", `/projects/${pid}/pages`)).body;
      if (settings.deployments?.length) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(settings.deployments.length, 1, JSON.stringify(settings));
    const [ns, projectPath] = project.body.path_with_namespace.toLowerCase().split("/");
    const site = `http://${ns}.pages.localhost:${port}/${projectPath}`;
    assert.equal(settings.url, site);

    const home = curl(`${site}/`);
    assert.equal(home.status, 200);
    assert.equal(home.headers["content-type"], "text/html; charset=utf-8");
    assert.equal(home.body.toString(), "<h1>Hello from Pages</h1>\n");
    assert.equal(curl(`${site}/`, ["-H", `If-None-Match: ${home.headers.etag}`]).status, 304);
    const docs = curl(`${site}/docs`);
    assert.equal(docs.status, 302);
    assert.equal(docs.headers.location, `/${projectPath}/docs/`);
    assert.equal(curl(`${site}/docs/`).body.toString(), "<p>docs</p>\n");
    const missing = curl(`${site}/missing`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.toString(), "<p>gone</p>\n");

    const gz = curl(`${site}/style.css`, ["-H", "Accept-Encoding: gzip"]);
    assert.equal(gz.headers["content-encoding"], "gzip");
    assert.equal(gz.headers["content-type"], "text/css; charset=utf-8");
    assert.deepEqual([...gz.body.subarray(0, 2)], [0x1f, 0x8b]);
    assert.equal(curl(`${site}/style.css`, ["--compressed"]).body.toString(), "body { color: green }");

    // A custom domain: served once verification is off (the instance setting), as its Host.
    const domain = `www.${name}.example.test`;
    assert.equal((await call("POST", `/projects/${pid}/pages/domains`, { domain })).status, 201);
    const viaDomain = () => curl(`http://127.0.0.1:${port}/`, ["-H", `Host: ${domain}`]);
    assert.notEqual(viaDomain().body.toString(), "<h1>Hello from Pages</h1>\n", "an unverified domain is not served");
    assert.equal((await call("PUT", "/application/settings", { pages_domain_verification_enabled: false })).status, 200);
    const custom = viaDomain();
    assert.equal(custom.status, 200);
    assert.equal(custom.body.toString(), "<h1>Hello from Pages</h1>\n");
    // The instance's own host is still the instance.
    assert.equal(curl(`http://127.0.0.1:${port}/api/v4/version`, ["-H", `PRIVATE-TOKEN: ${ROOT_TOKEN}`]).status, 200);
  });
});
