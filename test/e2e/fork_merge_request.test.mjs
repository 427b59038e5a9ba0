// A merge request from a fork, end to end with the git CLI: a contributor forks a public
// project through the API, clones the fork, pushes a branch to it, opens a merge request into the
// source project, pushes again (the merge request follows the fork's branch), and the source's
// maintainer merges it; the source's main then holds the fork's commits, cloned back with git.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gitServer } from "./git-server.mjs";

const STEP = { timeout: 120_000 };
const g = gitServer("fk");
const { api, call, remote, gitOk, newUser, run: RUN } = g;
const state = {};

before(async () => {
  await g.start();
});

after(() => g.stop());

describe("a merge request from a fork, pushed with the git CLI", { timeout: 600_000 }, () => {
  it("forks a public project and pushes a branch to the fork", STEP, async () => {
    state.maintainer = await newUser("maint");
    state.contributor = await newUser("contrib");
    state.upstream = await api("POST", "/projects", { name: `${RUN}-upstream`, visibility: "public", initialize_with_readme: true }, state.maintainer.token);
    state.fork = await api("POST", `/projects/${state.upstream.id}/fork`, {}, state.contributor.token);
    assert.equal(state.fork.forked_from_project.id, state.upstream.id);
    const dir = path.join(g.dataDir, "fork");
    gitOk(g.dataDir, ["clone", "-q", remote(state.fork.path_with_namespace, state.contributor.token), "fork"]);
    gitOk(dir, ["checkout", "-q", "-b", "contribution"]);
    writeFileSync(path.join(dir, "CONTRIBUTED.md"), "from the fork\n");
    gitOk(dir, ["add", "CONTRIBUTED.md"]);
    gitOk(dir, ["commit", "-q", "-m", "Contribute a file"]);
    gitOk(dir, ["push", "-q", "origin", "contribution"]);
    state.first = gitOk(dir, ["rev-parse", "HEAD"]).trim();
    state.dir = dir;
  });

  it("opens the merge request on the fork into the source project", STEP, async () => {
    const { status, body } = await call(
      "POST",
      `/projects/${state.fork.id}/merge_requests`,
      { title: "Contribute a file", source_branch: "contribution", target_branch: "main", target_project_id: state.upstream.id },
      state.contributor.token,
    );
    assert.equal(status, 201, JSON.stringify(body));
    assert.equal(body.project_id, state.upstream.id);
    assert.equal(body.source_project_id, state.fork.id);
    state.iid = body.iid;
    const shown = await api("GET", `/projects/${state.upstream.id}/merge_requests/${state.iid}`, undefined, state.maintainer.token);
    assert.equal(shown.sha, state.first);
    assert.equal(shown.merge_status, "can_be_merged");
    const changes = await api("GET", `/projects/${state.upstream.id}/merge_requests/${state.iid}/changes`, undefined, state.maintainer.token);
    assert.deepEqual(changes.changes.map((c) => [c.new_path, c.new_file]), [["CONTRIBUTED.md", true]]);
  });

  it("follows a second push to the fork's branch", STEP, async () => {
    writeFileSync(path.join(state.dir, "CONTRIBUTED.md"), "from the fork\nand more\n");
    gitOk(state.dir, ["commit", "-q", "-am", "Contribute more"]);
    gitOk(state.dir, ["push", "-q", "origin", "contribution"]);
    state.second = gitOk(state.dir, ["rev-parse", "HEAD"]).trim();
    const shown = await api("GET", `/projects/${state.upstream.id}/merge_requests/${state.iid}`, undefined, state.maintainer.token);
    assert.equal(shown.sha, state.second);
    const versions = await api("GET", `/projects/${state.upstream.id}/merge_requests/${state.iid}/versions`, undefined, state.maintainer.token);
    assert.deepEqual(versions.map((v) => v.head_commit_sha), [state.second, state.first]);
    const commits = await api("GET", `/projects/${state.upstream.id}/merge_requests/${state.iid}/commits`, undefined, state.maintainer.token);
    assert.deepEqual(commits.map((c) => c.title), ["Contribute more", "Contribute a file"]);
  });

  it("is merged by the source's maintainer; the source's main clones with the fork's commits", STEP, async () => {
    const { status, body } = await call("PUT", `/projects/${state.upstream.id}/merge_requests/${state.iid}/merge`, { sha: state.second }, state.maintainer.token);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.state, "merged");
    const dir = path.join(g.dataDir, "upstream");
    gitOk(g.dataDir, ["clone", "-q", remote(state.upstream.path_with_namespace), "upstream"]);
    assert.equal(gitOk(dir, ["rev-parse", "HEAD"]).trim(), body.merge_commit_sha);
    assert.equal(gitOk(dir, ["rev-parse", "HEAD^2"]).trim(), state.second);
    assert.equal(gitOk(dir, ["show", "HEAD:CONTRIBUTED.md"]), "from the fork\nand more\n");
    gitOk(dir, ["fsck", "--full"]);
  });
});
