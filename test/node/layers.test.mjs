// The layering rule of functions/ (.dependency-cruiser.cjs states it): kernel imports kernel; presenters
// (functions/entities/) import kernel and presenters; shared imports kernel, presenters and shared; a
// domain imports those, its own files, and from another domain only its public face (public.ts); no
// import loop, type-only ones included; route files have no SQL. dependency-cruiser checks it; this test
// runs it on the source tree, and on a copy with a planted violation so that the check itself can fail.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const depcruise = path.join(root, "node_modules/.bin/depcruise");

/** The violations dependency-cruiser finds in `dir` (a repository root), known ones left out. */
function cruise(dir) {
  const run = spawnSync(depcruise, ["functions", "--config", ".dependency-cruiser.cjs", "--ignore-known", "--output-type", "json"], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const report = JSON.parse(run.stdout);
  return {
    // Known violations come back with severity "ignore".
    violations: report.summary.violations.filter((v) => v.rule.severity !== "ignore").map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name ?? c).join(" → ")})` : ""}`),
  };
}

test("functions/ keeps the layering rule", () => {
  const { violations } = cruise(root);
  assert.deepEqual(violations, []);
});

test("the check fails on a domain importing another domain's internals, an upward import, a loop and SQL in a route", (t) => {
  const copy = mkdtempSync(path.join(tmpdir(), "layers-"));
  t.after(() => rmSync(copy, { recursive: true, force: true }));
  for (const entry of ["functions", "db", "tsconfig.json", ".dependency-cruiser.cjs", ".dependency-cruiser-known-violations.json"]) {
    cpSync(path.join(root, entry), path.join(copy, entry), { recursive: true });
  }
  symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"));
  writeFileSync(path.join(copy, "functions/labels/planted.ts"), 'export { insertIssue } from "../issues/queries";\n');
  writeFileSync(path.join(copy, "functions/kernel/planted.ts"), 'export type { Bindings } from "../shared/ci/coordinator";\n');
  writeFileSync(path.join(copy, "functions/shared/planted_a.ts"), 'import type { B } from "./planted_b";\nexport type A = B[];\n');
  writeFileSync(path.join(copy, "functions/shared/planted_b.ts"), 'import type { A } from "./planted_a";\nexport type B = { a?: A };\n');
  writeFileSync(path.join(copy, "functions/labels/routes/planted.ts"), 'export { eq } from "drizzle-orm";\n');
  const { violations } = cruise(copy);
  const rules = [...new Set(violations.map((v) => v.split(":")[0]))].sort();
  assert.deepEqual(rules, ["domain-imports-other-domains-public-face-only", "kernel-imports-only-kernel", "no-import-loop", "routes-have-no-sql"]);
  assert.ok(violations.some((v) => v.includes("functions/labels/planted.ts → functions/issues/queries/index.ts")), violations.join("\n"));
});

test("the known violations are presenters' imports only, and each still occurs", () => {
  const known = JSON.parse(readFileSync(path.join(root, ".dependency-cruiser-known-violations.json"), "utf8"));
  assert.deepEqual([...new Set(known.map((k) => k.rule.name))], ["presenters-import-kernel-and-presenters"]);
  const all = spawnSync(depcruise, ["functions", "--config", ".dependency-cruiser.cjs", "--output-type", "json"], { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const current = new Set(JSON.parse(all.stdout).summary.violations.map((v) => `${v.from} → ${v.to}`));
  assert.deepEqual(known.map((k) => `${k.from} → ${k.to}`).filter((k) => !current.has(k)), [], "a fixed violation is removed from the list (npx depcruise-baseline functions)");
});
