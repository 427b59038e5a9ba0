// Job status has one reporter (docs/domains.md, "Webhooks"): every statement that writes
// `ci_builds.status` lives in a known place, returns what it changed, and its caller hands that to
// `jobStatusChanged` (functions/shared/ci/finished.ts), which sends the Job Hook. This test reads the
// source files and fails when a status write appears anywhere else, or when a writer's changes can no
// longer reach the reporter.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

const sources = walk(path.join(root, "functions")).map((f) => ({ file: path.relative(root, f).split(path.sep).join("/"), text: readFileSync(f, "utf8") }));
const source = (file) => sources.find((s) => s.file === file).text;

/** The text from `open` (an index of "(") to its matching ")". */
function balanced(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

const SETS_STATUS = /(^|[\s{,])status\s*[:,}]/;

/** Every statement of `text` that writes ci_builds.status: `{kind, at, statement}`. */
export function statusWrites(text) {
  const found = [];
  // Drizzle: .update(ciBuilds).set({ …status… }) …
  for (const m of text.matchAll(/\.update\(\s*ciBuilds\s*\)\s*\.set\(/g)) {
    const open = m.index + m[0].length - 1;
    const set = balanced(text, open);
    if (!SETS_STATUS.test(set)) continue;
    const rest = text.slice(open + set.length);
    const end = rest.search(/;\s*$|;\n/m);
    found.push({ kind: "update", at: m.index, statement: m[0] + set.slice(1) + rest.slice(0, end) });
  }
  // Raw SQL: UPDATE ci_builds … SET … status = … (up to the closing backtick).
  for (const m of text.matchAll(/UPDATE\s+ci_builds\b[^`]*/gi)) {
    const set = /\bSET\b([\s\S]*?)(\bFROM\b|\bWHERE\b|\bRETURNING\b|$)/i.exec(m[0]);
    if (set && /(^|[\s,])status\s*=/.test(set[1])) found.push({ kind: "update", at: m.index, statement: m[0] });
  }
  // New rows have a status too.
  for (const m of text.matchAll(/\.insert\(\s*ciBuilds\s*\)|INSERT\s+INTO\s+ci_builds\b/gi)) found.push({ kind: "insert", at: m.index, statement: m[0] });
  return found;
}

/** Where job status may be written, and why each place's changes reach the reporter. */
const ALLOWED = {
  // The engine: each statement returns its changes (`CHANGE`), which the coordinator reports. Its inserts
  // (a retry's clone) are reported as created by the first processing run that sees them.
  "functions/shared/ci/processing.ts": { updates: Infinity, inserts: 1 },
  // The runner's claim (pending → running), reported by the route that claims (runners/routes.ts).
  "functions/runners/queries.ts": { updates: 1, inserts: 0 },
  // A new pipeline's jobs, reported as created by their first processing run.
  "functions/shared/ci/create.ts": { updates: 0, inserts: 1 },
  // Imported jobs, inserted processed: GitLab's `after_create unless: :importing?` sends nothing either.
  "functions/project_import/queries.ts": { updates: 0, inserts: 1 },
};

test("ci_builds.status is written only where its changes reach the one reporter", () => {
  const offenders = [];
  for (const { file, text } of sources) {
    const writes = statusWrites(text);
    if (writes.length === 0) continue;
    const allowed = ALLOWED[file];
    if (!allowed) {
      offenders.push(`${file} writes ci_builds.status (${writes.length} statements): go through functions/shared/ci/processing.ts`);
      continue;
    }
    const updates = writes.filter((w) => w.kind === "update").length;
    const inserts = writes.filter((w) => w.kind === "insert").length;
    if (updates > allowed.updates) offenders.push(`${file} has ${updates} status updates, ${allowed.updates} allowed`);
    if (inserts > allowed.inserts) offenders.push(`${file} has ${inserts} job inserts, ${allowed.inserts} allowed`);
  }
  assert.deepEqual(offenders, []);
});

test("the engine's status updates return the rows they changed", () => {
  const text = source("functions/shared/ci/processing.ts");
  const updates = statusWrites(text).filter((w) => w.kind === "update");
  assert.ok(updates.length >= 8, `expected the engine's status updates, found ${updates.length}`);
  for (const w of updates) assert.match(w.statement, /\.returning\(\s*(CHANGE|\{\s*\.\.\.CHANGE)|RETURNING\b/, `not returning its changes: ${w.statement.slice(0, 120)}`);
});

test("every engine function that writes job status returns its changes, and the coordinator reports them", () => {
  const text = source("functions/shared/ci/processing.ts");
  const functions = [...text.matchAll(/^(export )?async function (\w+)\(/gm)].map((m, i, all) => ({
    exported: Boolean(m[1]),
    name: m[2],
    body: text.slice(m.index, all[i + 1]?.index ?? text.length),
  }));
  // A function writes when it holds a status update, or calls a local function that does.
  const writers = new Set(functions.filter((f) => statusWrites(f.body).some((w) => w.kind === "update")).map((f) => f.name));
  let grew = true;
  while (grew) {
    grew = false;
    for (const f of functions)
      if (!writers.has(f.name) && [...writers].some((w) => new RegExp(`\\b${w}\\(`).test(f.body.slice(f.body.indexOf("{"))))) {
        writers.add(f.name);
        grew = true;
      }
  }
  const exported = functions.filter((f) => f.exported && writers.has(f.name));
  assert.ok(exported.length >= 8, `expected the engine's writers, found ${exported.map((f) => f.name)}`);
  const coordinator = source("functions/shared/ci/pipeline_coordinator.ts");
  const missing = [];
  for (const f of exported) {
    const signature = f.body.slice(0, f.body.indexOf("{\n"));
    if (!/JobStatusChange|ProcessResult/.test(signature)) missing.push(`${f.name} does not return its JobStatusChange[]`);
    const calls = [...coordinator.matchAll(new RegExp(`engine\\.${f.name}\\(`, "g"))];
    if (calls.length === 0) missing.push(`${f.name} is not called by the coordinator`);
    for (const call of calls) {
      // The call's result reaches reportJobs within the next few lines (processPipeline: processAndReport).
      const around = coordinator.slice(Math.max(0, call.index - 40), call.index + 400);
      if (!/reportJobs\(/.test(around)) missing.push(`coordinator calls ${f.name} without reportJobs`);
    }
  }
  assert.deepEqual(missing, []);
  assert.match(coordinator, /jobStatusChanged\(this\.env, changes\)/);
});

test("the runner's claim is reported by the route that claims", () => {
  const routes = source("functions/runners/routes.ts");
  const claim = routes.indexOf("q.claimJob(");
  assert.ok(claim > 0);
  assert.match(routes.slice(claim), /jobStatusChanged\(c\.env, \[\{ id: job\.id/);
});

/**
 * Who owns CI state: SQL owns one transition, the runner's claim (pending → running, `FOR UPDATE SKIP
 * LOCKED` in runners/queries.ts), which a row lock makes safe against every other writer of the row.
 * Every other transition, and the pipeline's status, is computed by the engine (shared/ci/processing.ts)
 * inside the pipeline's PipelineCoordinator, which runs its calls one after another (its `serial` chain).
 * So the engine is imported by the coordinator only, and only the engine updates a pipeline's status
 * (creation and import insert pipelines with theirs). test/shared/ci/pipeline_coordinator.test.ts shows
 * the serialisation at work.
 */
export function pipelineStatusUpdates(text) {
  const found = [];
  for (const m of text.matchAll(/\.update\(\s*ciPipelines\s*\)\s*\.set\(/g)) {
    const set = balanced(text, m.index + m[0].length - 1);
    if (SETS_STATUS.test(set)) found.push(m.index);
  }
  for (const m of text.matchAll(/UPDATE\s+ci_pipelines\b[^`]*/gi)) {
    const set = /\bSET\b([\s\S]*?)(\bFROM\b|\bWHERE\b|\bRETURNING\b|$)/i.exec(m[0]);
    if (set && /(^|[\s,])status\s*=/.test(set[1])) found.push(m.index);
  }
  return found;
}

test("pipeline status is written by the engine only, and the engine runs only in the coordinator", () => {
  const offenders = [];
  for (const { file, text } of sources) {
    if (file !== "functions/shared/ci/processing.ts" && pipelineStatusUpdates(text).length > 0) offenders.push(`${file} updates ci_pipelines.status`);
    // A value import of the engine (type-only imports name its types and run nothing).
    for (const m of text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+"([^"]*\/)?processing";/gm))
      if (file !== "functions/shared/ci/pipeline_coordinator.ts") offenders.push(`${file} runs the engine outside the coordinator: ${m[0]}`);
  }
  assert.deepEqual(offenders, []);
  assert.equal(pipelineStatusUpdates(source("functions/shared/ci/processing.ts")).length, 1);
  // Each public method of the coordinator that changes state runs inside its chain.
  const coordinator = source("functions/shared/ci/pipeline_coordinator.ts");
  for (const method of ["cancel", "retry", "retryJob", "playJob", "cancelJob", "finishJob", "postStatus", "alarm"]) {
    const at = coordinator.search(new RegExp(`^  (async )?${method}\\(`, "m"));
    assert.ok(at > 0, `${method} is missing`);
    assert.match(coordinator.slice(at, at + 400), /this\.serial\(/, `${method} does not run in the coordinator's chain`);
  }
  assert.match(coordinator, /process\(pipelineId: number\)[^]*?this\.serial\(/);
});

test("the reporter sees every kind of write (self-check of the scanner)", () => {
  const sample = [
    "await db.update(ciBuilds).set({ status: 'x' }).where(a);",
    "await db.update(ciBuilds).set({ status, finishedAt }).where(a);",
    "await db.update(ciBuilds).set({ coverage }).where(a);",
    "sql`UPDATE ci_builds SET status = 'running' WHERE id = 1`",
    "sql`UPDATE ci_builds SET trace_size = 1 WHERE status = 'running'`",
    "await tx.insert(ciBuilds).values(rows);",
  ].join("\n");
  assert.deepEqual(statusWrites(sample).map((w) => w.kind), ["update", "update", "update", "insert"]);
  const pipelines = [
    "await db.update(ciPipelines).set({ status, startedAt }).where(a);",
    "await db.update(ciPipelines).set({ coverage }).where(a);",
    "sql`UPDATE ci_pipelines SET status = 'failed' WHERE id = 1`",
    "sql`UPDATE ci_pipelines SET duration = 1 WHERE status = 'running'`",
  ].join("\n");
  assert.equal(pipelineStatusUpdates(pipelines).length, 2);
});
