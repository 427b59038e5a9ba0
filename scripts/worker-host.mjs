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
//
// Clients reach the Worker through a small Node front (`startFront`), not workerd's own socket: workerd
// closes a kept-alive connection after 5 s without a request (KJ's HttpServer `pipelineTimeout`; no
// workerd option changes it) and says nothing of it in a `Keep-Alive` header, so a client that reuses a
// connection after about 5 s idle (python-gitlab's requests, any urllib3 pool) sometimes sends its request
// as workerd closes: a reset or an empty reply, no status (issue 26 item 14: 12 python clients pausing
// about 5 s between full-body `PUT …/issues/:iid` lost 5 of 96 requests). The front keeps client
// connections 65 s (nginx's `keepalive_timeout` in GitLab's Omnibus), says so (`Keep-Alive: timeout=65`),
// and reuses its own connections to workerd for at most 2 s after their last response, far inside
// workerd's 5 s.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildAssets } from "./assets.mjs";

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
 * crons, the static assets) as wrangler reads them, the bundle as the script, and `vars` as string bindings. `npm start`
 * serves it; the vitest suite runs it as an auxiliary Worker (test/vitest.config.ts).
 */
export function bundledWorkerOptions(scriptPath, vars) {
  // wrangler.toml's `[assets]` directory must exist before wrangler reads the config, and be current
  // (a reused bundle skipped wrangler's `[build]` step, which builds it too).
  buildAssets();
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

/** How long the front keeps an idle client connection (and tells the client so). */
const CLIENT_KEEP_ALIVE_MS = 65_000;
/** How long after its last response the front may still reuse a connection to workerd (workerd: 5 s). */
const UPSTREAM_REUSE_MS = 2_000;
/** Request and response headers up to 1 MiB (workerd's own limit applies behind): the sweep sends 70 kB values. */
const MAX_HEADER_SIZE = 1024 * 1024;
/** Hop-by-hop headers (RFC 9110 §7.6.1, and the framing of RFC 9112) are the front's own on each side; `expect` is answered here. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "expect"]);

/** A raw header list (`[name, value, …]`) without the hop-by-hop headers. */
function endToEnd(raw) {
  const out = [];
  for (let i = 0; i < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i].toLowerCase())) out.push(raw[i], raw[i + 1]);
  return out;
}

/** A port that was free a moment ago on 127.0.0.1 (workerd's own, behind the front; tests use it too). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The front: an HTTP/1.1 server on 127.0.0.1:`port` that streams every request to workerd on
 * `upstreamPort` and its response back, bodies in both directions as they come (a `git push` is not
 * buffered). A request workerd never answered gets 502; a response cut after its headers cuts the client's.
 * `GET /cdn-cgi/handler/scheduled?cron=…&time=…` runs `scheduled(cron, time)` instead (see runScheduled).
 * Resolves with the server once it listens.
 */
export function startFront({ port, upstreamPort, scheduled }) {
  const agent = new http.Agent({ keepAlive: true, timeout: UPSTREAM_REUSE_MS, scheduling: "lifo" });
  // Requests that cannot be replayed never ride a kept connection: workerd may have closed it (idle, or
  // after a response whose request it did not read to the end), and a write sent on it would be lost with
  // no way to know whether it ran. A new loopback connection per write costs well under a millisecond.
  const freshAgent = new http.Agent({ keepAlive: false });
  const server = http.createServer({ keepAliveTimeout: CLIENT_KEEP_ALIVE_MS, requestTimeout: 0, maxHeaderSize: MAX_HEADER_SIZE }, (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (scheduled && url.pathname === "/cdn-cgi/handler/scheduled") {
      const time = url.searchParams.get("time");
      scheduled(url.searchParams.get("cron") ?? "", time ? Number(time) : Date.now()).then(
        (outcome) => res.writeHead(outcome === "ok" ? 200 : 500, { "content-type": "text/plain" }).end(outcome),
        (error) => res.writeHead(500, { "content-type": "text/plain" }).end(String(error?.message ?? error)),
      );
      return;
    }
    // A GET or HEAD without a body that met a kept connection workerd had just closed is sent once more
    // on a new one (nothing of it reached the Worker); any other request goes on a new connection.
    const replayable = (req.method === "GET" || req.method === "HEAD") && !req.headers["content-length"] && !req.headers["transfer-encoding"];
    const forward = (retried) => {
      const upstream = http.request({
        host: "127.0.0.1",
        port: upstreamPort,
        method: req.method,
        path: req.url,
        headers: endToEnd(req.rawHeaders),
        agent: replayable ? agent : freshAgent,
        maxHeaderSize: MAX_HEADER_SIZE,
      });
      upstream.on("response", (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
        answer.pipe(res);
        answer.on("error", () => res.destroy());
        answer.on("aborted", () => res.destroy());
      });
      upstream.on("error", (error) => {
        if (res.headersSent) return res.destroy();
        if (replayable && !retried && upstream.reusedSocket) return forward(true);
        res.writeHead(502, { "Content-Type": "text/plain" }).end(`502 Bad Gateway: the Worker did not answer (${error.message})\n`);
      });
      // The client went away before its response ended: so does the request to workerd.
      res.on("close", () => {
        if (!res.writableFinished) upstream.destroy();
      });
      if (replayable) upstream.end();
      else req.pipe(upstream);
    };
    forward(false);
  });
  // A request's headers must arrive within 60 s (Node's default); its body has no time limit
  // (`requestTimeout: 0`), so a long `git push` is not cut.
  server.headersTimeout = 60_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve({
        server,
        close: () =>
          new Promise((done) => {
            server.close(() => done(undefined));
            server.closeAllConnections();
            agent.destroy();
            freshAgent.destroy();
          }),
      });
    });
  });
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
 * Runs the Worker's scheduled handler for `cron` at `time` (ms) through Miniflare's own dispatch, and
 * resolves with its outcome ("ok" when the handler and its waitUntil work succeeded). Why not Miniflare's
 * `/cdn-cgi/handler/scheduled` route: in this Miniflare it answers 500 "exception" for a handler that
 * the same dispatch runs with outcome "ok", so the crons of `npm start` never ran.
 */
export async function runScheduled(mf, cron, time) {
  const worker = await mf.getWorker();
  const result = await worker.scheduled({ cron, scheduledTime: new Date(time) });
  return result.outcome;
}

/**
 * Starts the bundled Worker (`scriptPath`, from `cachedBundle`) behind the front on 127.0.0.1:`port`.
 * `vars` are the Worker's string bindings; Durable Object, queue and R2 state persist under
 * `persistDir`; `log` (an `accessLog()`) prints a line per request. Returns `{ miniflare, dispose() }`;
 * `dispose()` stops both. `/cdn-cgi/handler/scheduled?cron=…` runs a cron (the cron ticker uses it).
 */
export async function startWorker({ port, vars, persistDir, scriptPath, log }) {
  mkdirSync(persistDir, { recursive: true });
  const { Miniflare } = require("miniflare");
  const workerdPort = await freePort();
  const mf = new Miniflare({
    ...bundledWorkerOptions(scriptPath, vars),
    host: "127.0.0.1",
    port: workerdPort,
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
  let front;
  try {
    front = await startFront({ port, upstreamPort: workerdPort, scheduled: (cron, time) => runScheduled(mf, cron, time) });
  } catch (error) {
    await mf.dispose();
    throw error;
  }
  return {
    miniflare: mf,
    async dispose() {
      await front.close();
      await mf.dispose();
    },
  };
}
