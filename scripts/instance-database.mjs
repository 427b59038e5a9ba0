// The database of an instance, for the backup and restore commands: DATABASE_URL when set; else the
// embedded PGlite under DATA_DIR, reached through the running `npm start` (DATA_DIR/server.json) or,
// when none runs, opened here. Returns `{ query(text, params), kind, close() }` on one session.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { openPglite } from "./pglite-server.mjs";

/** The `npm start` serving `dataDir`, when one is running: `{ pid, databaseUrl }`. */
export function runningServer(dataDir) {
  const file = path.join(dataDir, "server.json");
  if (!existsSync(file)) return null;
  const server = JSON.parse(readFileSync(file, "utf8"));
  try {
    process.kill(server.pid, 0);
    return server;
  } catch {
    return null; // left behind by a server that was killed
  }
}

async function client(url, kind) {
  const connection = new pg.Client({ connectionString: url });
  await connection.connect();
  return { kind, query: (text, params) => connection.query(text, params), close: () => connection.end() };
}

export async function openInstanceDatabase({ dataDir, databaseUrl, mustExist }) {
  if (databaseUrl) return client(databaseUrl, "postgres");
  const server = runningServer(dataDir);
  if (server) return client(server.databaseUrl, "pglite");
  const dir = path.join(dataDir, "pglite");
  if (mustExist && !existsSync(dir)) throw new Error(`no embedded database in ${dir} (set DATA_DIR or DATABASE_URL)`);
  const pglite = await openPglite({ dataDir: dir });
  return { kind: "pglite", query: (text, params) => pglite.query(text, params), close: () => pglite.close() };
}
