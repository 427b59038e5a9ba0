// A project's wiki pages (functions/web/wikis.tsx) in headless Chromium, against Edgeforge started as
// `npm start` does: a page with a table, a task list and a reference `#1` shows them from the DOM; the
// `<script>` and `<img onerror>` of another page's source never run (each would call the page's
// `pwned` binding, or set `window.__xss`); axe-core finds no serious or critical violation on the wiki
// page, the pages list and the missing page; a private project's wiki is the HTML 404 to an anonymous
// visitor. Screenshots go to test-results/web_wiki/ (gitignored).
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
import { requiredApiCall, startServer } from "./server.mjs";

const ROOT_TOKEN = `glpat-wiki${randomBytes(12).toString("hex")}`;
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const SHOTS = fileURLToPath(new URL("../../test-results/web_wiki/", import.meta.url));

const RELEASE_NOTES = `# Release notes

| Feature | State |
|---------|:-----:|
| Tables  | done  |

- [x] write the renderer
- [ ] ship it

Fixes #1
`;

const EVIL = `Before

<script>pwned("script"); window.__xss = 1</script>

<img src=x onerror="pwned('onerror'); window.__xss = 2">

After
`;

let dataDir;
let server;
let browser;
const api = (method, route, body) => requiredApiCall(`${server.host}/api/v4`, ROOT_TOKEN, method, route, body);

/** axe-core's serious and critical violations on the page now shown. */
async function axeViolations(page) {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy refuses inline scripts.
  await page.evaluate(await readFile(AXE, "utf8"));
  const result = await page.evaluate(async () => window.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

before(async () => {
  if (skip) return;
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-wiki-"));
  await mkdir(SHOTS, { recursive: true });
  server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: process.env.E2E_DATABASE_URL || undefined, timeoutMs: 180_000, verbose: Boolean(process.env.E2E_VERBOSE) });
  const { chromium } = await import("playwright-core");
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
});

after(async () => {
  await browser?.close();
  await server?.stop(20_000);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("the wiki pages in a browser", { skip }, () => {
  const tag = randomBytes(3).toString("hex");
  let project;
  let issue;
  let base;
  let page;
  const ran = [];
  const errors = [];

  before(async () => {
    if (skip) return;
    project = await api("POST", "/projects", { name: `wiki-${tag}`, visibility: "public" });
    issue = await api("POST", `/projects/${project.id}/issues`, { title: "Render Markdown" });
    await api("POST", `/projects/${project.id}/wikis`, { title: "home", content: RELEASE_NOTES });
    await api("POST", `/projects/${project.id}/wikis`, { title: "Evil page", content: EVIL });
    base = `${server.host}/${project.path_with_namespace}/-/wikis`;
    page = await (await browser.newContext()).newPage();
    await page.exposeFunction("pwned", (what) => ran.push(what));
    page.on("pageerror", (error) => errors.push(String(error)));
    page.on("dialog", async (dialog) => {
      ran.push(`dialog: ${dialog.message()}`);
      await dialog.dismiss();
    });
  });

  it("opens /-/wikis on the home page and shows its table, task list and reference link", async () => {
    const res = await page.goto(base);
    assert.equal(res.status(), 200);
    assert.equal(page.url(), `${base}/home`);
    const seen = await page.evaluate(() => {
      const md = document.querySelector("article.wiki-page .md");
      const cells = [...md.querySelectorAll("table td")].map((td) => td.textContent.trim());
      const headers = [...md.querySelectorAll("table th")].map((th) => th.textContent.trim());
      const items = [...md.querySelectorAll("ul.task-list > li.task-list-item")].map((li) => {
        const box = li.querySelector("input[type=checkbox]");
        return { text: li.textContent.trim(), checked: box?.checked ?? null };
      });
      const ref = md.querySelector("a.gfm.gfm-issue");
      return {
        title: document.querySelector("article.wiki-page h1").textContent,
        headers,
        cells,
        items,
        ref: ref && { text: ref.textContent, href: ref.getAttribute("href"), visible: ref.getBoundingClientRect().width > 0 },
      };
    });
    assert.deepEqual(seen, {
      title: "home",
      headers: ["Feature", "State"],
      cells: ["Tables", "done"],
      items: [
        { text: "write the renderer", checked: true },
        { text: "ship it", checked: false },
      ],
      ref: { text: "#1", href: issue.web_url, visible: true },
    });
    await page.screenshot({ path: path.join(SHOTS, "home.png"), fullPage: true });
    await page.click("article.wiki-page a.gfm-issue");
    assert.equal(page.url(), issue.web_url);
    assert.equal(await page.locator("h1").first().innerText(), "Render Markdown #1");
  });

  it("never runs the <script> or the <img onerror> of a page's source", async () => {
    await page.goto(`${base}/pages`);
    await page.click("text=Evil page");
    assert.equal(page.url(), `${base}/Evil-page`);
    await page.waitForTimeout(300);
    assert.match(await page.locator("article.wiki-page .md").innerText(), /Before[\s\S]*After/);
    assert.equal(await page.locator("article.wiki-page .md script").count(), 0);
    assert.equal(await page.locator("article.wiki-page .md [onerror]").count(), 0);
    assert.deepEqual(ran, [], `scripts of the source ran: ${ran.join(", ")}`);
    assert.equal(await page.evaluate(() => window.__xss ?? null), null);
    assert.deepEqual(errors, []);
    await page.screenshot({ path: path.join(SHOTS, "evil.png"), fullPage: true });
  });

  it("has no serious or critical axe-core violation on the wiki page, the pages list and a missing page", async () => {
    const found = {};
    for (const [url, status] of [
      [`${base}/home`, 200],
      [`${base}/pages`, 200],
      [`${base}/no-such-page`, 404],
    ]) {
      const res = await page.goto(url);
      assert.equal(res.status(), status, url);
      const violations = await axeViolations(page);
      if (violations.length) found[url] = violations;
    }
    assert.deepEqual(found, {});
  });

  it("answers the HTML 404 for a private project's wiki to an anonymous visitor", async () => {
    const secret = await api("POST", "/projects", { name: `secret-wiki-${tag}`, visibility: "private" });
    await api("POST", `/projects/${secret.id}/wikis`, { title: "home", content: "Top secret text" });
    const anonymous = await (await browser.newContext()).newPage();
    for (const url of [`${server.host}/${secret.path_with_namespace}/-/wikis/home`, `${server.host}/${secret.path_with_namespace}/-/wikis/pages`]) {
      const res = await anonymous.goto(url);
      assert.equal(res.status(), 404, url);
      assert.match(res.headers()["content-type"], /text\/html/);
      assert.doesNotMatch(await anonymous.content(), /Top secret/);
    }
  });
});
