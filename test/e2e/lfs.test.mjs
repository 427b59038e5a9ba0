// Git LFS end to end: Edgeforge started as `npm start` does, driven by the real git-lfs client
// (the Debian `git-lfs` package): `git lfs track`, a push of binary files through the batch API and
// `basic` transfers into R2, a clone elsewhere whose files match byte for byte, the pointer in the
// repository, `raw?lfs=true` through the API, and a reporter's refused upload; then file locking:
// `git lfs lock`, `git lfs locks` (also `--verify`), a push of a file locked by someone else refused with
// `lfs.<url>.locksverify` on, and by GitLab's own pre-receive check with it off, `git lfs unlock` by the
// owner and with `--force` by a maintainer.
// E2E_VERBOSE=1 shows the server's output.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gitServer } from "./git-server.mjs";

const STEP = { timeout: 180_000 };
// git-lfs's filters, as `git lfs install` would write them to a global config (the tests have none).
const LFS_CONFIG = [
  "-c", "filter.lfs.clean=git-lfs clean -- %f",
  "-c", "filter.lfs.smudge=git-lfs smudge -- %f",
  "-c", "filter.lfs.process=git-lfs filter-process",
  "-c", "filter.lfs.required=true",
];
const g = gitServer("lfs", { gitConfig: LFS_CONFIG, env: { GIT_LFS_SKIP_PUSH: undefined } });
const { api, remote, gitTry, gitOk, newUser, run: RUN } = g;

let dataDir;
let server;
const state = {};

/** A GET, asked once more if the keep-alive connection was closed by the dev server while git ran. */
async function get(url, headers) {
  try {
    return await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  } catch {
    return fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  }
}

/** `git lfs locks --json` in `dir`: the locks as git-lfs read them. */
const locksOf = (dir, ...args) => JSON.parse(gitOk(dir, ["lfs", "locks", "--json", ...args]));

before(async () => {
  const version = spawnSync("git-lfs", ["version"], { encoding: "utf8" });
  assert.equal(version.status, 0, "git-lfs is not installed (apt-get install git-lfs)");
  await g.start();
  ({ dataDir, server } = g);
});

after(() => g.stop());

describe("Git LFS with the git-lfs client", { timeout: 900_000 }, () => {
  it("sets up a developer, a reporter and a project", STEP, async () => {
    state.dev = await newUser("dev");
    state.dev2 = await newUser("dev2");
    state.maint = await newUser("maint");
    state.reporter = await newUser("reporter");
    state.project = await api("POST", "/projects", { name: `${RUN}-lfs`, visibility: "private", initialize_with_readme: true });
    await api("POST", `/projects/${state.project.id}/members`, { user_id: state.dev.id, access_level: 30 });
    await api("POST", `/projects/${state.project.id}/members`, { user_id: state.dev2.id, access_level: 30 });
    await api("POST", `/projects/${state.project.id}/members`, { user_id: state.maint.id, access_level: 40 });
    await api("POST", `/projects/${state.project.id}/members`, { user_id: state.reporter.id, access_level: 20 });
  });

  it("tracks and pushes binary files (a developer, on a branch); the repository holds pointers", STEP, async () => {
    const dir = path.join(dataDir, "push");
    gitOk(dataDir, ["clone", "-q", remote(state.project.path_with_namespace, state.dev.token), "push"]);
    gitOk(dir, ["checkout", "-q", "-b", "assets"]);
    gitOk(dir, ["lfs", "track", "*.bin"]);
    state.big = randomBytes(3 * 1024 * 1024 + 17);
    state.small = randomBytes(1000);
    writeFileSync(path.join(dir, "big.bin"), state.big);
    writeFileSync(path.join(dir, "small.bin"), state.small);
    gitOk(dir, ["add", ".gitattributes", "big.bin", "small.bin"]);
    gitOk(dir, ["commit", "-q", "-m", "binary assets"]);
    const pointer = gitOk(dir, ["cat-file", "-p", "HEAD:big.bin"]);
    assert.match(pointer, /^version https:\/\/git-lfs\.github\.com\/spec\/v1\noid sha256:[0-9a-f]{64}\nsize 3145745\n$/);
    const push = gitTry(dir, ["push", "origin", "assets"]);
    assert.equal(push.status, 0, push.stderr);
    // Before each push git-lfs asks POST …/locks/verify; with `lfs.<url>.locksverify` unset it only says
    // that the remote supports locking and how to turn verification on.
    const hint = /git config (lfs\.\S+\.locksverify) true/.exec(push.stderr + push.stdout);
    assert.ok(hint, `no locking hint in:\n${push.stderr}`);
    assert.match(push.stderr + push.stdout, /Locking support detected on remote "origin"/);
    state.locksVerifyKey = hint[1];
    // The repository itself holds the pointer.
    const raw = await get(`${server.apiUrl}/projects/${state.project.id}/repository/files/big.bin/raw?ref=assets`, { "PRIVATE-TOKEN": state.dev.token });
    assert.equal(await raw.text(), pointer);
  });

  it("clones elsewhere (a reporter): the files match byte for byte", STEP, async () => {
    gitOk(dataDir, ["clone", "-q", "-b", "assets", remote(state.project.path_with_namespace, state.reporter.token), "clone"]);
    const dir = path.join(dataDir, "clone");
    assert.ok(readFileSync(path.join(dir, "big.bin")).equals(state.big), "big.bin differs");
    assert.ok(readFileSync(path.join(dir, "small.bin")).equals(state.small), "small.bin differs");
    assert.match(gitOk(dir, ["lfs", "ls-files"]), /big\.bin/);
  });

  it("answers raw?lfs=true with the object's content", STEP, async () => {
    const response = await get(`${server.apiUrl}/projects/${state.project.id}/repository/files/big.bin/raw?ref=assets&lfs=true`, { "PRIVATE-TOKEN": state.reporter.token });
    assert.equal(response.status, 200);
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(state.big));
  });

  it("refuses a reporter's upload", STEP, async () => {
    const dir = path.join(dataDir, "clone");
    writeFileSync(path.join(dir, "more.bin"), randomBytes(2048));
    gitOk(dir, ["add", "more.bin"]);
    gitOk(dir, ["commit", "-q", "-m", "more"]);
    const push = gitTry(dir, ["push", "origin", "assets"]);
    assert.notEqual(push.status, 0);
    assert.match(push.stderr, /Access forbidden|not allowed to push/);
  });

  it("locks a file with git lfs lock; git lfs locks lists it for readers; a second lock and a reporter's are refused", STEP, () => {
    const dir = path.join(dataDir, "push");
    assert.match(gitOk(dir, ["lfs", "lock", "big.bin"]), /Locked big\.bin/);
    const [lock] = locksOf(dir);
    assert.equal(lock.path, "big.bin");
    assert.equal(lock.owner.name, state.dev.name);
    assert.match(lock.id, /^\d+$/);
    assert.match(lock.locked_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    state.lockId = lock.id;
    // `--verify` asks …/locks/verify and marks the caller's own locks.
    assert.match(gitOk(dir, ["lfs", "locks", "--verify"]), /^O big\.bin\s+.*ID:\d+/m);
    // A reporter (the clone) reads the locks but may not take one.
    const clone = path.join(dataDir, "clone");
    assert.deepEqual(locksOf(clone).map((l) => [l.path, l.owner.name]), [["big.bin", state.dev.name]]);
    const refused = gitTry(clone, ["lfs", "lock", "small.bin"]);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /Access forbidden\. Check your access level\./);
    // Another developer asking for the same path learns that it is locked.
    gitOk(dataDir, ["clone", "-q", "-b", "assets", remote(state.project.path_with_namespace, state.dev2.token), "dev2"]);
    const twice = gitTry(path.join(dataDir, "dev2"), ["lfs", "lock", "big.bin"]);
    assert.notEqual(twice.status, 0);
    assert.match(twice.stderr, /already locked/);
  });

  it("refuses, with locksverify on, a push that changes a file someone else locked; the owner's push passes", STEP, async () => {
    const dir = path.join(dataDir, "dev2");
    gitOk(dir, ["config", state.locksVerifyKey, "true"]);
    writeFileSync(path.join(dir, "big.bin"), randomBytes(4096));
    gitOk(dir, ["commit", "-q", "-am", "change a locked file"]);
    const push = gitTry(dir, ["push", "origin", "assets"]);
    assert.notEqual(push.status, 0, push.stderr);
    const said = push.stdout + push.stderr;
    assert.match(said, /Unable to push locked files/);
    assert.match(said, new RegExp(`big\\.bin - ${state.dev.name}`));
    assert.match(said, /Cannot update locked files\./);
    const branch = await api("GET", `/projects/${state.project.id}/repository/branches/assets`);
    assert.notEqual(branch.commit.id, gitOk(dir, ["rev-parse", "HEAD"]).trim());
    // The lock's owner changes the file and pushes with verification on: the lock is theirs.
    const own = path.join(dataDir, "push");
    gitOk(own, ["config", state.locksVerifyKey, "true"]);
    writeFileSync(path.join(own, "big.bin"), randomBytes(2048));
    gitOk(own, ["commit", "-q", "-am", "owner changes the locked file"]);
    const ownPush = gitTry(own, ["push", "origin", "assets"]);
    assert.equal(ownPush.status, 0, ownPush.stderr);
  });

  it("declines on the server a push that changes a path someone else locked, without the client's verification", STEP, async () => {
    const dir = path.join(dataDir, "dev2");
    gitOk(dir, ["fetch", "-q", "origin"]);
    gitOk(dir, ["reset", "-q", "--hard", "origin/assets"]);
    writeFileSync(path.join(dir, "big.bin"), randomBytes(3000));
    gitOk(dir, ["commit", "-q", "-am", "change a locked file again"]);
    const before = (await api("GET", `/projects/${state.project.id}/repository/branches/assets`)).commit.id;
    // git-lfs's own check is off: GitLab's pre-receive (DiffCheck) still sees the lock.
    const push = gitTry(dir, ["-c", `${state.locksVerifyKey}=false`, "push", "origin", "assets"]);
    assert.notEqual(push.status, 0, push.stderr);
    assert.match(push.stderr, new RegExp(`GitLab: The path 'big\\.bin' is locked in Git LFS by ${state.dev.name}`));
    assert.match(push.stderr, /pre-receive hook declined/);
    assert.equal((await api("GET", `/projects/${state.project.id}/repository/branches/assets`)).commit.id, before);
    // A change to another path goes through.
    gitOk(dir, ["reset", "-q", "--hard", "origin/assets"]);
    writeFileSync(path.join(dir, "free.txt"), "not locked\n");
    gitOk(dir, ["add", "free.txt"]);
    gitOk(dir, ["commit", "-q", "-m", "an unlocked path"]);
    const free = gitTry(dir, ["-c", `${state.locksVerifyKey}=false`, "push", "origin", "assets"]);
    assert.equal(free.status, 0, free.stderr);
  });

  it("unlocks: others are refused, even with --force unless maintainer; the owner and a maintainer may", STEP, () => {
    const dev2 = path.join(dataDir, "dev2");
    const refused = gitTry(dev2, ["lfs", "unlock", "--id", state.lockId]);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, new RegExp(`big\\.bin is locked by GitLab User ${state.dev.id}`));
    const forced = gitTry(dev2, ["lfs", "unlock", "--force", "--id", state.lockId]);
    assert.notEqual(forced.status, 0);
    assert.match(forced.stderr, /You must have maintainer access to force delete a lock/);
    const own = path.join(dataDir, "push");
    assert.match(gitOk(own, ["lfs", "unlock", "big.bin"]), /Unlocked big\.bin/);
    assert.deepEqual(locksOf(own), []);
    // A maintainer breaks a developer's lock with --force.
    assert.match(gitOk(own, ["lfs", "lock", "small.bin"]), /Locked small\.bin/);
    gitOk(dataDir, ["clone", "-q", "-b", "assets", remote(state.project.path_with_namespace, state.maint.token), "maint"]);
    const maint = path.join(dataDir, "maint");
    assert.match(gitOk(maint, ["lfs", "unlock", "--force", "small.bin"]), /Unlocked small\.bin/);
    assert.deepEqual(locksOf(maint), []);
    // With the lock gone, the other developer's change goes through (redone on the owner's).
    gitOk(dev2, ["fetch", "-q", "origin"]);
    gitOk(dev2, ["reset", "-q", "--hard", "origin/assets"]);
    writeFileSync(path.join(dev2, "big.bin"), randomBytes(1024));
    gitOk(dev2, ["commit", "-q", "-am", "change the file once unlocked"]);
    const push = gitTry(dev2, ["push", "origin", "assets"]);
    assert.equal(push.status, 0, push.stderr);
  });
});
