// Applies migrations/ with drizzle-orm's migrator: node-postgres for a real server, PGlite in-process.
// The Worker never migrates (ARCHITECTURE.md §8). Run directly: `DATABASE_URL=… node scripts/migrate.mjs`.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const migrationsFolder = fileURLToPath(new URL("../migrations", import.meta.url));

/**
 * Whether the migrator must run. drizzle's applies every migration of the journal whose `when` is
 * later than the `created_at` of the last row of drizzle.__drizzle_migrations (drizzle-orm's pg-core
 * dialect `migrate`), so the database is up to date when that row is the journal's last `when`: one
 * query instead of loading the migrator and reading every migration, a restart's common case.
 * `db` is a pg Client or a PGlite instance.
 */
export async function migrationsPending(db) {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta/_journal.json"), "utf8"));
  const latest = Math.max(...journal.entries.map((entry) => entry.when));
  try {
    const { rows } = await db.query("SELECT max(created_at) AS last FROM drizzle.__drizzle_migrations");
    // Exactly the journal's last: a database migrated by newer code (a later `created_at`) takes the
    // migrator's path, which is where such a database is dealt with.
    return Number(rows[0]?.last ?? 0) !== latest;
  } catch {
    return true; // no migrations table yet: a new database
  }
}

/** Migrates the database at `url` (a postgres:// URL) using node-postgres. */
export async function migratePostgres(url) {
  const pg = (await import("pg")).default;
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET client_min_messages TO warning");
    await migrate(drizzle(client), { migrationsFolder });
  } finally {
    await client.end();
  }
}

/** Migrates an open PGlite instance. */
export async function migratePglite(pglite) {
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  await migrate(drizzle(pglite), { migrationsFolder });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error("DATABASE_URL is required");
    process.exit(2);
  }
  await migratePostgres(url);
  console.log("migrations applied");
}
