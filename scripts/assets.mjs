#!/usr/bin/env node
// The Worker's static assets (wrangler.toml `[assets]`, directory dist/assets): files served beside the
// Worker, outside its bundle and its 1 MiB gzip budget (test/node/bundle_size.test.mjs):
// - @scalar/api-reference's standalone script (3.4 MiB, about 1 MiB gzipped), which the reference page
//   GET /api/v4/docs loads from /api/v4/docs/scalar.js (functions/openapi/routes.ts);
// - the file templates' catalogs, `templates/<type>.json` (scripts/templates.mjs), which only the Worker
//   reads, through the binding (functions/templates/catalog.ts);
// - the web front's highlighter, /-/web/highlight.js: functions/web/browser/highlight.js (highlight.js
//   and its curated languages) bundled and minified by esbuild (wrangler's own copy) for the blob page.
//
// Run by wrangler's `[build]` step (`wrangler deploy`, `wrangler dev`), and by scripts/worker-host.mjs
// before Miniflare reads wrangler.toml (`npm start`, the vitest harness), whose `[assets]` directory must
// exist. Each asset's path under the directory is its URL path: the Worker runs first
// (`run_worker_first = true`, so the API keeps every path) and hands the asset routes' requests to the
// ASSETS binding as they came. Copies only what changed; `node scripts/assets.mjs` prints what it did.
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { templateAssets } from "./templates.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);

/** wrangler.toml's `[assets] directory`. */
export const ASSETS_DIR = path.join(root, "dist/assets");

/** URL path (under ASSETS_DIR) → the installed file it is a copy of. */
function assetSources() {
  return {
    "api/v4/docs/scalar.js": require.resolve("@scalar/api-reference/browser/standalone.js"),
  };
}

/** URL path (under ASSETS_DIR) → the browser script bundled from it. */
function bundledSources() {
  return { "-/web/highlight.js": path.join(root, "functions/web/browser/highlight.js") };
}

/** The script `entry` bundled for browsers: one minified IIFE. */
function bundleScript(entry) {
  const requireFromWrangler = createRequire(require.resolve("wrangler/package.json"));
  const { buildSync } = requireFromWrangler("esbuild");
  const out = buildSync({ entryPoints: [entry], bundle: true, minify: true, format: "iife", target: "es2020", write: false, logLevel: "error", legalComments: "inline" });
  return Buffer.from(out.outputFiles[0].contents);
}

/** Same size and contents: nothing to copy. */
function same(a, b) {
  if (!existsSync(b) || statSync(a).size !== statSync(b).size) return false;
  return readFileSync(a).equals(readFileSync(b));
}

/** Writes the assets that are missing or stale under ASSETS_DIR; returns the URL paths it copied or wrote. */
export function buildAssets() {
  const copied = [];
  mkdirSync(ASSETS_DIR, { recursive: true });
  for (const [urlPath, source] of Object.entries(assetSources())) {
    const target = path.join(ASSETS_DIR, urlPath);
    if (same(source, target)) continue;
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(source, target);
    copied.push(urlPath);
  }
  for (const [urlPath, text] of Object.entries(templateAssets())) {
    const target = path.join(ASSETS_DIR, urlPath);
    if (existsSync(target) && readFileSync(target, "utf8") === text) continue;
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
    copied.push(urlPath);
  }
  for (const [urlPath, entry] of Object.entries(bundledSources())) {
    const target = path.join(ASSETS_DIR, urlPath);
    const script = bundleScript(entry);
    if (existsSync(target) && readFileSync(target).equals(script)) continue;
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, script);
    copied.push(urlPath);
  }
  return copied;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const copied = buildAssets();
  console.log(`[assets] ${path.relative(root, ASSETS_DIR)}: ${copied.length ? `copied ${copied.join(", ")}` : "up to date"}`);
}
