// node --test test/node/root_token_file.test.mjs
// Root's generated token cannot be lost. bootstrap (scripts/bootstrap.mjs) writes it to
// a 0600 file before the transaction that creates it commits, as Omnibus GitLab keeps the generated root
// password in /etc/gitlab/initial_root_password; rootTokenFileState tells `npm start` whether to point at
// the file (until the token is first used). Against a throwaway database on the local PostgreSQL, as
// `npm start` with DATABASE_URL runs it (the file is on the machine that ran the start).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { bootstrap, readRootTokenFile, rootTokenFileState, sha256Hex } from "../../scripts/bootstrap.mjs";
import { migratePostgres, migrationsPending } from "../../scripts/migrate.mjs";

const PG = "postgres://postgres@127.0.0.1:5432/postgres";

const answers = () =>
  new Promise((resolve) => {
    const s = net.connect({ host: "127.0.0.1", port: 5432, timeout: 1000 });
    const done = (ok) => { s.destroy(); resolve(ok); };
    s.once("connect", () => done(true)).once("error", () => done(false)).once("timeout", () => done(false));
  });

describe("root's token file", { skip: !(await answers()) && "nothing listening on 127.0.0.1:5432" }, () => {
  const name = `edgeforge_rootfile_${randomBytes(4).toString("hex")}`;
  let dir;
  let file;
  let db;

  before(async () => {
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = `postgres://postgres@127.0.0.1:5432/${name}`;
    db = new pg.Client({ connectionString: url });
    await db.connect();
    assert.equal(await migrationsPending(db), true, "a new database has migrations pending");
    await migratePostgres(url);
    assert.equal(await migrationsPending(db), false, "and none once migrated");
    dir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-rootfile-"));
    file = path.join(dir, "initial_root_token");
  });

  after(async () => {
    await db?.end();
    if (dir) await rm(dir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it("is written (0600) with the token the first bootstrap generates, which the database knows", async () => {
    assert.equal(await rootTokenFileState(db, file), "none");
    const { rootToken } = await bootstrap(db, { rootTokenFile: file });
    assert.match(rootToken, /^glpat-/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(readRootTokenFile(file), rootToken);
    const { rows } = await db.query("SELECT user_id FROM personal_access_tokens WHERE token_digest = $1", [sha256Hex(rootToken)]);
    assert.deepEqual(rows, [{ user_id: 1 }]);
    assert.equal(await rootTokenFileState(db, file), "unused");
  });

  it("is kept, not rewritten, by later bootstraps, and reported used once last_used_at is set, revoked once revoked", async () => {
    const token = readRootTokenFile(file);
    assert.equal((await bootstrap(db, { rootTokenFile: file })).rootToken, null);
    assert.equal(readRootTokenFile(file), token);
    await db.query("UPDATE personal_access_tokens SET last_used_at = now() WHERE token_digest = $1", [sha256Hex(token)]);
    assert.equal(await rootTokenFileState(db, file), "used");
    await db.query("UPDATE personal_access_tokens SET revoked = true WHERE token_digest = $1", [sha256Hex(token)]);
    assert.equal(await rootTokenFileState(db, file), "revoked");
  });

  it("is stale when it holds a token this database does not know (another database's)", async () => {
    const other = path.join(dir, "other");
    writeFileSync(other, "Token: glpat-of-another-database\n");
    assert.equal(await rootTokenFileState(db, other), "stale");
  });

  it("survives a commit that fails (written before it), and the next start replaces its token", async () => {
    const fresh = path.join(dir, "fresh");
    // A database where root has no token yet, and a bootstrap whose commit fails after the file was written.
    await db.query("DELETE FROM personal_access_tokens WHERE user_id = 1");
    const failing = {
      query: (text, params) => (text === "COMMIT" ? Promise.reject(new Error("connection lost")) : db.query(text, params)),
    };
    await assert.rejects(bootstrap(failing, { rootTokenFile: fresh }), /connection lost/);
    const lost = readRootTokenFile(fresh);
    assert.ok(lost, "the file was written before the commit");
    assert.equal(await rootTokenFileState(db, fresh), "stale");
    const { rootToken } = await bootstrap(db, { rootTokenFile: fresh });
    assert.notEqual(rootToken, lost);
    assert.equal(readRootTokenFile(fresh), rootToken);
    assert.equal(await rootTokenFileState(db, fresh), "unused");
    assert.ok(existsSync(fresh) && /INITIAL_ROOT_TOKEN=/.test(readFileSync(fresh, "utf8")));
  });
});
