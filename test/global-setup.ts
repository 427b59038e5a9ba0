// Node side of `npm test` (docs/testing.md, "How `npm test` runs"): picks the database, creates a throwaway one,
// migrates and bootstraps it, starts the WebSocket proxy, and hands the URLs to workerd.
import net from "node:net";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { bootstrap, generateToken } from "../scripts/bootstrap.mjs";
import { migratePglite, migratePostgres } from "../scripts/migrate.mjs";
import { openPglite, servePglite } from "../scripts/pglite-server.mjs";
import { startWsProxy } from "../scripts/ws-proxy.mjs";
import { bundleWorker } from "../scripts/worker-host.mjs";
import { gitFixtures } from "./git-fixtures";
import type { GitFixtures } from "./helpers/git-oracle-types";
import { packFixtures } from "./git_http/pack-fixtures";
import type { PackFixtures } from "./git_http/pack-fixture-types";
import { startHookReceiver } from "./helpers/hook-receiver";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    wsProxy: string;
    tcpProxy: string;
    rootToken: string;
    gitFixtures: GitFixtures;
    packFixtures: PackFixtures;
    workerBundle: string;
  }
}

function answers(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

export default async function setup(project: TestProject) {
  // The Worker under test: the same bundle `wrangler deploy` uploads (test/vitest.config.ts says why).
  const started = Date.now();
  project.provide("workerBundle", bundleWorker(fileURLToPath(new URL(".tmp/worker", import.meta.url))));
  console.log(`[setup] Worker bundled in ${Date.now() - started} ms`);
  const cleanups: (() => Promise<void>)[] = [];
  const rootToken = generateToken();
  let databaseUrl: string;
  let serialized: string | null = null;

  // TEST_DATABASE_URL=pglite forces the embedded database even where a server answers.
  const explicit = process.env.TEST_DATABASE_URL;
  const serverUrl =
    explicit === "pglite"
      ? null
      : explicit ?? ((await answers("127.0.0.1", 5432, 1000)) ? "postgres://postgres@127.0.0.1:5432/postgres" : null);
  if (serverUrl) {
    const name = `edgeforge_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    await migratePostgres(databaseUrl);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await bootstrap(client, { initialRootToken: rootToken });
    await client.end();
    cleanups.push(async () => {
      const drop = new pg.Client({ connectionString: serverUrl });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await drop.end();
    });
    console.log(`[setup] database ${name} on ${url.host}`);
  } else {
    const pglite = await openPglite({});
    await migratePglite(pglite);
    await bootstrap(pglite, { initialRootToken: rootToken });
    const server = await servePglite(pglite);
    databaseUrl = server.url;
    serialized = `127.0.0.1:${server.port}`;
    cleanups.push(async () => {
      await server.close();
      await pglite.close();
    });
    console.log("[setup] embedded PGlite (no Postgres answered on 127.0.0.1:5432)");
  }

  // The same transport as `npm start`: raw TCP sessions to the proxy (PG_TCP_PROXY), unless
  // PG_TRANSPORT=websocket asks for the driver's own WebSocket (production's transport).
  const target = new URL(databaseUrl);
  const proxy = await startWsProxy({
    serialize: (address: string) => address === serialized,
    tcpTarget: `${target.hostname}:${target.port || 5432}`,
  });
  cleanups.unshift(() => proxy.close());

  project.provide("databaseUrl", databaseUrl);
  project.provide("wsProxy", `127.0.0.1:${proxy.port}`);
  project.provide("tcpProxy", process.env.PG_TRANSPORT === "websocket" || !proxy.tcpPort ? "" : `127.0.0.1:${proxy.tcpPort}`);
  project.provide("rootToken", rootToken);
  project.provide("gitFixtures", gitFixtures());
  project.provide("packFixtures", packFixtures());
  const receiver = await startHookReceiver();
  cleanups.unshift(() => receiver.close());
  project.provide("hookReceiver", receiver.url);

  return async () => {
    for (const cleanup of cleanups) await cleanup();
  };
}
