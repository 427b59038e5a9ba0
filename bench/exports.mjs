#!/usr/bin/env node
// `npm run bench:exports` (also run by `npm run bench`): how long the export of a project
// with BENCH_EXPORT_ISSUES (10,000) issues takes, and the import of the archive it made, Edgeforge as
// `npm start` runs it (scripts/start.mjs: the Worker on workerd through Miniflare, its local queues and R2).
//
//   database:  DATABASE_URL unset → embedded PGlite in a temporary DATA_DIR (as `npm start`);
//              DATABASE_URL set   → a fresh database `edgeforge_bench_exports_<rand>` on that server (loopback
//              only), dropped at the end.
//   seed:      in bulk by SQL before the server starts (generate_series): the project, 10 labels, the issues
//              (each with one label link and one comment; every 10th closed), root as the owner.
//   measure:   `POST /projects/:id/export` as root, then `GET …/export` every 250 ms until `finished`: the
//              export time is from the POST to the first `finished` (the queue's delivery included). Then
//              the archive is downloaded and sent to `POST /projects/import`, and `GET /projects/:id/import`
//              is polled the same way: the import time is from the POST to `finished`, and the imported
//              project must have as many issues as the source.
//   env:       BENCH_EXPORT_ISSUES overrides the count.
//
// Everything listens on and targets 127.0.0.1 only; the run stops itself after 5 minutes at most; everything
// started is stopped and temporary files and databases removed.
import { randomBytes } from "node:crypto";
import { bootstrap } from "../scripts/bootstrap.mjs";
import { startServer } from "../test/e2e/server.mjs";
import { benchRun, withDatabase } from "./support.mjs";

const ISSUES = Number(process.env.BENCH_EXPORT_ISSUES || 10_000);
const DEADLINE_MS = 295_000;
const POLL_MS = 250;
const ROOT_TOKEN = `glpat-bench${randomBytes(10).toString("hex")}`;

const { log, cleanups, fail, finish, machine, prepareDatabase } = benchRun({ label: "bench:exports", deadlineMs: DEADLINE_MS });

/** The project, its labels, issues, label links and comments, in a handful of statements. */
async function seed(db) {
  const project = Number(
    (
      await db.query(
        `INSERT INTO projects (name, path, namespace_id, full_path, name_with_namespace, creator_id, visibility_level)
         SELECT 'bench-exports', 'bench-exports', n.id, 'root/bench-exports', 'Administrator / bench-exports', 1, 0
         FROM namespaces n WHERE n.type = 'User' AND n.path = 'root' RETURNING id`,
      )
    ).rows[0].id,
  );
  await db.query(`INSERT INTO members (source_type, source_id, user_id, access_level) VALUES ('Project', $1, 1, 50)`, [project]);
  await db.query(`INSERT INTO labels (project_id, title, color) SELECT $1, 'label-' || g, '#6699cc' FROM generate_series(1, 10) g`, [project]);
  await db.query(
    `INSERT INTO issues (project_id, iid, title, description, state, author_id, created_at, updated_at)
     SELECT $1, g, 'Issue ' || g, 'The description of issue ' || g || E'.\\n\\nWith a second paragraph.',
            CASE WHEN g % 10 = 0 THEN 'closed' ELSE 'opened' END, 1,
            now() - make_interval(mins => $2 - g), now() - make_interval(mins => $2 - g)
       FROM generate_series(1, $2::int) g`,
    [project, ISSUES],
  );
  await db.query(`INSERT INTO internal_ids (usage, project_id, last_value) VALUES ('issues', $1, $2)`, [project, ISSUES]);
  await db.query(
    `INSERT INTO label_links (label_id, target_type, target_id)
     SELECT l.id, 'Issue', i.id FROM issues i JOIN labels l ON l.project_id = i.project_id AND l.title = 'label-' || (i.iid % 10 + 1)
      WHERE i.project_id = $1`,
    [project],
  );
  await db.query(
    `INSERT INTO notes (noteable_type, noteable_id, project_id, author_id, note, discussion_id)
     SELECT 'Issue', i.id, i.project_id, 1, 'A comment on issue ' || i.iid, md5(i.id::text) || substr(md5(i.iid::text), 1, 8)
       FROM issues i WHERE i.project_id = $1`,
    [project],
  );
  await db.query(`UPDATE issues SET user_notes_count = 1 WHERE project_id = $1`, [project]);
  return project;
}

async function api(base, method, pathname, init = {}) {
  const res = await fetch(`${base}${pathname}`, { method, ...init, headers: { "PRIVATE-TOKEN": ROOT_TOKEN, ...(init.headers ?? {}) } });
  return res;
}

/** Polls `pathname` until `field` leaves the waiting states; returns the final body. */
async function waitFor(base, pathname, field, waiting) {
  for (;;) {
    const body = await (await api(base, "GET", pathname)).json();
    if (!waiting.includes(body[field])) return body;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function main() {
  const { dataDir, target, mode } = await prepareDatabase("edgeforge_bench_exports_");
  log(`database: ${mode}`);

  let t = Date.now();
  const project = await withDatabase(target, async (db) => {
    await bootstrap(db, { initialRootToken: ROOT_TOKEN });
    return seed(db);
  });
  log(`seeded project ${project}: ${ISSUES} issues, ${ISSUES} comments, ${ISSUES} label links in ${((Date.now() - t) / 1000).toFixed(1)} s`);

  const server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: target.url, timeoutMs: 90_000 });
  cleanups.push(() => server.stop(20_000));
  const base = server.apiUrl;
  log(`Edgeforge: ${base}`);

  t = Date.now();
  const started = await api(base, "POST", `/projects/${project}/export`);
  if (started.status !== 202) throw new Error(`POST /export answered ${started.status}: ${await started.text()}`);
  const exported = await waitFor(base, `/projects/${project}/export`, "export_status", ["queued", "started", "regeneration_in_progress"]);
  const exportSeconds = (Date.now() - t) / 1000;
  if (exported.export_status !== "finished") throw new Error(`the export ended ${exported.export_status}`);
  const archive = new Uint8Array(await (await api(base, "GET", `/projects/${project}/export/download`)).arrayBuffer());
  log(`export finished in ${exportSeconds.toFixed(1)} s (${(archive.length / 1024).toFixed(0)} KiB)`);

  t = Date.now();
  const form = new FormData();
  form.append("path", "bench-imported");
  form.append("file", new Blob([archive], { type: "application/gzip" }), "export.tar.gz");
  const scheduled = await api(base, "POST", "/projects/import", { body: form });
  if (scheduled.status !== 201) throw new Error(`POST /projects/import answered ${scheduled.status}: ${await scheduled.text()}`);
  const imported = (await scheduled.json()).id;
  const done = await waitFor(base, `/projects/${imported}/import`, "import_status", ["scheduled", "started"]);
  const importSeconds = (Date.now() - t) / 1000;
  if (done.import_status !== "finished") throw new Error(`the import ended ${done.import_status}: ${done.import_error}`);
  // `X-Total` is left out past 10,000 rows (GitLab's capped count); the last iid must be there either way.
  const total = (await api(base, "GET", `/projects/${imported}/issues?per_page=1&state=all`)).headers.get("x-total");
  if (total !== null && Number(total) !== ISSUES) throw new Error(`the imported project has ${total} issues, not ${ISSUES}`);
  const last = await api(base, "GET", `/projects/${imported}/issues/${ISSUES}`);
  if (last.status !== 200) throw new Error(`the imported project has no issue ${ISSUES} (${last.status})`);
  log(`import finished in ${importSeconds.toFixed(1)} s (${done.failed_relations.length} failed relations)`);

  console.log("");
  console.log(`Edgeforge export/import bench: ${mode}`);
  console.log(`${ISSUES} issues, each with one comment and one label; archive ${(archive.length / 1024).toFixed(0)} KiB`);
  console.log(machine());
  console.log("");
  console.log(`export (POST /projects/:id/export → export_status finished): ${exportSeconds.toFixed(1)} s`);
  console.log(`import (POST /projects/import → import_status finished):     ${importSeconds.toFixed(1)} s`);
  console.log(`(polled every ${POLL_MS} ms; the queue's delivery is included)`);
  await finish();
  log("done");
  process.exit(0);
}

main().catch(fail);
