// The layering rule of functions/ (.dependency-cruiser.cjs states it): kernel imports kernel; presenters
// (functions/entities/) import kernel and presenters; shared imports kernel, presenters and shared; a
// domain imports those, its own files, and from another domain only its public face (public.ts); no
// import loop, type-only ones included; route files have no SQL. dependency-cruiser checks it; this test
// runs it on the source tree, and on a copy with a planted violation so that the check itself can fail.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const depcruise = path.join(root, "node_modules/.bin/depcruise");

/** The violations dependency-cruiser finds in `dir` (a repository root): the rule has no exceptions. */
function cruise(dir) {
  const run = spawnSync(depcruise, ["functions", "--config", ".dependency-cruiser.cjs", "--output-type", "json"], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const report = JSON.parse(run.stdout);
  return {
    violations: report.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name ?? c).join(" → ")})` : ""}`),
  };
}

test("functions/ keeps the layering rule", () => {
  const { violations } = cruise(root);
  assert.deepEqual(violations, []);
});

test("the check fails on a domain importing another domain's internals, upward imports, a loop and SQL in a route", (t) => {
  const copy = mkdtempSync(path.join(tmpdir(), "layers-"));
  t.after(() => rmSync(copy, { recursive: true, force: true }));
  for (const entry of ["functions", "db", "tsconfig.json", ".dependency-cruiser.cjs"]) {
    cpSync(path.join(root, entry), path.join(copy, entry), { recursive: true });
  }
  symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"));
  writeFileSync(path.join(copy, "functions/labels/planted.ts"), 'export { insertIssue } from "../issues/queries";\n');
  writeFileSync(path.join(copy, "functions/kernel/planted.ts"), 'export type { Bindings } from "../shared/ci/coordinator";\n');
  writeFileSync(path.join(copy, "functions/shared/planted_a.ts"), 'import type { B } from "./planted_b";\nexport type A = B[];\n');
  writeFileSync(path.join(copy, "functions/shared/planted_b.ts"), 'import type { A } from "./planted_a";\nexport type B = { a?: A };\n');
  writeFileSync(path.join(copy, "functions/labels/routes/planted.ts"), 'export { eq } from "drizzle-orm";\n');
  // A presenter naming its own domain's row type, and shared machinery naming a domain.
  writeFileSync(path.join(copy, "functions/entities/planted.ts"), 'export type { Owner } from "../ci_variables/queries";\n');
  writeFileSync(path.join(copy, "functions/shared/planted_c.ts"), 'export { badgeErrors } from "../badges/rules";\n');
  const { violations } = cruise(copy);
  const rules = [...new Set(violations.map((v) => v.split(":")[0]))].sort();
  assert.deepEqual(rules, [
    "domain-imports-other-domains-public-face-only",
    "kernel-imports-only-kernel",
    "no-import-loop",
    "presenters-import-kernel-and-presenters",
    "routes-have-no-sql",
    "shared-imports-kernel-presenters-shared",
  ]);
  assert.ok(violations.some((v) => v.includes("functions/labels/planted.ts → functions/issues/queries/index.ts")), violations.join("\n"));
});
