// Runs the Worker on workerd through Miniflare directly (used by `npm start`, the e2e tests and the
// benches through scripts/start.mjs).
//
// Why not `wrangler dev`: its dev server puts a ProxyWorker (a Durable Object in a second workerd) in
// front of the Worker, and a request that arrives within a few milliseconds of the end of a large
// streamed request (a `git push`) sometimes waited in that proxy until the next request arrived —
// minutes, or forever (measured: 3 of 6 anonymous `info/refs` requests right after a 230-commit push,
// none when sent to the Worker's own socket). The proxy hop also cost 2 ms of CPU per request.
// Miniflare is what wrangler dev runs underneath: the same workerd, the same bindings (read from
// wrangler.toml by wrangler's own `unstable_getMiniflareWorkerOptions`), and the bundle is the one
// `wrangler deploy` uploads (`wrangler deploy --dry-run --outdir`), so what runs locally is what deploys.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

// wrangler and miniflare are loaded when used, by Node itself: test/global-setup.ts imports this module
// through Vite's module runner, which would otherwise transform both packages (about a minute).
const require = createRequire(import.meta.url);

const root = fileURLToPath(new URL("..", import.meta.url));

/** `wrangler deploy --dry-run`: the deployable bundle of functions/index.ts, in `outDir`. */
export function bundleWorker(outDir) {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const result = spawnSync(path.join(root, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--outdir", outDir], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_LOG: "error", XDG_CONFIG_HOME: path.join(outDir, ".config"), WRANGLER_LOG_PATH: path.join(outDir, ".logs") },
  });
  if (result.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${result.stdout}\n${result.stderr}`);
  return path.join(outDir, "index.js");
}

/**
 * What decides the bundle besides its source files: wrangler's config, the TypeScript config and the
 * installed packages (npm rewrites node_modules/.package-lock.json on every install; wrangler, esbuild
 * and every bundled package's version are in it).
 */
const BUNDLE_INPUTS = ["wrangler.toml", "tsconfig.json", "package.json", "node_modules/.package-lock.json"].map((file) => path.join(root, file));

/** SHA-256 over the paths and contents of `files` (a missing file hashes as missing). */
function contentKey(files) {
  const hash = createHash("sha256");
  for (const file of [...BUNDLE_INPUTS, ...files]) {
    hash.update(`${file}\0`);
    hash.update(existsSync(file) ? readFileSync(file) : "(missing)");
    hash.update("\0");
  }
  return hash.digest("hex");
}

/**
 * The local files a bundle was built from, as its source map lists them. Built-in modules and the
 * original TypeScript sources of packages that ship source maps are not on disk: the packages' own
 * files change only with an install, which BUNDLE_INPUTS covers.
 */
function bundleSources(outDir) {
  const map = JSON.parse(readFileSync(path.join(outDir, "index.js.map"), "utf8"));
  return [...new Set(map.sources.map((source) => path.resolve(outDir, source)))].filter((file) => existsSync(file)).sort();
}

/**
 * The bundle of `bundleWorker`, reused while none of the files it was built from changed: bundling
 * with wrangler is most of a restart's time (2.5 s of 5 s on an idle machine, far more under load),
 * while hashing its 1,500 source files takes about 50 ms. `sources.json` beside the bundle records the
 * files and their key; a type-only import is not in the source map, and rightly so (it cannot change the
 * bundle). Returns the script's path and whether it was reused.
 */
export function cachedBundle(outDir) {
  const manifestPath = path.join(outDir, "sources.json");
  const scriptPath = path.join(outDir, "index.js");
  try {
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    if (existsSync(scriptPath) && manifest.key === contentKey(manifest.files)) return { scriptPath, reused: true };
  } catch {
    // no manifest yet, or an unreadable one: bundle
  }
  bundleWorker(outDir);
  const files = bundleSources(outDir);
  writeFileSync(manifestPath, JSON.stringify({ key: contentKey(files), files }));
  return { scriptPath, reused: false };
}

/**
 * The Miniflare options of the bundled Worker: wrangler.toml's bindings (Durable Objects, queues, R2,
 * crons) as wrangler reads them, the bundle as the script, and `vars` as string bindings. `npm start`
 * serves it; the vitest suite runs it as an auxiliary Worker (test/vitest.config.ts).
 */
export function bundledWorkerOptions(scriptPath, vars) {
  const { unstable_getMiniflareWorkerOptions } = require("wrangler");
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, "wrangler.toml"));
  return {
    ...workerOptions,
    name: "edgeforge",
    modules: true,
    scriptPath,
    modulesRoot: path.dirname(scriptPath),
    bindings: { ...(workerOptions.bindings ?? {}), ...vars },
  };
}

/**
 * The access log of `npm start`: Miniflare's entry Worker, in front of ours, logs one line per request
 * at level INFO: method, path (never the query string, where `private_token`, `job_token` and `token`
 * travel), status and duration, e.g. `GET /api/v4/projects 200 OK (12ms)`. Other INFO messages are
 * its "Ready on" lines, which start.mjs says itself; warnings and errors pass as Miniflare prints them.
 * `probe()` announces one of start.mjs's own readiness requests (HEAD /api/v4/version), whose line is
 * left out: the lines reach this log asynchronously, after the request, so they are matched by what
 * they say, one announced probe per HEAD /api/v4/version line.
 */
export function accessLog() {
  const { Log, LogLevel } = require("miniflare");
  return new (class AccessLog extends Log {
    probes = 0;
    constructor() {
      super(LogLevel.INFO, { prefix: "" });
    }
    /** One more probe to leave out (`-1`: one fewer, a probe that never reached the Worker). */
    probe(count = 1) {
      this.probes += count;
    }
    logReady() {}
    logWithLevel(level, message) {
      if (level !== LogLevel.INFO) return super.logWithLevel(level, message);
      if (this.probes > 0 && /^HEAD \/api\/v4\/version /.test(message.replace(/\x1b\[[0-9;]*m/g, ""))) this.probes--;
      else this.log(`[access] ${message}`);
    }
  })();
}

/**
 * Starts the bundled Worker (`scriptPath`, from `cachedBundle`) on 127.0.0.1:`port`. `vars` are the
 * Worker's string bindings; Durable Object, queue and R2 state persist under `persistDir`; `log` (an
 * `accessLog()`) prints a line per request. Returns the Miniflare instance (`dispose()` stops it).
 * `/cdn-cgi/handler/scheduled?cron=…` runs a cron (the cron ticker uses it).
 */
export async function startWorker({ port, vars, persistDir, scriptPath, log }) {
  mkdirSync(persistDir, { recursive: true });
  const { Miniflare } = require("miniflare");
  const mf = new Miniflare({
    ...bundledWorkerOptions(scriptPath, vars),
    host: "127.0.0.1",
    port,
    unsafeTriggerHandlers: true,
    // The Worker reads no `request.cf`: Miniflare's placeholder, instead of fetching the real object from
    // workers.cloudflare.com on every start (up to 3 s, and a warning on an offline machine).
    cf: false,
    ...(log ? { log } : {}),
    // INSPECTOR_PORT opens workerd's DevTools inspector (CPU profiles of the Worker; bench/profile.mjs).
    ...(process.env.INSPECTOR_PORT ? { inspectorPort: Number(process.env.INSPECTOR_PORT) } : {}),
    durableObjectsPersist: path.join(persistDir, "do"),
    r2Persist: path.join(persistDir, "r2"),
    kvPersist: path.join(persistDir, "kv"),
    cachePersist: path.join(persistDir, "cache"),
  });
  await mf.ready;
  return mf;
}
