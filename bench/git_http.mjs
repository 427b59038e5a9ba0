#!/usr/bin/env node
// `npm run bench:git_http` (also run by `npm run bench`): git over smart HTTP with the git
// CLI against Edgeforge as `npm start` runs it (scripts/start.mjs: the Worker on workerd through Miniflare, the WebSocket
// proxy, the database).
//
//   database:  DATABASE_URL unset → embedded PGlite in a temporary DATA_DIR (as `npm start`);
//              DATABASE_URL set   → a fresh database `edgeforge_bench_git_<rand>` on that server (loopback
//              only), dropped at the end.
//   seed:      a history of BENCH_GIT_COMMITS (10,000) commits built by the git CLI (`git fast-import`,
//              test/e2e/git-history.mjs: topic branches merged back, renames, binary files, tags), pushed
//              with `git push` into an empty project: the large push is the first figure.
//   measure:   `git clone --mirror` of that repository (seconds; the pack is checked by git's index-pack);
//              then 100 new commits pushed onto main from a working clone (seconds); then a `git fetch` of
//              those 100 commits into the mirror (seconds); then `GET …/repository/archive.tar.gz` of main
//              (seconds and bytes, checked with `tar -tz`). During each step the workerd process's resident
//              memory is sampled every 50 ms (/proc/<pid>/status VmRSS): the report gives its peak per step
//              and the baseline before it (workerd also holds the dev server's own state, so the step's
//              cost is the peak less the baseline), and VmHWM after the step (the kernel's own high-water
//              mark of the process since it started: it rises only when a step sets a new peak).
//   env:       BENCH_GIT_COMMITS overrides the history size; BENCH_GIT_LARGE=1 adds a blob over 1 MiB.
//
// Everything listens on and targets 127.0.0.1 only; the run stops itself after 15 minutes at most
// (BENCH_GIT_DEADLINE_MIN); everything
// started is stopped and temporary files and databases removed.
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { buildHistory, GIT_ENV } from "../test/e2e/git-history.mjs";
import { startServer } from "../test/e2e/server.mjs";
import { assertLoopback, benchRun, jsonRequest } from "./support.mjs";

const COMMITS = Number(process.env.BENCH_GIT_COMMITS || 10_000);
const ROOT_TOKEN = `glpat-bench${randomBytes(12).toString("hex")}`;
// BENCH_GIT_DEADLINE_MIN: a loaded machine may need longer than the default 15 minutes.
const DEADLINE_MIN = Number(process.env.BENCH_GIT_DEADLINE_MIN || 15);
const { log, cleanups, fail, finish, machine, createBenchDatabase } = benchRun({ label: "bench:git_http", deadlineMs: DEADLINE_MIN * 60_000 });

function git(cwd, args) {
  const result = spawnSync("git", ["-c", "gc.auto=0", "-c", "user.name=Bench", "-c", "user.email=bench@example.com", "-c", "credential.helper=", ...args], {
    cwd,
    env: GIT_ENV,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed:\n${result.stderr}`);
  return result.stdout;
}

/** The workerd process among the server's descendants (Miniflare spawns it). */
function workerdPid(rootPid) {
  const table = execFileSync("ps", ["-eo", "pid=,ppid=,comm="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm }));
  const descendants = new Set([rootPid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const row of table) {
      if (!descendants.has(row.pid) && descendants.has(row.ppid)) {
        descendants.add(row.pid);
        grew = true;
      }
    }
  }
  return table.find((row) => descendants.has(row.pid) && row.comm === "workerd")?.pid ?? null;
}

const statusKiB = (pid, field) => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
};
const rssKiB = (pid) => statusKiB(pid, "VmRSS");

/** Runs `fn`, sampling workerd's RSS; returns seconds, the baseline and the peak (MiB). */
async function measured(pid, fn) {
  const baseline = pid ? rssKiB(pid) : NaN;
  let peak = baseline;
  const timer = pid ? setInterval(() => (peak = Math.max(peak, rssKiB(pid))), 50) : null;
  const started = process.hrtime.bigint();
  try {
    await fn();
  } finally {
    if (timer) clearInterval(timer);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { seconds, baselineMiB: baseline / 1024, peakMiB: Math.max(peak, pid ? rssKiB(pid) : NaN) / 1024, hwmMiB: (pid ? statusKiB(pid, "VmHWM") : NaN) / 1024 };
}

async function main() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-bench-git-"));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  let databaseUrl;
  let mode = "embedded PGlite (one Postgres session)";
  if (process.env.DATABASE_URL) {
    assertLoopback(process.env.DATABASE_URL, "DATABASE_URL");
    const database = await createBenchDatabase(process.env.DATABASE_URL, "edgeforge_bench_git_");
    databaseUrl = database.url;
    mode = `PostgreSQL at ${new URL(process.env.DATABASE_URL).host}, database ${database.name}`;
  }
  log(`database: ${mode}`);

  const source = path.join(dataDir, "source");
  git(dataDir, ["init", "-q", "-b", "main", source]);
  let started = Date.now();
  buildHistory(source, { commits: COMMITS, seed: 11, binaryEvery: 40, largeBlob: process.env.BENCH_GIT_LARGE === "1" });
  const total = Number(git(source, ["rev-list", "--count", "--all"]).trim());
  const objects = git(source, ["count-objects", "-v"]);
  log(`git built ${total} commits in ${((Date.now() - started) / 1000).toFixed(1)} s (${/size-pack: (\d+)/.exec(objects)?.[1] ?? "?"} KiB packed)`);

  const server = await startServer({ dataDir: path.join(dataDir, "server"), rootToken: ROOT_TOKEN, databaseUrl, timeoutMs: 90_000 });
  cleanups.push(() => server.stop(20_000));
  const pid = workerdPid(server.child.pid);
  log(`Edgeforge: ${server.apiUrl}; workerd pid ${pid ?? "not found (memory not measured)"}`);

  const created = await jsonRequest({ base: server.apiUrl, token: ROOT_TOKEN }, "POST", "/projects", { name: "bench-git", visibility: "private" });
  if (created.status !== 201) throw new Error(`project: ${created.status} ${created.text}`);
  const project = JSON.parse(created.text);
  const url = new URL(`${server.host}/${project.path_with_namespace}.git`);
  url.username = "bench";
  url.password = ROOT_TOKEN;

  const rows = [];
  const step = async (name, fn) => {
    const result = await measured(pid, fn);
    rows.push({ name, ...result });
    log(`${name}: ${result.seconds.toFixed(2)} s, workerd RSS peak ${result.peakMiB.toFixed(0)} MiB (baseline ${result.baselineMiB.toFixed(0)} MiB, VmHWM ${result.hwmMiB.toFixed(0)} MiB)`);
  };

  await step(`push of the ${total}-commit history (git push, all branches and tags)`, () => git(source, ["push", "-q", url.toString(), "refs/heads/*:refs/heads/*", "refs/tags/*:refs/tags/*"]));
  const mirror = path.join(dataDir, "mirror");
  await step(`clone of the ${total}-commit repository (git clone --mirror)`, () => git(dataDir, ["clone", "-q", "--mirror", url.toString(), mirror]));
  const cloned = Number(git(mirror, ["rev-list", "--count", "--all"]).trim());
  if (cloned !== total) throw new Error(`the clone has ${cloned} commits, the source ${total}`);
  if (git(mirror, ["rev-parse", "main"]) !== git(source, ["rev-parse", "main"])) throw new Error("main differs after the clone");

  const work = path.join(dataDir, "work");
  git(dataDir, ["clone", "-q", "--reference", mirror, url.toString(), work]);
  for (let i = 0; i < 100; i++) {
    execFileSync("sh", ["-c", `echo "bench line ${i}" >> bench.txt && echo ${i} > "file-${i % 10}.txt"`], { cwd: work });
    git(work, ["add", "-A"]);
    git(work, ["commit", "-q", "-m", `bench commit ${i}`]);
  }
  await step("push of 100 commits onto main (git push)", () => git(work, ["push", "-q", "origin", "main"]));
  await step("fetch of those 100 commits into the mirror (git fetch)", () => git(mirror, ["fetch", "-q", "origin", "+refs/heads/*:refs/heads/*"]));
  if (git(mirror, ["rev-parse", "main"]) !== git(work, ["rev-parse", "main"])) throw new Error("main differs after the fetch");
  git(mirror, ["fsck", "--full"]);

  // The archive streams from the store (tar built entry by entry, gzip as it goes): read it to the end.
  const archive = path.join(dataDir, "main.tar.gz");
  let archiveBytes = 0;
  await step("GET …/repository/archive.tar.gz of main", async () => {
    const res = await fetch(`${server.apiUrl}/projects/${project.id}/repository/archive.tar.gz?sha=main`, { headers: { "PRIVATE-TOKEN": ROOT_TOKEN } });
    if (res.status !== 200) throw new Error(`archive: ${res.status} ${await res.text()}`);
    const out = createWriteStream(archive);
    for await (const chunk of res.body) {
      archiveBytes += chunk.length;
      if (!out.write(chunk)) await new Promise((resolve) => out.once("drain", resolve));
    }
    await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
  });
  const members = execFileSync("tar", ["-tzf", archive], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 }).trim().split("\n").length;
  const files = Number(git(mirror, ["ls-tree", "-r", "--name-only", "main"]).trim().split("\n").length);
  log(`archive: ${(archiveBytes / 1024 / 1024).toFixed(1)} MiB, ${members} tar members for ${files} files of main`);
  rows[rows.length - 1].name += ` (${(archiveBytes / 1024 / 1024).toFixed(1)} MiB, ${members} members)`;

  console.log("");
  console.log(`git over smart HTTP — ${mode}, ${total} commits`);
  console.log(machine());
  console.log("| step | seconds | workerd RSS peak (MiB) | baseline (MiB) | VmHWM after (MiB) |");
  console.log("|---|---:|---:|---:|---:|");
  for (const row of rows) console.log(`| ${row.name} | ${row.seconds.toFixed(2)} | ${row.peakMiB.toFixed(0)} | ${row.baselineMiB.toFixed(0)} | ${row.hwmMiB.toFixed(0)} |`);
  await finish();
  log("done");
  process.exit(0);
}

main().catch(fail);
