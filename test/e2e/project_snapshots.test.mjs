// GET /projects/:id/snapshot end to end: Edgeforge started as `npm start` does, a
// history pushed with the real git CLI (merges, binary files, a blob over 1 MiB kept in R2, annotated and
// lightweight tags), the snapshot downloaded and untarred, and the extracted directory checked as the
// bare repository it stands for: `git fsck --full --strict`, `git verify-pack`, the same refs and HEAD as
// the source, and a `git clone` of it. An empty project's snapshot is an empty repository git accepts.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { buildHistory, git } from "./git-history.mjs";
import { gitServer } from "./git-server.mjs";

const STEP = { timeout: 300_000 };
const g = gitServer("snap");
const { api, remote, gitOk, rootToken: ROOT_TOKEN, run: RUN } = g;
const state = {};

function refsOf(dir) {
  return gitOk(dir, ["for-each-ref", "--format=%(refname) %(objectname)"]).trim().split("\n").sort();
}

/** Downloads the snapshot of `projectId` and untars it into a new directory `name`; the response. */
async function extractSnapshot(projectId, name) {
  const response = await fetch(`${g.server.apiUrl}/projects/${projectId}/snapshot`, { headers: { "PRIVATE-TOKEN": ROOT_TOKEN } });
  if (response.status !== 200) assert.fail(`${response.status} ${await response.text()}`);
  const bytes = Buffer.from(await response.arrayBuffer());
  const tarFile = path.join(g.dataDir, `${name}.tar`);
  writeFileSync(tarFile, bytes);
  const dir = path.join(g.dataDir, name);
  mkdirSync(dir);
  const untar = spawnSync("tar", ["-xf", tarFile, "-C", dir], { encoding: "utf8" });
  assert.equal(untar.status, 0, untar.stderr);
  const listing = spawnSync("tar", ["-tf", tarFile], { encoding: "utf8" }).stdout.trim().split("\n");
  return { response, dir, listing };
}

before(async () => {
  await g.start();
});

after(() => g.stop());

describe("GET /projects/:id/snapshot with the git CLI", { timeout: 900_000 }, () => {
  it("a pushed history: the extracted snapshot passes git fsck --full and clones with the same refs", STEP, async () => {
    const project = await api("POST", "/projects", { name: `${RUN}-snap`, visibility: "private" });
    const source = path.join(g.dataDir, "source");
    git(g.dataDir, ["init", "-q", "-b", "main", source]);
    const { tags } = buildHistory(source, { commits: 60, largeBlob: true });
    assert.ok(tags.length > 0);
    gitOk(source, ["push", "-q", remote(project.path_with_namespace, ROOT_TOKEN), "refs/heads/*:refs/heads/*", "refs/tags/*:refs/tags/*"]);

    const { response, dir, listing } = await extractSnapshot(project.id, "extracted");
    // Workhorse's git/snapshot.go headers.
    assert.equal(response.headers.get("content-type"), "application/x-tar");
    assert.equal(response.headers.get("content-disposition"), 'attachment; filename="snapshot.tar"');
    assert.equal(response.headers.get("content-transfer-encoding"), "binary");
    assert.equal(response.headers.get("cache-control"), "private");
    // Gitaly's selection: no config, hooks, info or logs.
    for (const entry of ["HEAD", "packed-refs", "refs/heads/", "refs/tags/", "objects/info/"]) assert.ok(listing.includes(entry), `${entry} in ${listing}`);
    assert.ok(!listing.some((e) => /^(config|hooks|info|logs)\b/.test(e)), listing.join(" "));
    const packs = readdirSync(path.join(dir, "objects/pack"));
    assert.equal(packs.filter((f) => /^pack-[0-9a-f]{40}\.pack$/.test(f)).length, 1, packs.join(" "));
    assert.equal(packs.filter((f) => /^pack-[0-9a-f]{40}\.idx$/.test(f)).length, 1, packs.join(" "));

    gitOk(dir, ["fsck", "--full", "--strict", "--no-dangling"]);
    const idx = path.join(dir, "objects/pack", packs.find((f) => f.endsWith(".idx")));
    gitOk(dir, ["verify-pack", idx]);
    assert.deepEqual(refsOf(dir), refsOf(source));
    assert.equal(gitOk(dir, ["symbolic-ref", "HEAD"]).trim(), "refs/heads/main");
    for (const tag of tags) assert.equal(gitOk(dir, ["rev-parse", `refs/tags/${tag}^{}`]).trim(), git(source, ["rev-parse", `refs/tags/${tag}^{}`]).toString().trim());
    // Every object of the source is in the snapshot (the pack holds what all refs reach, nothing less).
    const objects = (d) => gitOk(d, ["rev-list", "--objects", "--all"]).trim().split("\n").map((l) => l.slice(0, 40)).sort();
    assert.deepEqual(objects(dir), objects(source));

    const clone = path.join(g.dataDir, "clone");
    gitOk(g.dataDir, ["-c", "transfer.fsckObjects=true", "clone", "-q", "--mirror", dir, clone]);
    gitOk(clone, ["fsck", "--full", "--strict"]);
    assert.deepEqual(refsOf(clone), refsOf(source));
    state.project = project;
  });

  it("an empty project: an empty repository git accepts", STEP, async () => {
    const project = await api("POST", "/projects", { name: `${RUN}-empty`, visibility: "private" });
    const { dir, listing } = await extractSnapshot(project.id, "empty");
    assert.ok(!listing.includes("packed-refs"));
    gitOk(dir, ["fsck", "--full"]);
    assert.equal(gitOk(dir, ["rev-parse", "--is-bare-repository"]).trim(), "true");
    const clone = path.join(g.dataDir, "empty-clone");
    gitOk(g.dataDir, ["clone", "-q", dir, clone]);
    assert.equal(gitOk(clone, ["rev-list", "--all", "--count"]).trim(), "0");
  });
});
