// Applies migrations/ with drizzle-orm's migrator: node-postgres for a real server, PGlite in-process.
// The Worker never migrates: `npm start`, the tests and deployments run this before the Worker serves.
// Run directly: `DATABASE_URL=… node scripts/migrate.mjs`.
//
// drizzle's migrator applies every pending migration in one transaction, so a failed migration leaves
// the database as it was. It silently does nothing on a database whose schema is newer than the code
// (it compares only the newest applied timestamp), so `assertSchemaNotNewer` refuses that first, and
// every run records which migration tags are applied and by which code (`drizzle.edgeforge_migrations`),
// so that the refusal can name them.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const migrationsFolder = fileURLToPath(new URL("../migrations", import.meta.url));
const root = fileURLToPath(new URL("..", import.meta.url));

/** The journal's entries, in order: `{ idx, tag, when }`. */
export function journalEntries(folder = migrationsFolder) {
  return JSON.parse(readFileSync(path.join(folder, "meta/_journal.json"), "utf8")).entries;
}

/** The hash drizzle records for a migration: the SHA-256 of its file. */
export function migrationHash(tag, folder = migrationsFolder) {
  return createHash("sha256").update(readFileSync(path.join(folder, `${tag}.sql`))).digest("hex");
}

/** This code, as a migration record names it: the package version and the git commit when known. */
export function codeVersion() {
  const { version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  let commit = "";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    // not a git checkout (a deployed copy): the version alone
  }
  return commit ? `${version} (${commit})` : version;
}

/**
 * A migrations folder holding the migrations up to and including `lastTag` (all but the later ones),
 * for bringing a database to an earlier level: the upgrade test, and a restore into the level an
 * archive was taken at.
 */
export function migrationsUpTo(lastTag) {
  const entries = journalEntries();
  const end = entries.findIndex((entry) => entry.tag === lastTag);
  if (end < 0) throw new Error(`no migration ${lastTag} in ${migrationsFolder}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "edgeforge-migrations-"));
  mkdirSync(path.join(dir, "meta"));
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta/_journal.json"), "utf8"));
  writeFileSync(path.join(dir, "meta/_journal.json"), JSON.stringify({ ...journal, entries: entries.slice(0, end + 1) }));
  for (const entry of entries.slice(0, end + 1)) {
    writeFileSync(path.join(dir, `${entry.tag}.sql`), readFileSync(path.join(migrationsFolder, `${entry.tag}.sql`)));
  }
  return dir;
}

export class SchemaNewerError extends Error {}

/**
 * Refuses a database that holds a migration this code does not have (a newer release migrated it):
 * serving it would answer errors wherever the schema moved on. `query(text, params)` returns `{ rows }`.
 */
export async function assertSchemaNotNewer(query, folder = migrationsFolder) {
  const { rows: present } = await query(`SELECT to_regclass('drizzle.__drizzle_migrations') AS t, to_regclass('drizzle.edgeforge_migrations') AS n`);
  if (!present[0].t) return;
  const entries = journalEntries(folder);
  const known = new Set(entries.map((entry) => migrationHash(entry.tag, folder)));
  const newest = entries.at(-1);
  const { rows } = await query(`SELECT hash, created_at::text AS created_at FROM drizzle.__drizzle_migrations ORDER BY created_at`);
  const unknown = rows.filter((row) => !known.has(row.hash) || Number(row.created_at) > newest.when);
  if (unknown.length === 0) return;
  const names = new Map();
  if (present[0].n) {
    const { rows: recorded } = await query(`SELECT hash, tag, code FROM drizzle.edgeforge_migrations`);
    for (const row of recorded) names.set(row.hash, `${row.tag} (applied by Edgeforge ${row.code})`);
  }
  const list = unknown.map((row) => names.get(row.hash) ?? `a migration of ${new Date(Number(row.created_at)).toISOString()} (hash ${row.hash.slice(0, 12)})`);
  throw new SchemaNewerError(
    `the database's schema is newer than this code: it has ${list.join(", ")}, which Edgeforge ${codeVersion()} ` +
      `does not have (its newest migration is ${newest.tag}). Start the release that migrated it, or a newer one; ` +
      `nothing was changed.`,
  );
}

/** Records the applied migrations' tags and this code's version, for `assertSchemaNotNewer`. */
async function recordTags(query, folder) {
  await query(`CREATE TABLE IF NOT EXISTS drizzle.edgeforge_migrations (hash text PRIMARY KEY, tag text NOT NULL, code text NOT NULL)`);
  const { rows } = await query(`SELECT hash FROM drizzle.__drizzle_migrations`);
  const applied = new Set(rows.map((row) => row.hash));
  const code = codeVersion();
  for (const entry of journalEntries(folder)) {
    const hash = migrationHash(entry.tag, folder);
    if (!applied.has(hash)) continue;
    await query(`INSERT INTO drizzle.edgeforge_migrations (hash, tag, code) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING`, [hash, entry.tag, code]);
  }
}

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
export async function migratePostgres(url, folder = migrationsFolder) {
  const pg = (await import("pg")).default;
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET client_min_messages TO warning");
    const query = (text, params) => client.query(text, params);
    await assertSchemaNotNewer(query, folder);
    await migrate(drizzle(client), { migrationsFolder: folder });
    await recordTags(query, folder);
  } finally {
    await client.end();
  }
}

/** Migrates an open PGlite instance. */
export async function migratePglite(pglite, folder = migrationsFolder) {
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const query = (text, params) => pglite.query(text, params);
  await assertSchemaNotNewer(query, folder);
  await migrate(drizzle(pglite), { migrationsFolder: folder });
  await recordTags(query, folder);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error("DATABASE_URL is required");
    process.exit(2);
  }
  try {
    await migratePostgres(url);
  } catch (error) {
    if (!(error instanceof SchemaNewerError)) throw error;
    console.error(`migrate: ${error.message}`);
    process.exit(1);
  }
  console.log("migrations applied");
}
