// Applies migrations/ with drizzle-orm's migrator: node-postgres for a real server, PGlite in-process.
// The Worker never migrates (ARCHITECTURE.md §8). Run directly: `DATABASE_URL=… node scripts/migrate.mjs`.
import { fileURLToPath } from "node:url";

export const migrationsFolder = fileURLToPath(new URL("../migrations", import.meta.url));

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
