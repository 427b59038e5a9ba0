// GitLab's push limits with the real git CLI (issue 26 item 12 b, c), against Edgeforge started as
// `npm start` does: a pack longer than the `receive_max_input_size` application setting is refused as
// git's receive-pack refuses it under `receive.maxInputSize` (`remote: fatal: pack exceeds maximum
// allowed size`, the unpacker's abnormal exit, no ref moved), and a branch named by 40 hexadecimal
// digits is declined by GitLab's pre-receive BranchCheck. E2E_VERBOSE=1 shows the server's output.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gitServer } from "./git-server.mjs";

const STEP = { timeout: 180_000 };
const g = gitServer("limits");
const { api, remote, gitTry, gitOk, rootToken, run } = g;
const state = {};

before(async () => {
  await g.start();
});

after(() => g.stop());

describe("push limits with the git CLI", { timeout: 600_000 }, () => {
  it("sets up a project and a clone", STEP, async () => {
    state.project = await api("POST", "/projects", { name: `${run}-limits`, visibility: "private", initialize_with_readme: true });
    state.clone = path.join(g.dataDir, "clone");
    gitOk(g.dataDir, ["clone", "-q", remote(state.project.path_with_namespace, rootToken), state.clone]);
    state.main = gitOk(state.clone, ["rev-parse", "HEAD"]).trim();
  });

  it("refuses a pack over receive_max_input_size with git's message, and moves no ref", STEP, async () => {
    const settings = await api("PUT", "/application/settings", { receive_max_input_size: 1 });
    assert.equal(settings.receive_max_input_size, 1);
    // 3 MiB that do not compress: the pack is about 3 MiB, over the 1 MB limit.
    writeFileSync(path.join(state.clone, "big.bin"), randomBytes(3 * 1024 * 1024));
    gitOk(state.clone, ["add", "big.bin"]);
    gitOk(state.clone, ["commit", "-q", "-m", "Big"]);
    const push = gitTry(state.clone, ["push", "origin", "HEAD:main"]);
    assert.notEqual(push.status, 0, push.stderr);
    // Three objects: unpack-objects' wording (index-pack would add the limit).
    // (git pads a `remote:` line with spaces to clear progress output.)
    assert.match(push.stderr, /remote: fatal: pack exceeds maximum allowed size *\n/);
    assert.match(push.stderr, /remote unpack failed: unpack-objects abnormal exit/);
    assert.match(push.stderr, /\[remote rejected\] HEAD -> main \(unpacker error\)/);
    const branch = await api("GET", `/projects/${state.project.id}/repository/branches/main`);
    assert.equal(branch.commit.id, state.main);
  });

  it("takes the same push once the limit is lifted (0: no limit)", STEP, async () => {
    await api("PUT", "/application/settings", { receive_max_input_size: 0 });
    gitOk(state.clone, ["push", "-q", "origin", "HEAD:main"]);
    const branch = await api("GET", `/projects/${state.project.id}/repository/branches/main`);
    assert.equal(branch.commit.id, gitOk(state.clone, ["rev-parse", "HEAD"]).trim());
  });

  it("declines a branch named by 40 hexadecimal digits (BranchCheck), but not 39 or 41", STEP, async () => {
    const hexName = "a".repeat(20) + "0123456789ABCDEFabcd";
    const push = gitTry(state.clone, ["push", "origin", `HEAD:refs/heads/${hexName}`]);
    assert.notEqual(push.status, 0, push.stderr);
    assert.match(push.stderr, /remote: GitLab: You cannot create a branch with a 40-character hexadecimal branch name\./);
    assert.match(push.stderr, /pre-receive hook declined/);
    assert.doesNotMatch(gitOk(state.clone, ["ls-remote", "origin"]), new RegExp(hexName));
    gitOk(state.clone, ["push", "-q", "origin", `HEAD:refs/heads/${"b".repeat(39)}`, `HEAD:refs/heads/${"c".repeat(41)}`]);
  });
});
