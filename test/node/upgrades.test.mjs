// node --test test/node/upgrades.test.mjs
// An instance built by earlier code upgrades in place. For each migration from 0036 on (the last five
// when this test was written, and every one added since), the database is migrated to just before it
// and rows are written by SQL into the tables it touches (test/node/upgrades/<tag>.mjs, as that
// schema had them); then `npm start` migrates the rest and the rows read back through the API. A new
// migration needs its fixture here, or this test fails.
//
// Released migrations never change: db/released-migrations.json holds each one's position, timestamp
// and checksum, and the second test fails when one is edited, renumbered or removed (a new migration is
// added to it with `npm run db:release`).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { bootstrap } from "../../scripts/bootstrap.mjs";
import { journalEntries, migratePostgres, migrationHash, migrationsUpTo } from "../../scripts/migrate.mjs";
import { startServer } from "../e2e/server.mjs";

const PG = "postgres://postgres@127.0.0.1:5432/postgres";
const FIRST_COVERED = "0036_alert_metric_images";
const fixtures = fileURLToPath(new URL("./upgrades/", import.meta.url));
const released = JSON.parse(readFileSync(fileURLToPath(new URL("../../db/released-migrations.json", import.meta.url)), "utf8"));

const entries = journalEntries();
const covered = entries.slice(entries.findIndex((entry) => entry.tag === FIRST_COVERED));

describe("an instance migrated by earlier code upgrades in place", () => {
  const name = `edgeforge_upgrade_${process.pid}_${randomBytes(3).toString("hex")}`;
  const url = `postgres://postgres@127.0.0.1:5432/${name}`;
  const rootToken = `glpat-${randomBytes(15).toString("base64url")}`;
  /** @type {pg.Client} */
  let db;
  let server;
  let dataDir;

  before(async () => {
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-upgrade-"));
  });

  after(async () => {
    await server?.stop();
    await db?.end();
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("has a fixture for every migration from 0036 on", () => {
    const missing = covered.filter((entry) => !existsSync(path.join(fixtures, `${entry.tag}.mjs`))).map((entry) => entry.tag);
    assert.deepEqual(missing, [], "write test/node/upgrades/<tag>.mjs for each new migration");
  });

  it("keeps the rows written before each migration, read through the API after `npm start` migrates", async () => {
    const filled = [];
    for (const [index, entry] of covered.entries()) {
      const previous = entries[entries.indexOf(entry) - 1];
      await migratePostgres(url, migrationsUpTo(previous.tag));
      if (index === 0) {
        db = new pg.Client({ connectionString: url });
        await db.connect();
        await bootstrap(db, { initialRootToken: rootToken });
      }
      const fixture = await import(path.join(fixtures, `${entry.tag}.mjs`));
      filled.push({ entry, fixture, state: await fixture.fill(db) });
    }

    server = await startServer({ dataDir, rootToken, databaseUrl: url });
    assert.match(server.output(), /migrations applied/);
    const api = async (method, route, { json, form } = {}) => {
      let body;
      if (form) {
        body = new FormData();
        for (const [key, value] of Object.entries(form)) body.append(key, value);
      }
      const res = await fetch(`${server.host}/api/v4${route}`, {
        method,
        headers: { "PRIVATE-TOKEN": rootToken, ...(json ? { "Content-Type": "application/json" } : {}) },
        body: json ? JSON.stringify(json) : body,
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
    };
    for (const { entry, fixture, state } of filled) {
      await it(entry.tag, () => fixture.check(api, state, assert, db));
    }
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`);
    assert.equal(rows[0].n, entries.length);
  });
});

describe("a database whose schema is newer than the code", () => {
  const name = `edgeforge_newer_${process.pid}_${randomBytes(3).toString("hex")}`;
  const url = `postgres://postgres@127.0.0.1:5432/${name}`;

  after(async () => {
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it("makes `npm start` refuse to start, naming the migration and the code, and change nothing", async () => {
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    await migratePostgres(url);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    // What a later release's migration leaves behind.
    const future = { hash: "f".repeat(64), when: entries.at(-1).when + 60_000 };
    await db.query(`INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ($1, $2)`, [future.hash, future.when]);
    await db.query(`INSERT INTO drizzle.edgeforge_migrations (hash, tag, code) VALUES ($1, '0999_from_the_future', '9.9.9 (abcdef0)')`, [future.hash]);
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-newer-"));
    try {
      const started = startServer({ dataDir, rootToken: `glpat-${randomBytes(15).toString("base64url")}`, databaseUrl: url, timeoutMs: 30_000 });
      await assert.rejects(started, (error) => {
        assert.match(error.message, /exited \(code 1/);
        assert.match(error.message, /start refused: the database's schema is newer than this code: it has 0999_from_the_future \(applied by Edgeforge 9\.9\.9 \(abcdef0\)\)/);
        assert.match(error.message, new RegExp(`its newest migration is ${entries.at(-1).tag}`));
        assert.doesNotMatch(error.message, /\n\s+at /, "no stack trace");
        return true;
      });
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM users`);
      assert.equal(rows[0].n, 0, "not even bootstrapped");
    } finally {
      await db.end();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("released migrations", () => {
  it("are never edited, renumbered or removed", () => {
    for (const migration of released) {
      const entry = entries[migration.idx];
      assert.ok(entry, `${migration.tag} was removed`);
      assert.equal(entry.tag, migration.tag, `position ${migration.idx} holds ${entry.tag}, released as ${migration.tag}`);
      assert.equal(entry.when, migration.when, `${migration.tag}'s timestamp changed`);
      assert.equal(migrationHash(entry.tag), migration.sha256, `${migration.tag} was edited after its release`);
    }
  });

  it("list every migration (npm run db:release adds new ones)", () => {
    assert.deepEqual(entries.slice(released.length).map((entry) => entry.tag), []);
  });
});
