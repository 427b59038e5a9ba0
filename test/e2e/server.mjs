// Starts Edgeforge exactly as `npm start` does (`node scripts/start.mjs` as a child process) on a free
// loopback port, waits for its `API:` line, and stops it with SIGINT. Used by the end-to-end test and
// by `npm run bench`. Not a test file itself (node --test only picks up `*.test.mjs` here).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { freePort } from "../../scripts/worker-host.mjs";

export { freePort };

const root = fileURLToPath(new URL("../..", import.meta.url));
const startScript = fileURLToPath(new URL("../../scripts/start.mjs", import.meta.url));

/**
 * @param {{ dataDir: string, rootToken: string, databaseUrl?: string, embedded?: boolean, port?: number,
 *           timeoutMs?: number, verbose?: boolean, env?: Record<string, string> }} options
 *   databaseUrl unset → a fresh database of its own on the Postgres server named by
 *   E2E_FRESH_POSTGRES when `npm test` set it (dropped when the server stops), otherwise embedded
 *   PGlite under dataDir, as `npm start` without DATABASE_URL. `embedded: true` always takes PGlite
 *   (the tests of `npm start`'s own database).
 */
export async function startServer(options) {
  const admin = !options.databaseUrl && !options.embedded ? process.env.E2E_FRESH_POSTGRES : undefined;
  if (!admin) return startServerOnPort(options);
  const { name, url } = await createDatabase(admin);
  try {
    const server = await startServerOnPort({ ...options, databaseUrl: url });
    const stop = server.stop;
    server.stop = async (...args) => {
      const result = await stop(...args);
      await dropDatabase(admin, name);
      return result;
    };
    return server;
  } catch (error) {
    await dropDatabase(admin, name);
    throw error;
  }
}

/** A new empty database on the server at `adminUrl`; `npm start` migrates it and makes the root token. */
async function createDatabase(adminUrl) {
  const name = `edgeforge_e2e_${process.pid}_${randomBytes(3).toString("hex")}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

async function dropDatabase(adminUrl, name) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

async function startServerOnPort(options) {
  // A port that was free when chosen can be taken before the server listens on it (by another test's server
  // or by an outgoing connection's ephemeral port): when the test did not choose the port, start again on
  // another one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce({ ...options, port: options.port ?? (await freePort()) });
    } catch (error) {
      if (options.port !== undefined || attempt === 3 || !/EADDRINUSE/.test(String(error?.message))) throw error;
    }
  }
}

async function startServerOnce({ dataDir, rootToken, databaseUrl, port, timeoutMs = 90_000, verbose = false, env: extraEnv = {} }) {
  const env = { ...process.env, PORT: String(port), DATA_DIR: dataDir, INITIAL_ROOT_TOKEN: rootToken };
  delete env.DATABASE_URL;
  delete env.EXTERNAL_URL;
  // `npm start` options a test asks for (RUNNER=shell); never inherited from the caller's shell.
  delete env.RUNNER;
  delete env.RUNNER_TOKEN;
  // The request log only with `verbose` (the output is kept for assertions; benches measure the server).
  env.ACCESS_LOG = verbose ? "1" : "0";
  Object.assign(env, extraEnv);
  if (databaseUrl) env.DATABASE_URL = databaseUrl;

  // Own process group, so that a server that ignores SIGINT can still be killed with its children.
  const child = spawn(process.execPath, [startScript], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const killGroup = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  process.once("exit", killGroup);

  let output = "";
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const onData = (chunk) => {
    output += chunk;
    if (output.length > 200_000) output = output.slice(-100_000);
    if (verbose) process.stderr.write(chunk);
  };
  child.stdout.setEncoding("utf8").on("data", onData);
  child.stderr.setEncoding("utf8").on("data", onData);

  const apiUrl = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      killGroup();
      reject(new Error(`the server printed no "API:" line within ${timeoutMs} ms; its output:\n${output}`));
    }, timeoutMs);
    const check = () => {
      const match = /API: (http:\/\/\S+)/.exec(output);
      if (match) {
        cleanup();
        resolve(match[1]);
      }
    };
    const onExit = ({ code, signal }) => {
      cleanup();
      reject(new Error(`the server exited (code ${code}, signal ${signal}) before printing "API:"; its output:\n${output}`));
    };
    function cleanup() {
      clearTimeout(timer);
      child.stdout.off("data", check);
    }
    child.stdout.on("data", check);
    exited.then(onExit);
    check();
  });

  return {
    port,
    apiUrl,
    host: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    /**
     * SIGINT, as Ctrl-C; resolves with `{ code, signal, forced }` once the process has exited. After
     * `timeoutMs` the whole process group is killed and `forced` is true.
     */
    async stop(stopTimeoutMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) {
        process.off("exit", killGroup);
        return { ...(await exited), forced: false };
      }
      child.kill("SIGINT");
      let timer;
      const result = await Promise.race([
        exited.then((r) => ({ ...r, forced: false })),
        new Promise((resolve) => {
          timer = setTimeout(() => resolve(null), stopTimeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (result) {
        // start.mjs has waited for its children; make sure nothing of the group is left behind.
        killGroup();
        process.off("exit", killGroup);
        return result;
      }
      killGroup();
      process.off("exit", killGroup);
      return { ...(await exited), forced: true };
    },
  };
}

/**
 * One JSON API call as `token` against a started server: `{ status, body }`, the body parsed when it is
 * JSON (the e2e tests that drive CI through the REST API share it).
 */
export async function apiCall(host, token, method, route, body) {
  const res = await fetch(`${host}/api/v4${route}`, {
    method,
    headers: { "PRIVATE-TOKEN": token, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

/**
 * One JSON API call as `token` against `apiUrl` (a server's `/api/v4`) that fails loudly with the
 * server's answer when it is not 2xx: the setup calls of the client tests (npm, PyPI, the registry, Unleash).
 */
export async function requiredApiCall(apiUrl, token, method, route, body) {
  const res = await fetch(`${apiUrl}${route}`, {
    method,
    headers: { "PRIVATE-TOKEN": token, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
