// One archive of an instance (`npm run backup`, `npm run restore ARCHIVE`): a zip (fflate) holding
// - manifest.json: the format, when, the code that wrote it, the migration level, row and object counts;
// - db/<table>.jsonl: every row of every table of the `public` schema, one `to_json(row)` a line, read
//   in one REPEATABLE READ transaction (a consistent snapshot while the server runs), plus the
//   sequences' positions in the manifest;
// - r2/<n>: every object of every R2 bucket of wrangler.toml, with its key and metadata in the manifest.
// A logical dump in our own format rather than pg_dump: the embedded PGlite has no pg_dump, and the
// same reader and writer then serve both databases.
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Unzip, UnzipInflate, Zip, ZipDeflate } from "fflate";
import { codeVersion, journalEntries, migrationHash } from "./migrate.mjs";

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL("..", import.meta.url));
export const FORMAT = 1;
const BATCH = 1000;

/** The R2 buckets wrangler.toml binds, as Miniflare names them (binding → bucket id). */
function r2Buckets() {
  const { unstable_getMiniflareWorkerOptions } = require("wrangler");
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, "wrangler.toml"));
  return Object.fromEntries(Object.entries(workerOptions.r2Buckets ?? {}).map(([binding, bucket]) => [binding, typeof bucket === "string" ? bucket : bucket.id]));
}

/**
 * The R2 buckets persisted under `persistDir` (as `npm start` keeps them), through a Miniflare of their
 * own: `{ buckets: { BINDING: R2Bucket }, close() }`.
 */
export async function openR2(persistDir) {
  const { Miniflare } = require("miniflare");
  const buckets = r2Buckets();
  const mf = new Miniflare({ modules: true, script: "export default { fetch() { return new Response(null, { status: 404 }); } }", r2Buckets: buckets, r2Persist: persistDir });
  await mf.ready;
  const opened = {};
  for (const binding of Object.keys(buckets)) opened[binding] = await mf.getR2Bucket(binding);
  return { buckets: opened, close: () => mf.dispose() };
}

/** The migration a database is at: the journal entry of its newest applied migration. */
export async function migrationLevel(query) {
  const { rows } = await query(`SELECT hash, created_at::text AS created_at FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1`);
  if (rows.length === 0) throw new Error("the database has no migrations applied");
  const entry = journalEntries().find((candidate) => candidate.when === Number(rows[0].created_at));
  if (!entry || migrationHash(entry.tag) !== rows[0].hash) throw new Error("the database is at a migration this code does not have; use the release that migrated it");
  return entry.tag;
}

const quoteIdent = (name) => `"${name.replace(/"/g, '""')}"`;

async function tablesOf(query) {
  const { rows } = await query(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`,
  );
  return rows.map((row) => row.name);
}

/**
 * Writes the archive of the database behind `query` (a function `(text, params) => { rows }` on ONE
 * session) and of the R2 state under `r2Persist` to `file`. `log` prints progress.
 */
export async function writeArchive({ query, r2Persist, file, database, log }) {
  const out = createWriteStream(file);
  const written = new Promise((resolve, reject) => {
    out.on("finish", resolve);
    out.on("error", reject);
  });
  const zip = new Zip((error, chunk, final) => {
    if (error) return out.destroy(error);
    out.write(chunk);
    if (final) out.end();
  });
  const entry = (name) => {
    const stream = new ZipDeflate(name, { level: 6 });
    zip.add(stream);
    return stream;
  };
  const manifest = { format: FORMAT, created_at: new Date().toISOString(), edgeforge: codeVersion(), database, migration: null, tables: {}, sequences: [], objects: [] };

  await query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    manifest.migration = await migrationLevel(query);
    for (const table of await tablesOf(query)) {
      const stream = entry(`db/${table}.jsonl`);
      let count = 0;
      await query(`DECLARE dump NO SCROLL CURSOR FOR SELECT to_json(t)::text AS row FROM ${quoteIdent(table)} t`);
      for (;;) {
        const { rows } = await query(`FETCH ${BATCH} FROM dump`);
        if (rows.length === 0) break;
        stream.push(new TextEncoder().encode(rows.map((row) => `${row.row}\n`).join("")));
        count += rows.length;
      }
      await query("CLOSE dump");
      stream.push(new Uint8Array(0), true);
      manifest.tables[table] = count;
      if (count > 0) log(`table ${table}: ${count} rows`);
    }
    const { rows: sequences } = await query(`SELECT sequencename AS name, last_value::text AS value FROM pg_sequences WHERE schemaname = 'public' AND last_value IS NOT NULL ORDER BY 1`);
    manifest.sequences = sequences;
  } finally {
    await query("COMMIT");
  }
  log(`database: ${Object.keys(manifest.tables).length} tables, ${Object.values(manifest.tables).reduce((a, b) => a + b, 0)} rows (migration ${manifest.migration})`);

  if (existsSync(r2Persist)) {
    const r2 = await openR2(r2Persist);
    try {
      for (const [binding, bucket] of Object.entries(r2.buckets)) {
        let cursor;
        do {
          const page = await bucket.list({ cursor, include: ["httpMetadata", "customMetadata"] });
          for (const listed of page.objects) {
            const object = await bucket.get(listed.key);
            if (!object) continue; // deleted since it was listed
            const bytes = new Uint8Array(await object.arrayBuffer());
            const name = `r2/${manifest.objects.length}`;
            entry(name).push(bytes, true);
            manifest.objects.push({ name, binding, key: listed.key, size: bytes.length, httpMetadata: object.httpMetadata ?? {}, customMetadata: object.customMetadata ?? {} });
            if (manifest.objects.length % 100 === 0) log(`objects: ${manifest.objects.length}`);
          }
          cursor = page.truncated ? page.cursor : undefined;
        } while (cursor);
      }
    } finally {
      await r2.close();
    }
  }
  log(`objects: ${manifest.objects.length}`);
  entry("manifest.json").push(new TextEncoder().encode(JSON.stringify(manifest, null, 1)), true);
  zip.end();
  await written;
  return manifest;
}

/** Reads an archive: `{ manifest, files: Map<name, Uint8Array> }` (the whole archive in memory). */
export async function readArchive(file) {
  const files = new Map();
  const unzip = new Unzip((stream) => {
    const chunks = [];
    stream.ondata = (error, chunk, final) => {
      if (error) throw error;
      chunks.push(chunk);
      if (final) files.set(stream.name, Buffer.concat(chunks));
    };
    stream.start();
  });
  unzip.register(UnzipInflate);
  for await (const chunk of createReadStream(file)) unzip.push(chunk);
  unzip.push(new Uint8Array(0), true);
  const manifest = files.get("manifest.json");
  if (!manifest) throw new Error(`${file} is not an Edgeforge archive (no manifest.json)`);
  const parsed = JSON.parse(Buffer.from(manifest).toString("utf8"));
  if (parsed.format !== FORMAT) throw new Error(`${file} has archive format ${parsed.format}; this code reads format ${FORMAT}`);
  return { manifest: parsed, files };
}

/**
 * Loads an archive's rows into a database just migrated to the archive's level, in one
 * transaction with triggers and foreign-key checks off (`session_replication_role = replica`): the
 * rows are restored as they were, derived tables (counts, events, redirects) included.
 */
export async function loadRows({ query, manifest, files, log }) {
  await query("BEGIN");
  try {
    await query("SET LOCAL session_replication_role = replica");
    // Migrations seed some tables (settings, queue state): the archive's rows replace them.
    const tables = await tablesOf(query);
    if (tables.length > 0) await query(`TRUNCATE ${tables.map(quoteIdent).join(", ")}`);
    for (const [table, count] of Object.entries(manifest.tables)) {
      if (count === 0) continue;
      const { rows: columns } = await query(
        `SELECT attname AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
        [quoteIdent(table)],
      );
      const list = columns.map((column) => quoteIdent(column.name)).join(", ");
      const lines = Buffer.from(files.get(`db/${table}.jsonl`)).toString("utf8").split("\n").filter(Boolean);
      for (let start = 0; start < lines.length; start += BATCH) {
        const batch = `[${lines.slice(start, start + BATCH).join(",")}]`;
        await query(`INSERT INTO ${quoteIdent(table)} (${list}) OVERRIDING SYSTEM VALUE SELECT ${list} FROM json_populate_recordset(NULL::${quoteIdent(table)}, $1::json)`, [batch]);
      }
      log(`table ${table}: ${lines.length} rows`);
    }
    for (const sequence of manifest.sequences) await query(`SELECT setval($1::regclass, $2::bigint)`, [quoteIdent(sequence.name), sequence.value]);
    await query("COMMIT");
  } catch (error) {
    await query("ROLLBACK");
    throw error;
  }
}

/** Puts an archive's objects into the R2 state under `r2Persist`. */
export async function loadObjects({ r2Persist, manifest, files, log }) {
  if (manifest.objects.length === 0) return;
  const r2 = await openR2(r2Persist);
  try {
    for (const [index, object] of manifest.objects.entries()) {
      await r2.buckets[object.binding].put(object.key, new Uint8Array(files.get(object.name)), { httpMetadata: object.httpMetadata, customMetadata: object.customMetadata });
      if ((index + 1) % 100 === 0) log(`objects: ${index + 1}/${manifest.objects.length}`);
    }
  } finally {
    await r2.close();
  }
  log(`objects: ${manifest.objects.length}`);
}
