#!/usr/bin/env node
// `npm run restore ARCHIVE`: brings an archive of `npm run backup` back into an empty instance — the
// embedded database under DATA_DIR (default ./.data; it must not exist yet) or the empty database named
// by DATABASE_URL — and its R2 objects under DATA_DIR. The database is migrated to the archive's level
// and loaded in one transaction; the next `npm start` migrates it to this code's level.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadObjects, loadRows, readArchive } from "./instance-archive.mjs";
import { openInstanceDatabase, runningServer } from "./instance-database.mjs";
import { journalEntries, migratePglite, migratePostgres, migrationsUpTo } from "./migrate.mjs";
import { openPglite } from "./pglite-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const dataDir = path.resolve(process.env.DATA_DIR || path.join(root, ".data"));
const databaseUrl = process.env.DATABASE_URL || "";
const archive = process.argv[2];
const log = (line) => console.log(`[restore] ${line}`);
const isEmptyDir = (dir) => !existsSync(dir) || readdirSync(dir).length === 0;

if (!archive) {
  console.error("usage: npm run restore ARCHIVE   (into an empty DATA_DIR, or the empty database of DATABASE_URL)");
  process.exit(2);
}

try {
  const { manifest, files } = await readArchive(path.resolve(archive));
  log(`archive of ${manifest.created_at} by Edgeforge ${manifest.edgeforge}, migration ${manifest.migration}`);
  if (!journalEntries().some((entry) => entry.tag === manifest.migration)) {
    throw new Error(`the archive is at migration ${manifest.migration}, which this code does not have; restore it with the release that wrote it`);
  }
  const r2Persist = path.join(dataDir, "worker/state/r2");
  if (!isEmptyDir(r2Persist)) throw new Error(`${r2Persist} already holds objects; restore into an empty DATA_DIR`);
  const migrations = migrationsUpTo(manifest.migration);
  if (databaseUrl) {
    const database = await openInstanceDatabase({ databaseUrl });
    try {
      const { rows } = await database.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname IN ('public', 'drizzle')`);
      if (rows[0].n > 0) throw new Error("the database of DATABASE_URL is not empty; restore into a new database");
    } finally {
      await database.close();
    }
    await migratePostgres(databaseUrl, migrations);
  } else {
    if (runningServer(dataDir)) throw new Error(`npm start is serving ${dataDir}; stop it and restore into an empty DATA_DIR`);
    if (!isEmptyDir(path.join(dataDir, "pglite"))) throw new Error(`${path.join(dataDir, "pglite")} already holds a database; restore into an empty DATA_DIR`);
    const pglite = await openPglite({ dataDir: path.join(dataDir, "pglite") });
    try {
      await migratePglite(pglite, migrations);
    } finally {
      await pglite.close();
    }
  }
  log(`schema migrated to ${manifest.migration}`);
  const database = await openInstanceDatabase({ dataDir, databaseUrl });
  try {
    await loadRows({ query: database.query, manifest, files, log });
  } finally {
    await database.close();
  }
  await loadObjects({ r2Persist, manifest, files, log });
  log(`restored into ${databaseUrl ? new URL(databaseUrl).host : dataDir}; \`npm start\` migrates it to this code's level`);
} catch (error) {
  console.error(`[restore] failed: ${error.message}`);
  process.exit(1);
}
