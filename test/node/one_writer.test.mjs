// "One writer for each side effect" (docs/architecture.md, "Side effects"), checked on the source files:
// an INSERT into the rows of a side effect (raw SQL or Drizzle's `.insert(table)`) appears only in its
// writer, so every other domain goes through it.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const functions = path.join(root, "functions");

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

/** Table (SQL name, Drizzle name) → the files allowed to insert its rows. */
const WRITERS = [
  { table: "notes", drizzle: "notes", writers: ["functions/shared/issuables/note_writes.ts", "functions/shared/issuables/system_notes.ts"] },
  { table: "award_emoji", drizzle: "awardEmoji", writers: ["functions/shared/issuables/award_writes.ts"] },
  { table: "todos", drizzle: "todos", writers: ["functions/shared/issuables/todos.ts"] },
  { table: "subscriptions", drizzle: "subscriptions", writers: ["functions/shared/issuables/subscriptions.ts"] },
  { table: "resource_label_events", drizzle: "resourceLabelEvents", writers: ["functions/shared/issuables/resource_events.ts"] },
  { table: "resource_milestone_events", drizzle: "resourceMilestoneEvents", writers: ["functions/shared/issuables/resource_events.ts"] },
  { table: "resource_state_events", drizzle: "resourceStateEvents", writers: ["functions/shared/issuables/resource_events.ts"] },
];

const sources = walk(functions).map((f) => ({ file: path.relative(root, f).split(path.sep).join("/"), text: readFileSync(f, "utf8") }));

test("every writer named exists and inserts its table", () => {
  for (const { table, writers } of WRITERS)
    for (const writer of writers) {
      const source = sources.find((s) => s.file === writer);
      assert.ok(source, `${writer} is missing`);
      assert.match(source.text, new RegExp(`INSERT\\s+INTO\\s+${table}\\b|\\.insert\\(`, "i"), `${writer} does not insert into ${table}`);
    }
});

test("rows of a side effect are inserted by their writer only", () => {
  const offenders = [];
  for (const { table, drizzle, writers } of WRITERS) {
    const pattern = new RegExp(`INSERT\\s+INTO\\s+${table}\\b|\\.insert\\(\\s*${drizzle}\\s*\\)`, "i");
    for (const { file, text } of sources) if (!writers.includes(file) && pattern.test(text)) offenders.push(`${file} inserts into ${table}`);
  }
  assert.deepEqual(offenders, []);
});

/**
 * Tables whose every write (INSERT, UPDATE, DELETE; raw SQL or Drizzle) has one writer: to-dos are
 * created, resolved and deleted only through `shared/issuables/todos.ts`, iid counters only through
 * `shared/issuables/iids.ts`, metric images (incidents' and alerts') only through `shared/metric_images.ts`.
 */
const ALL_WRITES = [
  { table: "todos", drizzle: "todos", writer: "functions/shared/issuables/todos.ts" },
  { table: "internal_ids", drizzle: "internalIds", writer: "functions/shared/issuables/iids.ts" },
  { table: "issuable_metric_images", drizzle: "issuableMetricImages", writer: "functions/shared/metric_images.ts" },
  { table: "alert_management_alert_metric_images", drizzle: "alertManagementAlertMetricImages", writer: "functions/shared/metric_images.ts" },
  // The deployment a Pages site serves: moved only by functions/pages/queries.ts (switchDeployment, unpublish).
  { table: "project_pages_metadata", drizzle: "projectPagesMetadata", writer: "functions/pages/queries.ts" },
];

test("to-dos, iid counters and metric images are written (insert, update, delete) by their writer only", () => {
  const offenders = [];
  for (const { table, drizzle, writer } of ALL_WRITES) {
    const pattern = new RegExp(
      `(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+${table}\\b|\\.(insert|update|delete)\\(\\s*${drizzle}\\s*\\)`,
      "i",
    );
    assert.ok(pattern.test(sources.find((s) => s.file === writer).text), `${writer} does not write ${table}`);
    for (const { file, text } of sources) if (file !== writer && pattern.test(text)) offenders.push(`${file} writes ${table}`);
  }
  assert.deepEqual(offenders, []);
});

test("iids come from the counter, never from max(iid)", () => {
  // InternalId's `init` and a project import's restore read max(iid) inside the counter's module only.
  const offenders = sources
    .filter(({ file, text }) => file !== "functions/shared/issuables/iids.ts" && /max\(\s*(\w+\.)?iid\s*\)/i.test(text))
    .map(({ file }) => file);
  assert.deepEqual(offenders, []);
});
