// The web front's shell and repository pages (functions/web) in headless Chromium, against Edgeforge
// started as `npm start` does: sign in with the form, browse a project's files (tree → highlighted blob),
// a commit's diff, create and revoke a personal access token, axe-core on every page type of the shell,
// XSS payloads in a file name, a branch name and a user's name that never run, and a private project's
// pages that answer the HTML 404 to an outsider and to an anonymous visitor. Screenshots go to
// test-results/web_shell/ (gitignored).
//
// Chromium is Debian's (`apt-get install chromium`), driven by playwright-core; CHROMIUM_PATH names
// another binary. Without one, the test is skipped and says why.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { apiCall, startServer } from "./server.mjs";

const ROOT_TOKEN = `glpat-web${randomBytes(12).toString("hex")}`;
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
const SHOTS = fileURLToPath(new URL("../../test-results/web_shell/", import.meta.url));
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

const PASSWORD = "Str0ng-web-password!";
const tag = randomBytes(3).toString("hex");
/** Payloads that set `window.__xss` if they ever run. */
const XSS_NAME = `Alice <img src=x onerror="window.__xss='name'">`;
const XSS_FILE = `"><img src=x onerror=window.__xss=1>.txt`;
const XSS_BRANCH = `b"><svg/onload=window.__xss=2>`;

let dataDir;
let server;
let browser;
let alice;
let bob;
let project;
let privateProject;
let group;

async function api(method, route, body, token = ROOT_TOKEN) {
  const res = await apiCall(server.host, token, method, route, body);
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function makeUser(username, name) {
  const user = await api("POST", "/users", { username, name, email: `${username}@example.com`, password: PASSWORD, skip_confirmation: true });
  const token = await api("POST", `/users/${user.id}/personal_access_tokens`, { name: "setup", scopes: ["api"] });
  return { ...user, token: token.token };
}

before(async () => {
  if (skip) return;
  mkdirSync(SHOTS, { recursive: true });
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-web-"));
  server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: process.env.E2E_DATABASE_URL || undefined, timeoutMs: 180_000, verbose: Boolean(process.env.E2E_VERBOSE) });
  alice = await makeUser(`alice_${tag}`, XSS_NAME);
  bob = await makeUser(`bob_${tag}`, "Bob Outsider");
  group = await api("POST", "/groups", { name: `web-${tag}`, path: `web-${tag}`, visibility: "public" });
  await api("POST", `/groups/${group.id}/members`, { user_id: alice.id, access_level: 50 });
  project = await api("POST", "/projects", { name: "shop", namespace_id: group.id, visibility: "public", description: "A shop" }, alice.token);
  const actions = [
    { action: "create", file_path: "README.md", content: "# Shop\n\nThe **shop** service.\n" },
    { action: "create", file_path: "src/main.py", content: "def main():\n    return 42\n" },
    { action: "create", file_path: XSS_FILE, content: "payload\n" },
  ];
  await api("POST", `/projects/${project.id}/repository/commits`, { branch: "main", commit_message: "Initial commit", actions }, alice.token);
  await api("POST", `/projects/${project.id}/repository/commits`, {
    branch: "main",
    commit_message: "Answer differently",
    actions: [{ action: "update", file_path: "src/main.py", content: "def main():\n    return 43\n" }],
  }, alice.token);
  await api("POST", `/projects/${project.id}/repository/branches`, { branch: XSS_BRANCH, ref: "main" }, alice.token);
  privateProject = await api("POST", "/projects", { name: "secret", visibility: "private", initialize_with_readme: true }, alice.token);
  // --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
});

after(async () => {
  await browser?.close();
  await server?.stop(20_000);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function signIn(context, user) {
  const page = await context.newPage();
  await page.goto(`${server.host}/users/sign_in`);
  await page.fill("#user_login", user.username);
  await page.fill("#user_password", PASSWORD);
  await Promise.all([page.waitForURL(`${server.host}/`), page.click("button[type=submit]")]);
  return page;
}

/** axe-core's serious and critical violations on the page, as `rule: target` lines. */
async function axeViolations(page) {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy refuses inline scripts.
  await page.evaluate(await readFile(AXE, "utf8"));
  const result = await page.evaluate(async () => await window.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")}`));
}

describe("the web front in a browser", { skip }, () => {
  it("signs in with the form and shows the signed-in header", async () => {
    const context = await browser.newContext();
    const page = await signIn(context, alice);
    assert.equal(await page.locator(`header a[href="/${alice.username}"]`).count(), 1);
    const cookie = (await context.cookies()).find((c) => c.name === "_edgeforge_session");
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, "Lax");
    await page.screenshot({ path: path.join(SHOTS, "dashboard.png"), fullPage: true });
    await context.close();
  });

  it("browses the files: project page → tree → highlighted blob", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.host}/${project.path_with_namespace}`);
    assert.match(await page.locator("#readme ~ .md").innerHTML(), /<strong>shop<\/strong>/);
    assert.equal(await page.inputValue("#clone-url"), `${server.host}/${project.path_with_namespace}.git`);
    await page.screenshot({ path: path.join(SHOTS, "project.png"), fullPage: true });
    await page.click('p >> a:text-is("Files")');
    await page.click('a:text-is("src/")');
    assert.match(page.url(), /\/-\/tree\/main\/src$/);
    await page.click('a:text-is("main.py")');
    assert.match(page.url(), /\/-\/blob\/main\/src\/main\.py$/);
    await page.locator("code.hljs .hljs-keyword").first().waitFor({ timeout: 10_000 });
    assert.equal(await page.locator("code.hljs .hljs-keyword").first().innerText(), "def");
    await page.screenshot({ path: path.join(SHOTS, "blob.png"), fullPage: true });
    await context.close();
  });

  it("opens a commit's diff from the history", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.host}/${project.path_with_namespace}/-/commits/main`);
    await page.click('a:text-is("Answer differently")');
    assert.match(page.url(), /\/-\/commit\/[0-9a-f]{40}$/);
    assert.deepEqual(await page.locator("tr.del td").allInnerTexts(), ["-    return 42"]);
    assert.deepEqual(await page.locator("tr.add td").allInnerTexts(), ["+    return 43"]);
    await page.screenshot({ path: path.join(SHOTS, "commit.png"), fullPage: true });
    await context.close();
  });

  it("creates a personal access token that the API accepts, then revokes it", async () => {
    const context = await browser.newContext();
    const page = await signIn(context, alice);
    await page.goto(`${server.host}/-/user_settings/personal_access_tokens`);
    await page.fill("#token_name", "from the browser");
    await page.check("#scope_read_api");
    await page.click('button:text-is("Create personal access token")');
    const value = await page.inputValue("#created-token");
    assert.match(value, /^glpat-/);
    const me = await apiCall(server.host, value, "GET", "/user");
    assert.equal(me.status, 200);
    assert.equal(me.body.username, alice.username);
    await page.screenshot({ path: path.join(SHOTS, "tokens.png"), fullPage: true });
    await page.click('button[aria-label="Revoke from the browser"]');
    await page.waitForURL(`${server.host}/-/user_settings/personal_access_tokens`);
    assert.equal(await page.locator('button[aria-label="Revoke from the browser"]').count(), 0);
    assert.equal((await apiCall(server.host, value, "GET", "/user")).status, 401);
    await context.close();
  });

  it("refuses a form posted without its CSRF token", async () => {
    const res = await fetch(`${server.host}/users/sign_in`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ "user[login]": alice.username, "user[password]": PASSWORD }),
      redirect: "manual",
    });
    assert.equal(res.status, 422);
    assert.ok(!(res.headers.get("set-cookie") ?? "").includes("_edgeforge_session="));
  });

  it("never runs the payloads of a file name, a branch name or a user's name", async () => {
    const context = await browser.newContext();
    const page = await signIn(context, alice);
    const dialogs = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      d.dismiss();
    });
    const branchPath = XSS_BRANCH.split("/").map(encodeURIComponent).join("/");
    const pages = [
      `/${project.path_with_namespace}`,
      `/${project.path_with_namespace}/-/tree/main`,
      `/${project.path_with_namespace}/-/blob/main/${encodeURIComponent(XSS_FILE)}`,
      `/${project.path_with_namespace}/-/tree/${branchPath}`,
      `/${project.path_with_namespace}/-/commits/${branchPath}`,
      `/${alice.username}`,
      "/",
    ];
    for (const url of pages) {
      const res = await page.goto(`${server.host}${url}`);
      assert.equal(res.status(), 200, url);
      assert.equal(await page.evaluate(() => window.__xss), undefined, url);
      assert.equal(await page.locator("[onerror], [onload]").count(), 0, url);
    }
    await page.goto(`${server.host}/${project.path_with_namespace}/-/tree/main`);
    assert.equal(await page.locator(`a:text-is(${JSON.stringify(XSS_FILE)})`).count(), 1);
    await page.goto(`${server.host}/${alice.username}`);
    assert.equal(await page.locator("h1").innerText(), XSS_NAME);
    assert.deepEqual(dialogs, []);
    await context.close();
  });

  it("answers the HTML 404 for a private project to an anonymous visitor and an outsider", async () => {
    const paths = [`/${privateProject.path_with_namespace}`, `/${privateProject.path_with_namespace}/-/tree/main`, `/${privateProject.path_with_namespace}/-/blob/main/README.md`];
    const anonymous = await browser.newContext();
    const outsider = await browser.newContext();
    const bobPage = await signIn(outsider, bob);
    const anonPage = await anonymous.newPage();
    for (const url of paths) {
      for (const page of [anonPage, bobPage]) {
        const res = await page.goto(`${server.host}${url}`);
        assert.equal(res.status(), 404, url);
        assert.equal(await page.locator("h1").innerText(), "404: Page not found");
      }
    }
    const owner = await signIn(await browser.newContext(), alice);
    assert.equal((await owner.goto(`${server.host}/${privateProject.path_with_namespace}`)).status(), 200);
    await anonymous.close();
    await outsider.close();
  });

  it("has no serious or critical axe-core violation on any page type of the shell", async () => {
    const anonymous = await (await browser.newContext()).newPage();
    const signedIn = await signIn(await browser.newContext(), alice);
    const p = project.path_with_namespace;
    const cases = [
      [anonymous, "/"],
      [anonymous, "/users/sign_in"],
      [anonymous, "/explore/projects"],
      [anonymous, `/${p}`],
      [anonymous, `/${p}/-/tree/main/src`],
      [anonymous, `/${p}/-/blob/main/src/main.py`],
      [anonymous, `/${p}/-/commits/main`],
      [anonymous, `/${group.full_path}`],
      [anonymous, `/${alice.username}`],
      [anonymous, "/no/such/page"],
      [signedIn, "/"],
      [signedIn, "/-/user_settings/personal_access_tokens"],
    ];
    const commit = await api("GET", `/projects/${project.id}/repository/commits/main`);
    cases.push([anonymous, `/${p}/-/commit/${commit.id}`]);
    const found = [];
    for (const [page, url] of cases) {
      await page.goto(`${server.host}${url}`);
      for (const v of await axeViolations(page)) found.push(`${url} ${v}`);
    }
    assert.deepEqual(found, []);
  });
});
