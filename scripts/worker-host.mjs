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
import { mkdirSync, rmSync } from "node:fs";
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
 * Starts the Worker on 127.0.0.1:`port`. `vars` are the Worker's string bindings; Durable Object,
 * queue and R2 state persist under `persistDir`. Returns the Miniflare instance (`dispose()` stops it).
 * `/cdn-cgi/handler/scheduled?cron=…` runs a cron (the cron ticker uses it).
 */
export async function startWorker({ port, vars, persistDir, bundleDir }) {
  const scriptPath = bundleWorker(bundleDir);
  mkdirSync(persistDir, { recursive: true });
  const { Miniflare } = require("miniflare");
  const mf = new Miniflare({
    ...bundledWorkerOptions(scriptPath, vars),
    host: "127.0.0.1",
    port,
    unsafeTriggerHandlers: true,
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
