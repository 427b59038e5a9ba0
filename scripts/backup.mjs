#!/usr/bin/env node
// `npm run backup [FILE]`: one archive of this instance (scripts/instance-archive.mjs says what it
// holds) — the database named by DATABASE_URL or the embedded one under DATA_DIR (default ./.data),
// and the R2 objects under DATA_DIR. Safe while `npm start` runs: the rows come from one snapshot.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { writeArchive } from "./instance-archive.mjs";
import { openInstanceDatabase } from "./instance-database.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const dataDir = path.resolve(process.env.DATA_DIR || path.join(root, ".data"));
const file = path.resolve(process.argv[2] || `edgeforge-backup-${new Date().toISOString().replace(/[:.]/g, "-")}.zip`);
const log = (line) => console.log(`[backup] ${line}`);

try {
  const database = await openInstanceDatabase({ dataDir, databaseUrl: process.env.DATABASE_URL, mustExist: true });
  try {
    const started = Date.now();
    const manifest = await writeArchive({ query: database.query, r2Persist: path.join(dataDir, "worker/state/r2"), file, database: database.kind, log });
    log(`wrote ${file} (migration ${manifest.migration}, ${manifest.objects.length} objects) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await database.close();
  }
} catch (error) {
  console.error(`[backup] failed: ${error.message}`);
  process.exit(1);
}
