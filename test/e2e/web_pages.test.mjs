// The web pages of issues, merge requests, pipelines and jobs (functions/web) in headless Chromium,
// against Edgeforge started as `npm start` does: sign in, browse a project's files, open an issue and
// comment, follow a running job's log, merge a merge request. Along the way: axe-core finds no serious
// or critical violation on any of these page types; XSS payloads in an issue's title, description and
// note, a file name, a branch name and a user's name never run; a form POST without its CSRF token is
// refused; a private project's pages answer the HTML 404 to an outsider and to an anonymous visitor.
// Screenshots go to test-results/web/ (gitignored).
//
// Chromium is Debian's (`apt-get install chromium`), driven by playwright-core; CHROMIUM_PATH names
// another binary. Without one, the test is skipped and says why.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { chromium } from "playwright-core";
import { startServer } from "./server.mjs";

const ROOT_TOKEN = `glpat-web${randomBytes(12).toString("hex")}`;
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const SHOTS = fileURLToPath(new URL("../../test-results/web/", import.meta.url));
const PASSWORD = "web pages pass 1234";

/** Every payload sets `window.__xss` (or opens a dialog) if it ever runs. */
const xss = (n) => `<img src=x onerror="window.__xss=${n}">`;
const SCRIPT = `<script>window.__xss=99</script>`;

let dataDir;
let server;
let browser;

async function api(method, route, body, token = ROOT_TOKEN) {
  const res = await fetch(`${server.host}/api/v4${route}`, {
    method,
    headers: { "PRIVATE-TOKEN": token, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function createUser(username, name) {
  return api("POST", "/users", { username, name, email: `${username}@example.com`, password: PASSWORD, skip_confirmation: true });
}

/** A new browser context signed in as `username` through the sign-in form. */
async function signedInPage(username) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.host}/users/sign_in`);
  await page.fill('input[name="user[login]"]', username);
  await page.fill('input[name="user[password]"]', PASSWORD);
  await Promise.all([page.waitForURL(`${server.host}/`), page.click('form[action="/users/sign_in"] button[type="submit"]')]);
  return page;
}

/** Fails on any dialog, and lets the test check `window.__xss` after each page. */
function watch(page) {
  const dialogs = [];
  page.on("dialog", async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  return {
    async assertNothingRan() {
      assert.deepEqual(dialogs, [], "a dialog opened");
      assert.equal(await page.evaluate(() => window.__xss ?? null), null, "an XSS payload ran");
    },
  };
}

/** axe-core's serious and critical violations on the page now shown. */
async function axeViolations(page) {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy refuses inline scripts.
  await page.evaluate(await readFile(AXE, "utf8"));
  const result = await page.evaluate(async () => window.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

before(async () => {
  if (skip) return;
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-web-"));
  await mkdir(SHOTS, { recursive: true });
  server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: process.env.E2E_DATABASE_URL || undefined, timeoutMs: 180_000, verbose: Boolean(process.env.E2E_VERBOSE) });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
});

after(async () => {
  await browser?.close();
  await server?.stop(20_000);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("the issue, merge request and pipeline pages in a browser", { skip }, () => {
  const tag = randomBytes(3).toString("hex");
  const alice = `alice_${tag}`;
  const outsider = `outsider_${tag}`;
  const branch = `feature-"><img/src=x/onerror=window.__xss=5>`;
  const evilFile = `${xss(4).replace(/"/g, "")}.txt`;
  let project;
  let base;
  let issue;
  let mr;
  let job;
  let runner;
  let page;
  let guard;
  /** The issue made by the form: its content has no XSS payload (an `<img>` without `alt`, which axe flags in the author's text). */
  let cleanIssue;

  before(async () => {
    const user = await createUser(alice, `Alice ${xss(6)}`);
    await createUser(outsider, "Outsider");
    project = await api("POST", "/projects", { name: `web-${tag}`, visibility: "private", initialize_with_readme: false });
    await api("POST", `/projects/${project.id}/members`, { user_id: user.id, access_level: 40 });
    const aliceToken = (await api("POST", `/users/${user.id}/personal_access_tokens`, { name: "e2e", scopes: ["api"] })).token;
    await api(
      "POST",
      `/projects/${project.id}/repository/commits`,
      {
        branch: "main",
        commit_message: "Initial commit",
        actions: [
          { action: "create", file_path: "README.md", content: "# Web pages\n\nHello **world**.\n" },
          { action: "create", file_path: "src/app.js", content: "export const answer = 42;\n" },
          { action: "create", file_path: evilFile, content: "evil\n" },
          { action: "create", file_path: ".gitlab-ci.yml", content: "build:\n  script: [make]\n" },
        ],
      },
      aliceToken,
    );
    await api("POST", `/projects/${project.id}/repository/commits`, { branch, start_branch: "main", commit_message: "Change the answer [skip ci]", actions: [{ action: "update", file_path: "src/app.js", content: "export const answer = 43;\n" }] }, aliceToken);
    issue = await api("POST", `/projects/${project.id}/issues`, { title: `${SCRIPT} Broken ${xss(1)}`, description: `It is **broken** ${xss(2)} ${SCRIPT}` }, aliceToken);
    await api("POST", `/projects/${project.id}/issues/${issue.iid}/notes`, { body: `First note ${xss(3)} [link](javascript:window.__xss=7)` }, aliceToken);
    mr = await api("POST", `/projects/${project.id}/merge_requests`, { source_branch: branch, target_branch: "main", title: `Answer 43 ${xss(8)}` }, aliceToken);
    // The push of .gitlab-ci.yml made a pipeline; a runner takes its job and sends a first part of the log.
    runner = await api("POST", "/user/runners", { runner_type: "project_type", project_id: project.id, run_untagged: true, description: "e2e" });
    for (let i = 0; i < 100 && !job; i++) {
      const res = await fetch(`${server.host}/api/v4/jobs/request`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: runner.token, info: { name: "e2e" } }) });
      if (res.status === 201) job = await res.json();
      else await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(job, "the runner got no job");
    await trace(0, `\x1b[32;1m$ make\x1b[0;m\nbuilding ${xss(9)}\n`);
    base = `${server.host}/${project.path_with_namespace}`;
    page = await signedInPage(alice);
    guard = watch(page);
  });

  let traced = 0;
  async function trace(start, text) {
    const res = await fetch(`${server.host}/api/v4/jobs/${job.id}/trace`, {
      method: "PATCH",
      headers: { "JOB-TOKEN": job.token, "Content-Range": `${start}-${start + Buffer.byteLength(text) - 1}`, "Content-Type": "text/plain" },
      body: text,
    });
    assert.equal(res.status, 202);
    traced = start + Buffer.byteLength(text);
  }

  it("signs in: the header shows the user", async () => {
    assert.ok(await page.locator(`header a[href="/${alice}"]`).isVisible());
    await page.screenshot({ path: path.join(SHOTS, "signed-in.png") });
  });

  it("browses the project's files", async () => {
    await page.goto(`${base}/-/tree/main`);
    await page.click('a:has-text("src")');
    await page.click('a:has-text("app.js")');
    assert.match(await page.locator("main").innerText(), /export const answer = 42;/);
    await page.screenshot({ path: path.join(SHOTS, "blob.png") });
    await page.goto(`${base}/-/tree/main`);
    await guard.assertNothingRan();
  });

  it("opens an issue from the list and comments on it", async () => {
    await page.goto(`${base}/-/issues`);
    await page.click(`a[href$="/-/issues/${issue.iid}"]`);
    assert.match(await page.locator("h1").innerText(), /<script>window.__xss=99<\/script> Broken/);
    assert.equal(await page.locator(".md strong").first().innerText(), "broken");
    await page.fill('textarea[name="note[note]"]', "A comment from **Chromium**");
    await Promise.all([page.waitForURL(/#note_\d+$/), page.click('form.comment-form button[type="submit"]')]);
    assert.equal(await page.locator(".notes .note strong").last().innerText(), "Chromium");
    await page.screenshot({ path: path.join(SHOTS, "issue.png"), fullPage: true });
    await guard.assertNothingRan();
    const notes = await api("GET", `/projects/${project.id}/issues/${issue.iid}/notes?sort=asc`);
    assert.deepEqual(notes.map((n) => n.body).slice(-1), ["A comment from **Chromium**"]);
  });

  it("creates an issue with the new issue form", async () => {
    await page.goto(`${base}/-/issues/new`);
    await page.fill('input[name="issue[title]"]', `Made in the browser ${xss(10)}`);
    await page.fill('textarea[name="issue[description]"]', "Steps: *none*");
    await Promise.all([page.waitForURL(/\/-\/issues\/\d+$/), page.click('form[aria-label="New issue"] button[type="submit"]')]);
    assert.match(await page.locator("h1").innerText(), /Made in the browser/);
    cleanIssue = Number(/\/-\/issues\/(\d+)$/.exec(page.url())[1]);
    await guard.assertNothingRan();
  });

  it("follows a running job's log as the runner sends it", async () => {
    await page.goto(`${base}/-/pipelines`);
    await page.click(`a[href$="/-/pipelines/${job.job_info.pipeline_id}"]`);
    await page.click(`a[href$="/-/jobs/${job.id}"]`);
    const log = page.locator("#job-log");
    assert.match(await log.innerText(), /\$ make\nbuilding <img/);
    assert.equal(await page.locator("#job-status").innerText(), "running");
    await trace(traced, "step two done\n");
    await log.getByText("step two done", { exact: false }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(SHOTS, "job-log.png"), fullPage: true });
    const done = await fetch(`${server.host}/api/v4/jobs/${job.id}`, { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: job.token, state: "success" }) });
    assert.equal(done.status, 200);
    await page.locator("#job-status", { hasText: "success" }).waitFor({ timeout: 15_000 });
    await guard.assertNothingRan();
  });

  it("merges a merge request", async () => {
    await page.goto(`${base}/-/merge_requests`);
    await page.click(`a[href$="/-/merge_requests/${mr.iid}"]`);
    await page.click('a:has-text("Changes")');
    assert.match(await page.locator("pre.diff").first().innerText(), /\+export const answer = 43;/);
    await page.goBack();
    await Promise.all([page.waitForURL(new RegExp(`/-/merge_requests/${mr.iid}$`)), page.click('form.merge-form button[type="submit"]')]);
    assert.equal(await page.locator(".badge.state-merged").first().innerText(), "Merged");
    await page.screenshot({ path: path.join(SHOTS, "merged.png"), fullPage: true });
    assert.equal((await api("GET", `/projects/${project.id}/merge_requests/${mr.iid}`)).state, "merged");
    await guard.assertNothingRan();
  });

  it("has no serious or critical axe-core violation on any page type", async () => {
    const pages = [
      `${base}/-/issues`,
      `${base}/-/issues/new`,
      `${base}/-/issues/${cleanIssue}`,
      `${base}/-/merge_requests?state=all`,
      `${base}/-/merge_requests/${mr.iid}`,
      `${base}/-/merge_requests/${mr.iid}/commits`,
      `${base}/-/merge_requests/${mr.iid}/diffs`,
      `${base}/-/pipelines`,
      `${base}/-/pipelines/${job.job_info.pipeline_id}`,
      `${base}/-/jobs/${job.id}`,
    ];
    const found = {};
    for (const url of pages) {
      await page.goto(url);
      const violations = await axeViolations(page);
      if (violations.length) found[url] = violations;
    }
    assert.deepEqual(found, {});
    await guard.assertNothingRan();
  });

  it("refuses a form POST without its CSRF token", async () => {
    const res = await page.request.post(`${base}/-/issues/${issue.iid}/notes`, { form: { "note[note]": "forged" }, maxRedirects: 0 });
    assert.equal(res.status(), 422);
    const notes = await api("GET", `/projects/${project.id}/issues/${issue.iid}/notes`);
    assert.ok(!notes.some((n) => n.body === "forged"));
  });

  it("answers the HTML 404 for the private project's pages to an outsider and to an anonymous visitor", async () => {
    const anonymous = await (await browser.newContext()).newPage();
    const other = await signedInPage(outsider);
    for (const visitor of [anonymous, other]) {
      for (const url of [`${base}/-/issues`, `${base}/-/issues/${issue.iid}`, `${base}/-/merge_requests/${mr.iid}`, `${base}/-/pipelines/${job.job_info.pipeline_id}`, `${base}/-/jobs/${job.id}`]) {
        const res = await visitor.goto(url);
        assert.equal(res.status(), 404, url);
        assert.match(res.headers()["content-type"], /text\/html/);
        assert.doesNotMatch(await visitor.content(), /Broken|Answer 43/);
      }
    }
  });
});
