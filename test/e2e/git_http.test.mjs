// Git over smart HTTP end to end: Edgeforge started as `npm start` does (its own
// port, a throwaway DATA_DIR, embedded PGlite unless E2E_DATABASE_URL is set) and driven by the real git
// CLI: clone, fetch, pull, push, force push, deletes; GitLab's answers to anonymous callers, non-members,
// reporters and bad tokens; the fidelity of a pushed 230-commit history (merges, an octopus, renames,
// binary files, a symlink, an executable, a blob over 1 MiB, annotated and lightweight tags) cloned back
// and checked with `git fsck --full` and `git rev-parse`; and a repository made through the API cloned
// with the same ids. E2E_VERBOSE=1 shows the server's output.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { buildHistory, git } from "./git-history.mjs";
import { gitServer } from "./git-server.mjs";

const STEP = { timeout: 120_000 };
const g = gitServer("gh");
const { api, remote, gitTry, gitOk, newUser, rootToken: ROOT_TOKEN, run: RUN } = g;

let dataDir;
let server;
const state = {};

/** Every ref of a repository: `name id` lines (for-each-ref), sorted. */
function refsOf(dir) {
  return gitOk(dir, ["for-each-ref", "--format=%(refname) %(objectname)"]).trim().split("\n").sort();
}

before(async () => {
  await g.start();
  ({ dataDir, server } = g);
});

after(() => g.stop());

describe("git over smart HTTP with the git CLI", { timeout: 900_000 }, () => {
  it("sets up users, members and projects", STEP, async () => {
    state.dev = await newUser("dev");
    state.reporter = await newUser("reporter");
    state.maint = await newUser("maint");
    state.stranger = await newUser("stranger");
    state.private = await api("POST", "/projects", { name: `${RUN}-private`, visibility: "private", initialize_with_readme: true });
    state.public = await api("POST", "/projects", { name: `${RUN}-public`, visibility: "public", initialize_with_readme: true });
    state.empty = await api("POST", "/projects", { name: `${RUN}-history`, visibility: "private" });
    for (const project of [state.private, state.empty]) {
      await api("POST", `/projects/${project.id}/members`, { user_id: state.dev.id, access_level: 30 });
      await api("POST", `/projects/${project.id}/members`, { user_id: state.reporter.id, access_level: 20 });
      await api("POST", `/projects/${project.id}/members`, { user_id: state.maint.id, access_level: 40 });
    }
  });

  it("refuses anonymous callers with 401 and a Basic challenge, whether or not the project exists", STEP, async () => {
    for (const fullPath of [state.private.path_with_namespace, `${RUN}/does-not-exist`]) {
      const response = await fetch(`${server.host}/${fullPath}.git/info/refs?service=git-upload-pack`, { headers: { "Git-Protocol": "version=2" } });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get("www-authenticate"), 'Basic realm="GitLab"');
      assert.match(await response.text(), /^HTTP Basic: Access denied/);
    }
    const push = await fetch(`${server.host}/${state.public.path_with_namespace}.git/info/refs?service=git-receive-pack`);
    assert.equal(push.status, 401);
    const clone = gitTry(dataDir, ["clone", remote(state.private.path_with_namespace), "anon-private"]);
    assert.notEqual(clone.status, 0);
  });

  it("answers non-members and unknown projects alike with 404; bad tokens with 401", STEP, async () => {
    const auth = (token) => ({ Authorization: `Basic ${Buffer.from(`x:${token}`).toString("base64")}`, "Git-Protocol": "version=2" });
    const bodies = [];
    for (const fullPath of [state.private.path_with_namespace, `${RUN}/does-not-exist`]) {
      const response = await fetch(`${server.host}/${fullPath}.git/info/refs?service=git-upload-pack`, { headers: auth(state.stranger.token) });
      assert.equal(response.status, 404);
      bodies.push(await response.text());
    }
    assert.equal(bodies[0], bodies[1]);
    assert.equal(bodies[0], "The project you were looking for could not be found or you don't have permission to view it.");
    const bad = await fetch(`${server.host}/${state.private.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: auth("glpat-not-a-real-token") });
    assert.equal(bad.status, 401);
    const clone = gitTry(dataDir, ["clone", remote(state.private.path_with_namespace, state.stranger.token), "stranger"]);
    assert.notEqual(clone.status, 0);
    assert.match(clone.stderr, /could not be found or you don't have permission/);
  });

  it("clones a public project anonymously and a private one with a token (any user name)", STEP, async () => {
    gitOk(dataDir, ["clone", "-q", remote(state.public.path_with_namespace), "public"]);
    assert.equal(gitOk(path.join(dataDir, "public"), ["log", "--format=%s"]).trim(), "Initial commit");
    gitOk(dataDir, ["clone", "-q", remote(state.private.path_with_namespace, state.reporter.token), "reporter"]);
    const head = gitOk(path.join(dataDir, "reporter"), ["rev-parse", "HEAD"]).trim();
    const branch = await api("GET", `/projects/${state.private.id}/repository/branches/main`);
    assert.equal(head, branch.commit.id);
  });

  it("refuses pushes by reporters (403) and by anonymous callers", STEP, async () => {
    const dir = path.join(dataDir, "reporter");
    gitOk(dir, ["commit", "-q", "--allow-empty", "-m", "reporter commit"]);
    const push = gitTry(dir, ["push", "origin", "main"]);
    assert.notEqual(push.status, 0);
    assert.match(push.stderr, /You are not allowed to push code to this project/);
    const auth = { Authorization: `Basic ${Buffer.from(`x:${state.reporter.token}`).toString("base64")}` };
    const response = await fetch(`${server.host}/${state.private.path_with_namespace}.git/info/refs?service=git-receive-pack`, { headers: auth });
    assert.equal(response.status, 403);
    const anonymous = gitTry(path.join(dataDir, "public"), ["push", remote(state.public.path_with_namespace), "HEAD:refs/heads/anon"]);
    assert.notEqual(anonymous.status, 0);
  });

  it("pushes, fetches and pulls (a maintainer on the protected default branch, a developer on a topic branch); the API sees the pushes", STEP, async () => {
    gitOk(dataDir, ["clone", "-q", remote(state.private.path_with_namespace, state.maint.token), "dev-a"]);
    gitOk(dataDir, ["clone", "-q", remote(state.private.path_with_namespace, state.dev.token), "dev-b"]);
    const a = path.join(dataDir, "dev-a");
    const b = path.join(dataDir, "dev-b");
    for (let i = 0; i < 3; i++) gitOk(a, ["commit", "-q", "--allow-empty", "-m", `empty ${i}`]);
    gitOk(a, ["push", "-q", "origin", "main"]);
    gitOk(b, ["pull", "-q", "origin", "main"]);
    gitOk(b, ["checkout", "-q", "-b", "feature"]);
    gitOk(b, ["mv", "README.md", "DOC.md"]);
    gitOk(b, ["commit", "-q", "-m", "rename the readme"]);
    const refused = gitTry(b, ["push", "origin", "feature:main"]);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /GitLab: You are not allowed to push code to protected branches on this project\./);
    assert.match(refused.stderr, /pre-receive hook declined/);
    gitOk(b, ["push", "-q", "origin", "feature"]);
    const feature = gitOk(b, ["rev-parse", "feature"]).trim();
    const apiBranch = await api("GET", `/projects/${state.private.id}/repository/branches/feature`);
    assert.equal(apiBranch.commit.id, feature);
    const commit = await api("GET", `/projects/${state.private.id}/repository/commits/${feature}`);
    assert.equal(commit.title, "rename the readme");
    // Incremental fetch (haves sent, common commits acknowledged) and pull.
    gitOk(a, ["pull", "-q", "origin", "main"]);
    gitOk(a, ["fetch", "-q", "origin"]);
    assert.equal(gitOk(a, ["rev-parse", "origin/feature"]).trim(), feature);
    gitOk(b, ["fsck", "--full"]);
  });

  it("rejects a stale push as non-fast-forward, moves refs only by compare-and-swap, lets --force through on an unprotected branch only", STEP, async () => {
    const a = path.join(dataDir, "dev-a");
    const b = path.join(dataDir, "dev-b");
    gitOk(a, ["fetch", "-q", "origin"]);
    gitOk(a, ["checkout", "-q", "-b", "feature", "origin/feature"]);
    gitOk(a, ["commit", "-q", "--allow-empty", "-m", "from a"]);
    gitOk(a, ["push", "-q", "origin", "feature"]);
    gitOk(b, ["commit", "-q", "--allow-empty", "-m", "from b"]);
    const stale = gitTry(b, ["push", "origin", "feature"]);
    assert.notEqual(stale.status, 0);
    assert.match(stale.stderr, /rejected.*(fetch first|non-fast-forward)/);

    // A raw receive-pack request whose old id is not the ref's any more: the CAS refuses it.
    const tip = gitOk(a, ["rev-parse", "feature"]).trim();
    const old = gitOk(a, ["rev-parse", "feature~1"]).trim();
    const line = `${old} ${tip} refs/heads/feature\0report-status\n`;
    const body = Buffer.concat([Buffer.from((line.length + 4).toString(16).padStart(4, "0") + line), Buffer.from("0000")]);
    // Moving a ref needs a pack after the commands: an empty one (header and checksum).
    const emptyPack = Buffer.from("5041434b0000000200000000029d08823bd8a8eab510ad6ac75c823cfd3ed31e", "hex");
    const response = await fetch(`${server.host}/${state.private.path_with_namespace}.git/git-receive-pack`, {
      method: "POST",
      headers: { Authorization: `Basic ${Buffer.from(`x:${state.dev.token}`).toString("base64")}`, "Content-Type": "application/x-git-receive-pack-request" },
      body: Buffer.concat([body, emptyPack]),
    });
    const report = await response.text();
    assert.match(report, /unpack ok/);
    assert.match(report, /ng refs\/heads\/feature failed to update ref/);

    const forced = gitTry(b, ["push", "--force", "origin", "feature"]);
    assert.equal(forced.status, 0, forced.stderr);
    assert.match(forced.stderr, /forced update/);
    const branch = await api("GET", `/projects/${state.private.id}/repository/branches/feature`);
    assert.equal(branch.commit.id, gitOk(b, ["rev-parse", "feature"]).trim());

    // The default branch is protected: even a maintainer may not force-push it.
    gitOk(a, ["checkout", "-q", "main"]);
    gitOk(a, ["commit", "-q", "--amend", "--allow-empty", "-m", "rewritten"]);
    const rewrite = gitTry(a, ["push", "--force", "origin", "main"]);
    assert.notEqual(rewrite.status, 0);
    assert.match(rewrite.stderr, /GitLab: You are not allowed to force push code to a protected branch on this project\./);
    gitOk(a, ["reset", "-q", "--hard", "origin/main"]);
  });

  it("a push creates the push pipeline of its ref (after the response); -o ci.skip skips it", STEP, async () => {
    const b = path.join(dataDir, "dev-b");
    gitOk(b, ["checkout", "-q", "-b", "ci"]);
    writeFileSync(path.join(b, ".gitlab-ci.yml"), "test:\n  script: echo hi\n");
    gitOk(b, ["add", ".gitlab-ci.yml"]);
    gitOk(b, ["commit", "-q", "-m", "add CI"]);
    gitOk(b, ["push", "-q", "origin", "ci"]);
    const sha = gitOk(b, ["rev-parse", "HEAD"]).trim();
    let pipelines = [];
    for (let i = 0; i < 40 && !pipelines.some((p) => p.sha === sha); i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      pipelines = await api("GET", `/projects/${state.private.id}/pipelines?ref=ci`);
    }
    const pipeline = pipelines.find((p) => p.sha === sha);
    assert.ok(pipeline, "no pipeline for the pushed commit");
    assert.equal(pipeline.source, "push");
    gitOk(b, ["commit", "-q", "--allow-empty", "-m", "skip me"]);
    gitOk(b, ["push", "-q", "-o", "ci.skip", "origin", "ci"]);
    const skipped = gitOk(b, ["rev-parse", "HEAD"]).trim();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    pipelines = await api("GET", `/projects/${state.private.id}/pipelines?ref=ci`);
    assert.ok(!pipelines.some((p) => p.sha === skipped && p.status !== "skipped"), JSON.stringify(pipelines.map((p) => [p.sha, p.status])));
    gitOk(b, ["checkout", "-q", "main"]);
  });

  it("deletes branches but not the default branch (GitLab's pre-receive answer)", STEP, async () => {
    const b = path.join(dataDir, "dev-b");
    gitOk(b, ["push", "-q", "origin", ":feature"]);
    const ls = gitOk(b, ["ls-remote", "origin"]);
    assert.doesNotMatch(ls, /refs\/heads\/feature/);
    const main = gitTry(b, ["push", "origin", ":main"]);
    assert.notEqual(main.status, 0);
    assert.match(main.stderr, /GitLab: The default branch of a project cannot be deleted\./);
    assert.match(main.stderr, /pre-receive hook declined/);
  });

  it("fidelity: a pushed 230-commit history clones back object for object", { timeout: 300_000 }, async () => {
    const source = path.join(dataDir, "history");
    git(dataDir, ["init", "-q", "-b", "main", source]);
    const { branches, tags } = buildHistory(source, { commits: 230, largeBlob: true });
    assert.ok(Number(git(source, ["rev-list", "--count", "--all"]).toString()) >= 230);
    assert.ok(Number(git(source, ["rev-list", "--merges", "--count", "--all"]).toString()) >= 5);
    // An empty repository's first branch is protected (GitLab's default): a maintainer pushes it.
    const url = remote(state.empty.path_with_namespace, state.maint.token);
    const started = Date.now();
    gitOk(source, ["push", "-q", url, "refs/heads/*:refs/heads/*", "refs/tags/*:refs/tags/*"]);
    state.pushSeconds = (Date.now() - started) / 1000;

    const clone = path.join(dataDir, "history-clone");
    gitOk(dataDir, ["-c", "transfer.fsckObjects=true", "clone", "-q", "--mirror", url, clone]);
    gitOk(clone, ["fsck", "--full", "--strict"]);
    assert.deepEqual(refsOf(clone), refsOf(source));
    for (const ref of [...branches.map((b) => `refs/heads/${b}`), ...tags.map((t) => `refs/tags/${t}`)]) {
      assert.equal(gitOk(clone, ["rev-parse", ref]).trim(), git(source, ["rev-parse", ref]).toString().trim(), ref);
      assert.equal(gitOk(clone, ["rev-parse", `${ref}^{}`]).trim(), git(source, ["rev-parse", `${ref}^{}`]).toString().trim(), ref);
    }
    const objects = (dir) => gitOk(dir, ["cat-file", "--batch-all-objects", "--batch-check"]).trim().split("\n").sort();
    assert.deepEqual(objects(clone), objects(source));
    const idx = readdirSync(path.join(clone, "objects/pack")).filter((f) => f.endsWith(".idx")).map((f) => path.join(clone, "objects/pack", f));
    assert.ok(idx.length > 0);
    assert.match(gitOk(clone, ["verify-pack", "-v", ...idx]), /\.pack: ok/);

    // The push made the project's HEAD and indexed the commits: the API lists them as git log does.
    const project = await api("GET", `/projects/${state.empty.id}`);
    assert.equal(project.default_branch, "main");
    const listed = await api("GET", `/projects/${state.empty.id}/repository/commits?ref_name=main&per_page=50`);
    assert.deepEqual(listed.map((c) => c.id), git(source, ["log", "--format=%H", "-50", "main"]).toString().trim().split("\n"));
  });

  it("large blobs: a 3 MiB binary pushed with git is kept in R2 and reads back exactly (clone + fsck, blobs raw, files raw)", STEP, async () => {
    const project = await api("POST", "/projects", { name: `${RUN}-large`, visibility: "private", initialize_with_readme: true });
    const url = remote(project.path_with_namespace, ROOT_TOKEN);
    const work = path.join(dataDir, "large-work");
    gitOk(dataDir, ["clone", "-q", url, work]);
    const big = randomBytes(3 * 1024 * 1024);
    writeFileSync(path.join(work, "big.bin"), big);
    gitOk(work, ["add", "big.bin"]);
    gitOk(work, ["commit", "-q", "-m", "a 3 MiB binary"]);
    gitOk(work, ["push", "-q", "origin", "main"]);
    const blobId = gitOk(work, ["rev-parse", "HEAD:big.bin"]).trim();

    const clone = path.join(dataDir, "large-clone");
    gitOk(dataDir, ["-c", "transfer.fsckObjects=true", "clone", "-q", url, clone]);
    gitOk(clone, ["fsck", "--full", "--strict"]);
    assert.equal(gitOk(clone, ["rev-parse", "HEAD"]).trim(), gitOk(work, ["rev-parse", "HEAD"]).trim());
    assert.ok(readFileSync(path.join(clone, "big.bin")).equals(big));

    const raw = async (endpoint) => {
      const res = await fetch(`${server.apiUrl}/projects/${project.id}${endpoint}`, { headers: { "PRIVATE-TOKEN": ROOT_TOKEN } });
      assert.equal(res.status, 200, endpoint);
      return Buffer.from(await res.arrayBuffer());
    };
    assert.ok((await raw(`/repository/blobs/${blobId}/raw`)).equals(big));
    assert.ok((await raw("/repository/files/big.bin/raw?ref=main")).equals(big));
    const file = await api("GET", `/projects/${project.id}/repository/files/big.bin?ref=main`);
    assert.equal(file.blob_id, blobId);
    assert.equal(file.size, big.length);
  });

  it("fidelity: a repository made through the API clones with the API's ids", STEP, async () => {
    const id = state.public.id;
    const made = await api("POST", `/projects/${id}/repository/commits`, {
      branch: "main",
      commit_message: "files through the API",
      actions: [
        { action: "create", file_path: "src/a.txt", content: "alpha\n" },
        { action: "create", file_path: "bin/tool", content: "#!/bin/sh\n" },
        { action: "create", file_path: "data.bin", content: Buffer.from([0, 1, 2, 255, 0]).toString("base64"), encoding: "base64" },
      ],
    });
    const moved = await api("POST", `/projects/${id}/repository/commits`, {
      branch: "topic",
      start_branch: "main",
      commit_message: "move and delete",
      actions: [
        { action: "move", file_path: "src/b.txt", previous_path: "src/a.txt" },
        { action: "delete", file_path: "data.bin" },
        { action: "chmod", file_path: "bin/tool", execute_filemode: true },
      ],
    });
    await api("POST", `/projects/${id}/repository/tags`, { tag_name: "v1.0", ref: made.id, message: "annotated" });
    await api("POST", `/projects/${id}/repository/tags`, { tag_name: "light", ref: moved.id });
    const dir = path.join(dataDir, "api-clone");
    gitOk(dataDir, ["-c", "transfer.fsckObjects=true", "clone", "-q", "--mirror", remote(state.public.path_with_namespace), dir]);
    gitOk(dir, ["fsck", "--full", "--strict"]);
    assert.equal(gitOk(dir, ["rev-parse", "main"]).trim(), made.id);
    assert.equal(gitOk(dir, ["rev-parse", "topic"]).trim(), moved.id);
    const tag = await api("GET", `/projects/${id}/repository/tags/v1.0`);
    assert.equal(gitOk(dir, ["rev-parse", "v1.0"]).trim(), tag.target);
    assert.equal(gitOk(dir, ["rev-parse", "v1.0^{}"]).trim(), made.id);
    assert.equal(gitOk(dir, ["rev-parse", "light"]).trim(), moved.id);
    const listed = await api("GET", `/projects/${id}/repository/commits?ref_name=topic`);
    assert.deepEqual(listed.map((c) => c.id), gitOk(dir, ["log", "--format=%H", "topic"]).trim().split("\n"));
    assert.equal(gitOk(dir, ["cat-file", "-p", `${moved.id}:src/b.txt`]), "alpha\n");
    assert.equal(gitOk(dir, ["ls-tree", moved.id, "bin/tool"]).split(" ")[0], "100755");
  });
  it("export: the archive's project.bundle of the 230-commit history is read by git clone", STEP, async () => {
    const id = state.empty.id;
    assert.deepEqual(await api("POST", `/projects/${id}/export`, {}, state.maint.token), { message: "202 Accepted" });
    let status;
    for (let i = 0; i < 600; i++) {
      status = await api("GET", `/projects/${id}/export`, undefined, state.maint.token);
      if (!["queued", "started"].includes(status.export_status)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status.export_status, "finished");
    const res = await fetch(status._links.api_url, { headers: { "PRIVATE-TOKEN": state.maint.token } });
    assert.equal(res.status, 200);
    const tar = gunzipSync(Buffer.from(await res.arrayBuffer()));
    const files = new Map();
    for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
      const name = tar.subarray(at, at + 100).toString("utf8").replace(/\0.*$/s, "");
      const size = parseInt(tar.subarray(at + 124, at + 136).toString("utf8").replace(/\0.*$/s, "").trim(), 8);
      files.set(name, tar.subarray(at + 512, at + 512 + size));
      at += 512 + Math.ceil(size / 512) * 512;
    }
    assert.deepEqual([...files.keys()].filter((f) => !f.startsWith("tree/project/")), ["VERSION", "tree/project.json", "project.bundle"]);
    const bundle = path.join(dataDir, "history.bundle");
    writeFileSync(bundle, files.get("project.bundle"));
    gitOk(path.join(dataDir, "history"), ["bundle", "verify", "-q", bundle]);
    const clone = path.join(dataDir, "history-from-bundle");
    gitOk(dataDir, ["-c", "transfer.fsckObjects=true", "clone", "-q", "--mirror", bundle, clone]);
    gitOk(clone, ["fsck", "--full", "--strict"]);
    assert.deepEqual(refsOf(clone), refsOf(path.join(dataDir, "history")));
  });

  it("blame: the API's blame is `git blame --porcelain`'s on a pushed history of edits, inserts, deletions and merges", STEP, async () => {
    const dir = path.join(dataDir, "blame-source");
    git(dataDir, ["init", "-q", "-b", "main", dir]);
    const lines = (...items) => `${items.join("\n")}\n`;
    const write = (file, text) => writeFileSync(path.join(dir, file), text);
    const commit = (message) => gitOk(dir, ["commit", "-q", "-a", "-m", message]);
    const base = Array.from({ length: 12 }, (_, i) => `l${i + 1}`);
    write("a.txt", lines(...base));
    write("b.txt", lines("x", "y", "z"));
    gitOk(dir, ["add", "."]);
    commit("base");
    write("a.txt", lines("l1", "l2", "L3", "l4", "l5", "l6", "l8", "l9", "l10", "new after l10", "l11", "l12"));
    commit("edit l3, delete l7, insert after l10");
    gitOk(dir, ["checkout", "-q", "-b", "topic"]);
    write("a.txt", lines("T1", "l2", "L3", "l4", "l5", "t-line", "l6", "l8", "l9", "l10", "new after l10", "l11"));
    write("b.txt", lines("x", "y", "z", "w"));
    commit("topic: edit l1, insert after l5, delete l12, append w");
    gitOk(dir, ["checkout", "-q", "main"]);
    write("a.txt", lines("l1", "l2", "L3", "l4", "l5", "l6", "l8", "M9", "l10", "new after l10", "l11", "l12"));
    write("b.txt", lines("x", "Y", "z"));
    commit("main: edit l9 and y");
    gitOk(dir, ["merge", "-q", "--no-ff", "-m", "Merge topic", "topic"]);
    // A conflict resolved by hand: the resolution's own line is the merge's.
    gitOk(dir, ["checkout", "-q", "-b", "side"]);
    const merged = readFileSync(path.join(dir, "a.txt"), "utf8").split("\n").slice(0, -1);
    write("a.txt", lines(...merged.map((l) => (l === "l2" ? "S2" : l)), "side tail"));
    commit("side: l2 and a tail");
    gitOk(dir, ["checkout", "-q", "main"]);
    write("a.txt", lines(...merged.map((l) => (l === "l2" ? "M2" : l === "l4" ? "" : l)), "}", "}", ""));
    commit("main: l2, blank l4, closing lines");
    assert.notEqual(gitTry(dir, ["merge", "-q", "--no-ff", "-m", "Merge side", "side"]).status, 0);
    write("a.txt", lines(...merged.map((l) => (l === "l2" ? "MS2" : l === "l4" ? "" : l)), "}", "}", "", "side tail"));
    gitOk(dir, ["commit", "-q", "-a", "--no-edit"]);
    write("a.txt", readFileSync(path.join(dir, "a.txt"), "utf8").replace("l5\n", "l5\nl5b\n").replace("l11\n", ""));
    write("b.txt", "x\nY\nz\nno final newline");
    commit("last: insert l5b, delete l11, b without a final newline");
    // An exact rename, then an edit under the new name: git follows it (find_rename), so must we.
    gitOk(dir, ["mv", "b.txt", "c.txt"]);
    commit("rename b to c");
    write("c.txt", "x\nY\nz\nno final newline\nafter the rename\n");
    commit("edit c");

    const project = await api("POST", "/projects", { name: `${RUN}-blame`, visibility: "private" });
    state.blame = project;
    gitOk(dir, ["push", "-q", remote(project.path_with_namespace, ROOT_TOKEN), "refs/heads/*:refs/heads/*"]);
    const history = path.join(dataDir, "history");

    /** `git blame --porcelain`: each line's commit and text, and the file names its entries name. */
    const porcelain = (cwd, rev, file, range) => {
      const out = gitOk(cwd, ["blame", "--porcelain", ...(range ? ["-L", range] : []), rev, "--", file]);
      const result = { commits: [], texts: [], names: new Set() };
      let current = null;
      for (const line of out.split("\n")) {
        const header = /^([0-9a-f]{40}) \d+ \d+(?: \d+)?$/.exec(line);
        if (header) current = header[1];
        else if (line.startsWith("filename ")) result.names.add(line.slice(9));
        else if (line.startsWith("\t")) {
          result.commits.push(current);
          result.texts.push(line.slice(1));
        }
      }
      return result;
    };
    const viaApi = async (id, rev, file, range) => {
      const query = new URLSearchParams({ ref: rev });
      if (range) {
        query.set("range[start]", String(range[0]));
        query.set("range[end]", String(range[1]));
      }
      const groups = await api("GET", `/projects/${id}/repository/files/${encodeURIComponent(file)}/blame?${query}`);
      for (let i = 1; i < groups.length; i++) assert.notEqual(groups[i].commit.id, groups[i - 1].commit.id, "consecutive lines of one commit are one group");
      return { commits: groups.flatMap((g) => g.lines.map(() => g.commit.id)), texts: groups.flatMap((g) => g.lines) };
    };

    let compared = 0;
    for (const rev of gitOk(dir, ["rev-list", "--all"]).trim().split("\n")) {
      for (const file of gitOk(dir, ["ls-tree", "--name-only", rev]).trim().split("\n")) {
        const want = porcelain(dir, rev, file);
        const got = await viaApi(project.id, rev, file);
        assert.deepEqual(got, { commits: want.commits, texts: want.texts }, `${rev}:${file}`);
        compared++;
      }
    }
    assert.ok(compared >= 15);
    const want = porcelain(dir, "main", "a.txt", "4,9");
    assert.deepEqual(await viaApi(project.id, "main", "a.txt", [4, 9]), { commits: want.commits, texts: want.texts });

    // The 230-commit history pushed above: every text file of main and of a topic branch (its renames
    // are exact, which blame follows as git does).
    let checked = 0;
    let renamed = 0;
    for (const rev of ["main", "topic/t10"]) {
      const entries = gitOk(history, ["ls-tree", "-r", rev]).trim().split("\n").map((l) => l.split("\t"));
      for (const [meta, file] of entries) {
        if (!meta.startsWith("100") || file.startsWith("assets/")) continue;
        const want = porcelain(history, rev, file);
        if ([...want.names].some((name) => name !== file)) renamed++;
        assert.deepEqual(await viaApi(state.empty.id, rev, file), { commits: want.commits, texts: want.texts }, `${rev}:${file}`);
        checked++;
      }
    }
    assert.ok(checked >= 20, `${checked} files compared`);
    assert.ok(renamed >= 2, `${renamed} renamed files compared`);
  });

  it("shallow: clone --depth, fetch --deepen, fetch in a shallow clone and --unshallow answer as git's own upload-pack", STEP, async () => {
    const source = path.join(dataDir, "history");
    const url = remote(state.empty.path_with_namespace, state.maint.token);
    /** The shallow boundary and every commit of a clone (sorted), and its fsck. */
    const shape = (dir) => {
      gitOk(dir, ["fsck", "--full"]);
      const shallowFile = path.join(dir, ".git", "shallow");
      const boundary = existsSync(shallowFile) ? readFileSync(shallowFile, "utf8").trim().split("\n").sort() : [];
      return { boundary, commits: gitOk(dir, ["rev-list", "--all"]).trim().split("\n").sort() };
    };
    const pair = (name) => [path.join(dataDir, `${name}-ours`), path.join(dataDir, `${name}-git`)];
    for (const depth of [1, 5, 40]) {
      const [ours, theirs] = pair(`shallow${depth}`);
      gitOk(dataDir, ["clone", "-q", "--depth", String(depth), url, ours]);
      gitOk(dataDir, ["clone", "-q", "--depth", String(depth), `file://${source}`, theirs]);
      assert.equal(gitOk(ours, ["rev-parse", "--is-shallow-repository"]).trim(), "true");
      assert.deepEqual(shape(ours), shape(theirs), `--depth ${depth}`);
      assert.equal(gitOk(ours, ["rev-parse", "HEAD^{tree}"]), gitOk(theirs, ["rev-parse", "HEAD^{tree}"]));
    }
    const [ours, theirs] = pair("shallow5");
    gitOk(ours, ["fetch", "-q", "--deepen", "7"]);
    gitOk(theirs, ["fetch", "-q", "--deepen", "7"]);
    assert.deepEqual(shape(ours), shape(theirs), "--deepen 7");
    gitOk(ours, ["fetch", "-q", "--depth", "2"]);
    gitOk(theirs, ["fetch", "-q", "--depth", "2"]);
    assert.deepEqual(shape(ours), shape(theirs), "--depth 2 after a deeper clone");
    gitOk(ours, ["fetch", "-q", "--unshallow"]);
    gitOk(theirs, ["fetch", "-q", "--unshallow"]);
    assert.equal(gitOk(ours, ["rev-parse", "--is-shallow-repository"]).trim(), "false");
    assert.deepEqual(shape(ours), shape(theirs), "--unshallow");

    // A shallow clone fetches what was pushed since, and stays shallow.
    const blameSource = path.join(dataDir, "blame-source");
    const target = state.blame;
    const targetUrl = remote(target.path_with_namespace, ROOT_TOKEN);
    const clone = path.join(dataDir, "shallow-pull");
    gitOk(dataDir, ["clone", "-q", "--depth", "1", targetUrl, clone]);
    writeFileSync(path.join(blameSource, "d.txt"), "pushed after the shallow clone\n");
    gitOk(blameSource, ["add", "d.txt"]);
    gitOk(blameSource, ["commit", "-q", "-m", "after the shallow clone"]);
    gitOk(blameSource, ["push", "-q", targetUrl, "main"]);
    gitOk(clone, ["pull", "-q", "--ff-only"]);
    assert.equal(gitOk(clone, ["rev-parse", "HEAD"]).trim(), gitOk(blameSource, ["rev-parse", "HEAD"]).trim());
    assert.equal(gitOk(clone, ["rev-list", "--count", "HEAD"]).trim(), "2");
    gitOk(clone, ["fsck", "--full"]);
  });
});

