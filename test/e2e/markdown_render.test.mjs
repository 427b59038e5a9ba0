// What POST /markdown's HTML shows in a real browser, against Edgeforge started as `npm start` does:
// Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) driven by playwright-core renders the answer
// in a page and reads the table, the task list and the issue reference link from the DOM; the
// `<script>`, `onerror=`, `ontoggle=`, `javascript:` and `<svg onload>` of the source must never run
// (each would call the page's `pwned` binding, which records the call on the test's side). Skipped when no Chromium is installed (`apt-get install -y chromium`).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { apiCall, startServer } from "./server.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const ROOT_TOKEN = `glpat-markdown${randomBytes(12).toString("hex")}`;

const SOURCE = `# Release notes

| Feature | State |
|---------|:-----:|
| Tables  | done  |

- [x] write the renderer
- [ ] ship it

Fixes #1 :tada:

<script>pwned("script")</script>
<img src="nope.png" onerror="pwned('onerror')">
<a id="js" href="javascript:pwned('href')">click</a>
<svg onload="pwned('svg')"></svg>
<iframe src="javascript:parent.pwned('iframe')"></iframe>
<details open ontoggle="pwned('ontoggle')"><summary>s</summary>d</details>
[link](javascript:pwned('markdown'))
`;

describe("POST /markdown in Chromium", { skip: existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}` }, () => {
  let dataDir;
  let server;
  let browser;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-markdown-"));
    server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: process.env.E2E_DATABASE_URL || undefined, timeoutMs: 180_000, verbose: Boolean(process.env.E2E_VERBOSE) });
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
  });

  after(async () => {
    await browser?.close();
    await server?.stop(20_000);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("shows the table, the task list and the reference link, and runs none of the source's scripts", async () => {
    const project = await apiCall(server.host, ROOT_TOKEN, "POST", "/projects", { name: `md-${randomBytes(3).toString("hex")}` });
    assert.equal(project.status, 201, JSON.stringify(project.body));
    const issue = await apiCall(server.host, ROOT_TOKEN, "POST", `/projects/${project.body.id}/issues`, { title: "Render Markdown" });
    assert.equal(issue.status, 201, JSON.stringify(issue.body));
    const rendered = await apiCall(server.host, ROOT_TOKEN, "POST", "/markdown", { text: SOURCE, gfm: true, project: project.body.path_with_namespace });
    assert.equal(rendered.status, 201, JSON.stringify(rendered.body));

    const page = await browser.newPage();
    const ran = [];
    await page.exposeFunction("pwned", (what) => ran.push(what));
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    // The page is served from the server's origin, as GitLab's own pages show the API's HTML.
    await page.route(`${server.host}/preview`, (route) =>
      route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: `<!doctype html><html><head><meta charset="utf-8"></head><body><main id="preview">${rendered.body.html}</main></body></html>` }),
    );
    await page.goto(`${server.host}/preview`, { waitUntil: "load" });
    // Give an error handler or a deferred load a moment to run, were there one.
    await page.waitForTimeout(300);
    const seen = await page.evaluate(() => {
      const cells = [...document.querySelectorAll("#preview table td")].map((td) => td.textContent.trim());
      const headers = [...document.querySelectorAll("#preview table th")].map((th) => th.textContent.trim());
      const items = [...document.querySelectorAll("#preview ul.task-list > li.task-list-item")].map((li) => {
        const box = li.querySelector("input[type=checkbox]");
        return { text: li.textContent.trim(), checked: box?.checked ?? null, disabled: box?.disabled ?? null };
      });
      const ref = document.querySelector("#preview a.gfm.gfm-issue");
      const emoji = document.querySelector("#preview gl-emoji");
      return {
        headers,
        cells,
        items,
        ref: ref && { text: ref.textContent, href: ref.getAttribute("href"), title: ref.getAttribute("title"), visible: ref.getBoundingClientRect().width > 0 },
        emoji: emoji && { name: emoji.dataset.name, text: emoji.textContent },
        scripts: document.querySelectorAll("#preview script").length,
      };
    });
    // What the source's links would run on a click.
    await page.click("#js").catch(() => {});
    await page.click("a:has-text('link')").catch(() => {});
    await page.waitForTimeout(300);

    assert.deepEqual(ran, [], `scripts of the source ran: ${ran.join(", ")}`);
    assert.deepEqual(seen.headers, ["Feature", "State"]);
    assert.deepEqual(seen.cells, ["Tables", "done"]);
    assert.deepEqual(seen.items, [
      { text: "write the renderer", checked: true, disabled: true },
      { text: "ship it", checked: false, disabled: true },
    ]);
    assert.deepEqual(seen.ref, { text: "#1", href: `${issue.body.web_url}`, title: "Render Markdown", visible: true });
    assert.deepEqual(seen.emoji, { name: "tada", text: "🎉" });
    assert.equal(seen.scripts, 0);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
