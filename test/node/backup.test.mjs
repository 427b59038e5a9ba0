// node --test test/node/backup.test.mjs
// `npm run backup` of a running instance and `npm run restore` into an empty DATA_DIR give back every
// row of every table and every R2 object, and the restored instance serves them through the API.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { openR2 } from "../../scripts/instance-archive.mjs";
import { openPglite } from "../../scripts/pglite-server.mjs";
import { apiCall, startServer } from "../e2e/server.mjs";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Every table's rows (sorted JSON lines) and every R2 object of a stopped instance. Not the sequences:
 * Postgres logs them 32 values ahead, so a reopened database may stand further on than the one that
 * was read; that the restored ones stand past every id is shown by writing after the restore.
 */
async function snapshot(dataDir) {
  const pglite = await openPglite({ dataDir: path.join(dataDir, "pglite") });
  const tables = {};
  try {
    const { rows } = await pglite.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
    for (const { tablename } of rows) {
      const { rows: lines } = await pglite.query(`SELECT to_json(t)::text AS line FROM "${tablename}" t`);
      tables[tablename] = lines.map((row) => row.line).sort();
    }
  } finally {
    await pglite.close();
  }
  const objects = {};
  const r2 = await openR2(path.join(dataDir, "worker/state/r2"));
  try {
    for (const [binding, bucket] of Object.entries(r2.buckets)) {
      const listed = await bucket.list({ include: ["httpMetadata", "customMetadata"] });
      for (const object of listed.objects) {
        const body = await bucket.get(object.key);
        const digest = createHash("sha256").update(new Uint8Array(await body.arrayBuffer())).digest("hex");
        objects[`${binding}/${object.key}`] = { digest, httpMetadata: object.httpMetadata, customMetadata: object.customMetadata };
      }
    }
  } finally {
    await r2.close();
  }
  return { tables, objects };
}

describe("npm run backup and npm run restore", () => {
  const rootToken = `glpat-${randomBytes(15).toString("base64url")}`;
  const dirs = [];
  const tmp = async (prefix) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  let server;

  after(async () => {
    await server?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("round-trips every table and every object of a running instance", async () => {
    const source = await tmp("edgeforge-backup-source-");
    // No cron tick while the copy is compared: the five-minute crons write rows of their own (the CI sweep
    // marks push events processed, the registry sweep's queue counts its message), and a tick during the
    // backup made the restored tables differ from the source's.
    server = await startServer({ dataDir: source, rootToken, embedded: true, env: { CRON_TICKER: "0" } });
    const api = (method, route, body) => apiCall(server.host, rootToken, method, route, body);
    const project = await api("POST", "/projects", { name: "Kept", initialize_with_readme: true });
    assert.equal(project.status, 201);
    const issue = await api("POST", `/projects/${project.body.id}/issues`, { title: "Survives", labels: "bug,backup" });
    assert.equal(issue.status, 201);
    const form = new FormData();
    form.append("file", new File([randomBytes(2048)], "data.bin"));
    const upload = await fetch(`${server.host}/api/v4/projects/${project.body.id}/uploads`, { method: "POST", headers: { "PRIVATE-TOKEN": rootToken }, body: form });
    assert.equal(upload.status, 201);
    const { url: uploadUrl } = await upload.json();
    const packageFile = await fetch(`${server.host}/api/v4/projects/${project.body.id}/packages/generic/tool/1.0.0/tool.txt`, {
      method: "PUT",
      headers: { "PRIVATE-TOKEN": rootToken },
      body: "package bytes",
    });
    assert.equal(packageFile.status, 201);

    // The requests above queued background work (the webhooks queue) whose consumer records its own
    // counters when it runs (functions/queue.ts, `queue_metrics`); the comparison below is exact, so the
    // backup waits until they have settled: seen twice alike, after some work was processed (at most ~20 s).
    let settled = "";
    for (let i = 0; i < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const stats = await api("GET", "/sidekiq/job_stats");
      const now = JSON.stringify(stats.body);
      if (now === settled && stats.body.jobs.processed > 0) break;
      settled = now;
    }

    const archive = path.join(await tmp("edgeforge-archive-"), "instance.zip");
    const backup = await run(process.execPath, [path.join(root, "scripts/backup.mjs"), archive], { cwd: root, env: { ...process.env, DATA_DIR: source, DATABASE_URL: "" } });
    assert.match(backup.stdout, /\[backup\] table issues: 1 rows/);
    assert.match(backup.stdout, /\[backup\] objects: [1-9]/);
    assert.match(backup.stdout, /\[backup\] wrote .*instance\.zip \(migration \d{4}_\w+/);
    await server.stop();
    server = null;

    const target = await tmp("edgeforge-backup-target-");
    const restore = await run(process.execPath, [path.join(root, "scripts/restore.mjs"), archive], { cwd: root, env: { ...process.env, DATA_DIR: target, DATABASE_URL: "" } });
    assert.match(restore.stdout, /\[restore\] table projects: 1 rows/);

    const [before, restored] = [await snapshot(source), await snapshot(target)];
    assert.ok(Object.keys(before.objects).length >= 2, "the upload and the package file are objects");
    assert.deepEqual(Object.keys(restored.tables), Object.keys(before.tables));
    for (const table of Object.keys(before.tables)) assert.deepEqual(restored.tables[table], before.tables[table], table);
    assert.deepEqual(restored.objects, before.objects);

    const again = await run(process.execPath, [path.join(root, "scripts/restore.mjs"), archive], { cwd: root, env: { ...process.env, DATA_DIR: target, DATABASE_URL: "" } }).catch((error) => error);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already holds/);

    server = await startServer({ dataDir: target, rootToken, embedded: true });
    const read = await apiCall(server.host, rootToken, "GET", `/projects/${project.body.id}/issues/${issue.body.iid}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.labels.sort(), ["backup", "bug"]);
    const readme = await apiCall(server.host, rootToken, "GET", `/projects/${project.body.id}/repository/files/README.md/raw?ref=main`);
    assert.equal(readme.status, 200);
    assert.match(readme.body, /Kept/);
    const next = await apiCall(server.host, rootToken, "POST", `/projects/${project.body.id}/issues`, { title: "Written after the restore", labels: "bug" });
    assert.equal(next.status, 201, JSON.stringify(next.body));
    assert.equal(next.body.iid, issue.body.iid + 1);
    const file = await fetch(`${server.host}/api/v4/projects/${project.body.id}/packages/generic/tool/1.0.0/tool.txt`, { headers: { "PRIVATE-TOKEN": rootToken } });
    assert.equal(await file.text(), "package bytes");
    assert.ok(uploadUrl);
  });

  it("prints its usage without an archive", async () => {
    const result = await run(process.execPath, [path.join(root, "scripts/restore.mjs")], { cwd: root }).catch((error) => error);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /usage: npm run restore ARCHIVE/);
  });

  before(() => assert.ok(existsSync(path.join(root, "wrangler.toml"))));
});
