// "One writer for each side effect" (docs/architecture.md, "Shared layer"), checked on the source files:
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
  { table: "notes", drizzle: "notes", writers: ["functions/notes/writes.ts", "functions/shared/issuables/system_notes.ts"] },
  { table: "award_emoji", drizzle: "awardEmoji", writers: ["functions/award_emoji/writes.ts"] },
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
