// The deployable bundle stays under 1 MiB gzip: every module that `wrangler deploy --dry-run`
// writes (scripts/worker-host.mjs `bundleWorker`, the bundle `npm start` and the tests run), gzipped as
// Cloudflare measures a Worker's size. A library that only rare requests need is imported on first use
// (`await import()`), which defers its evaluation but still counts here: what grows the bundle past this
// has to be questioned, not hidden in another module. `npm run bench:coldstart` prints the same figure.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { bundleWorker } from "../../scripts/worker-host.mjs";

const LIMIT = 1024 * 1024;

test("the bundle wrangler deploys is under 1 MiB gzip", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "edgeforge-bundle-"));
  try {
    const outDir = path.dirname(bundleWorker(dir));
    const modules = readdirSync(outDir).filter((name) => /\.(m?js|wasm)$/.test(name));
    assert.ok(modules.includes("index.js"), `no index.js in ${modules.join(", ")}`);
    const gzip = modules.reduce((sum, name) => sum + gzipSync(readFileSync(path.join(outDir, name)), { level: 9 }).length, 0);
    console.log(`bundle: ${modules.join(", ")}; gzip ${(gzip / 1024).toFixed(1)} KiB (limit ${LIMIT / 1024} KiB)`);
    assert.ok(gzip <= LIMIT, `the bundle is ${(gzip / 1024).toFixed(1)} KiB gzip, over ${LIMIT / 1024} KiB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
