#!/usr/bin/env node
// `npm run db:release`: adds the migrations not yet in db/released-migrations.json to it (position,
// timestamp and checksum). Entries already there are never rewritten: a released migration is
// frozen, and test/node/upgrades.test.mjs fails when one changes.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { journalEntries, migrationHash } from "./migrate.mjs";

const file = fileURLToPath(new URL("../db/released-migrations.json", import.meta.url));
let released = [];
try {
  released = JSON.parse(readFileSync(file, "utf8"));
} catch {
  // the first release
}
const added = journalEntries().slice(released.length).map((entry) => ({ idx: entry.idx, tag: entry.tag, when: entry.when, sha256: migrationHash(entry.tag) }));
writeFileSync(file, `${JSON.stringify([...released, ...added], null, 1)}\n`);
console.log(added.length ? `released: ${added.map((entry) => entry.tag).join(", ")}` : "every migration is already released");
