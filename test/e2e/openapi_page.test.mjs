// The API reference page (GET /api/v4/docs, functions/openapi/routes.ts) in headless Chromium, against
// Edgeforge started as `npm start` does: Scalar's script comes from the Worker's static assets
// (wrangler.toml `[assets]`, scripts/assets.mjs), the page renders the OpenAPI document with its domains
// (tags), its search finds the merge requests endpoint, and nothing is loaded from another origin (the
// page's Content-Security-Policy would refuse it, and the browser reports each refusal).
//
// Chromium is Debian's (`apt-get install chromium`; .ci/run installs it), driven by playwright-core;
// CHROMIUM_PATH names another binary. Without one, the test is skipped and says why.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium } from "playwright-core";
import { startServer } from "./server.mjs";

const ROOT_TOKEN = `glpat-docs${randomBytes(12).toString("hex")}`;
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

let dataDir;
let server;
let browser;

before(async () => {
  if (skip) return;
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-docs-"));
  server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: process.env.E2E_DATABASE_URL || undefined, timeoutMs: 180_000, verbose: Boolean(process.env.E2E_VERBOSE) });
  // --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
});

after(async () => {
  await browser?.close();
  await server?.stop(20_000);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("GET /api/v4/docs in a browser", { skip }, () => {
  let page;
  /** Requests the page made to another origin, and the ones its Content-Security-Policy refused. */
  const elsewhere = [];
  const refused = [];
  const pageErrors = [];

  before(async () => {
    page = await browser.newPage();
    const origin = new URL(server.host).origin;
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (!["data:", "blob:"].includes(url.protocol) && url.origin !== origin) elsewhere.push(request.url());
    });
    page.on("console", (message) => {
      if (/Content Security Policy/.test(message.text())) refused.push(message.text());
    });
    page.on("pageerror", (error) => pageErrors.push(error.message));
  });

  it("loads Scalar's script from the Worker's assets, not from the bundle", async () => {
    const script = await fetch(`${server.host}/api/v4/docs/scalar.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get("content-type") ?? "", /javascript/);
    assert.match(await script.text(), /@scalar\/api-reference@/);
    const response = await page.goto(`${server.host}/api/v4/docs`);
    assert.equal(response.status(), 200);
    assert.match(response.headers()["content-security-policy"], /default-src 'none'/);
    assert.equal(await page.title(), "Edgeforge API reference");
  });

  it("lists the domains of the document (its tags)", async () => {
    const sidebar = page.locator(".t-doc__sidebar");
    // The document is large: Scalar takes several seconds to parse it on a busy machine.
    await sidebar.getByText("merge_requests", { exact: true }).first().waitFor({ timeout: 120_000 });
    const text = await sidebar.innerText();
    for (const tag of ["projects", "groups", "issues", "merge_requests", "pipelines", "repository", "openapi"]) {
      assert.match(text, new RegExp(`^${tag}$`, "m"), `the sidebar lists no ${tag}`);
    }
  });

  it('finds the merge requests endpoint when searching "merge requests"', async () => {
    // The sidebar's search button (role "search") opens Scalar's search dialog, focused on its input.
    await page.locator('.t-doc__sidebar button[role="search"]').click();
    const dialog = page.getByRole("dialog", { name: "Reference Search" });
    await dialog.getByRole("combobox").fill("merge requests");
    // Scalar's results read "Operation: <path>, Description: …"; they update as the query is typed.
    const options = dialog.getByRole("option");
    // The path alone is also POST's (create a merge request): the GET is the one with its description.
    const endpoint = /^\/api\/v4\/projects\/\{id\}\/merge_requests$/m;
    const isList = (text) => endpoint.test(text) && /Get all merge requests for this project/.test(text);
    let texts = [];
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
      texts = await options.allInnerTexts();
      if (texts.some(isList)) break;
    }
    const index = texts.findIndex(isList);
    assert.ok(index >= 0, `no GET /projects/:id/merge_requests among the results: ${texts.join(" | ")}`);
    await options.nth(index).click();
    await page.waitForURL(/#.*merge_requests/, { timeout: 30_000 });
  });

  it("loads nothing from another origin, and runs without errors", () => {
    assert.deepEqual(elsewhere, []);
    assert.deepEqual(refused, []);
    assert.deepEqual(pageErrors, []);
  });
});
