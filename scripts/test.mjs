#!/usr/bin/env node
// `npm test`: the vitest suite inside workerd, then the Node-side tests (proxy, end to end), and one
// closing line `N passed, N failed, N skipped` over both (docs/testing.md, "How `npm test` runs").
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const tmp = path.join(root, "test/.tmp");
rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });
const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };

/** Whether something accepts a TCP connection at host:port within `ms`. */
function answers(host, port, ms) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(ms, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

// The end-to-end servers take a fresh database each on the same Postgres server the vitest suite
// uses (test/e2e/server.mjs), three times faster than each starting embedded PGlite; the tests of
// `npm start`'s own embedded database still take PGlite. TEST_DATABASE_URL=pglite keeps PGlite everywhere.
const explicitDatabase = process.env.TEST_DATABASE_URL;
if (explicitDatabase !== "pglite" && !env.E2E_FRESH_POSTGRES) {
  if (explicitDatabase) env.E2E_FRESH_POSTGRES = explicitDatabase;
  else if (await answers("127.0.0.1", 5432, 1000)) env.E2E_FRESH_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres";
}

/**
 * Runs one part of the suite in its own process group and stops the whole group (workerd, servers,
 * browsers) if it runs past `limitMinutes`: a hung test then fails the run with a line saying so,
 * instead of holding CI until its own time-out with nothing printed.
 */
function run(command, args, limitMinutes) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: "inherit", env, detached: true });
    const stopGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group has already exited
      }
    };
    const onInterrupt = () => stopGroup("SIGINT");
    process.on("SIGINT", onInterrupt);
    process.on("SIGTERM", onInterrupt);
    const watchdog = setTimeout(() => {
      console.error(`\n${path.basename(command)} ran for more than ${limitMinutes} minutes and was stopped: a test hangs (the lines above show which files finished)`);
      stopGroup("SIGTERM");
      setTimeout(() => stopGroup("SIGKILL"), 10_000).unref();
    }, limitMinutes * 60_000);
    child.on("exit", (code) => {
      clearTimeout(watchdog);
      process.off("SIGINT", onInterrupt);
      process.off("SIGTERM", onInterrupt);
      resolve(code ?? 1);
    });
  });
}

const totals = { passed: 0, failed: 0, skipped: 0 };

const vitestReport = path.join(tmp, "vitest.json");
const vitestCode = await run(path.join(root, "node_modules/.bin/vitest"), [
  "run", "--config", "test/vitest.config.ts", "--reporter=default", "--reporter=json", `--outputFile=${vitestReport}`,
  ...process.argv.slice(2),
], 30);
try {
  const report = JSON.parse(readFileSync(vitestReport, "utf8"));
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests;
  totals.skipped += report.numPendingTests + report.numTodoTests;
  if (vitestCode !== 0 && report.numFailedTests === 0) totals.failed += 1; // a suite that failed to load
} catch {
  totals.failed += 1;
}

const nodeReport = path.join(tmp, "node.tap");
const nodeCode = await run(process.execPath, [
  // A test that runs 15 minutes has hung (the longest take about two); it fails alone and the rest go on.
  // (Not `--test-force-exit`: it ends the run before the reporters write their totals.)
  "--test", "--test-concurrency=3", "--test-timeout=900000",
  "--test-reporter=spec", "--test-reporter-destination=stdout",
  "--test-reporter=tap", `--test-reporter-destination=${nodeReport}`,
  "test/node/", "test/e2e/",
], 40);
try {
  const tap = readFileSync(nodeReport, "utf8");
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(tap)?.[1] ?? 0);
  totals.passed += count("pass");
  totals.failed += count("fail") + count("cancelled");
  totals.skipped += count("skipped") + count("todo");
  if (nodeCode !== 0 && count("fail") + count("cancelled") === 0) totals.failed += 1;
} catch {
  totals.failed += 1;
}

console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 || vitestCode !== 0 || nodeCode !== 0 ? 1 : 0);
