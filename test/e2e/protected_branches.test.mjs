// Protected branches with per-user and per-group levels, end to end (EE's
// `allowed_to_push` / `allowed_to_merge`): Edgeforge started as `npm start` does and the real git CLI
// pushing over smart HTTP. A branch whose push level is one user: that developer's push goes through,
// another developer's is declined by the pre-receive check with GitLab's message; a branch whose push
// level is a group (shared with the project): the group's member pushes, others are refused; a branch
// whose merge level is one user: that user merges a merge request through the API, another developer
// gets GitLab's 401 (`unauthorized!`). E2E_VERBOSE=1 shows the server's output.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gitServer } from "./git-server.mjs";

const STEP = { timeout: 180_000 };
const PUSH_REFUSED = /GitLab: You are not allowed to push code to protected branches on this project\./;
const g = gitServer("pb");
const { api, call, remote, gitTry, gitOk, newUser, run: RUN } = g;
const state = {};

before(() => g.start());
after(() => g.stop());

/** A clone of the project as `user` in `<dataDir>/<name>`, on `branch`. */
function cloneAs(user, name, branch) {
  gitOk(g.dataDir, ["clone", "-q", "-b", branch, remote(state.project.path_with_namespace, user.token), name]);
  return path.join(g.dataDir, name);
}

/** Commits one new file in `dir` and pushes `branch`: git's result. */
function commitAndPush(dir, branch, file) {
  writeFileSync(path.join(dir, file), `${file}\n`);
  gitOk(dir, ["add", file]);
  gitOk(dir, ["commit", "-q", "-m", `add ${file}`]);
  return gitTry(dir, ["push", "origin", branch]);
}

const tip = async (branch) => (await api("GET", `/projects/${state.project.id}/repository/branches/${branch}`)).commit.id;

describe("protected branches by user and group, with the git CLI", { timeout: 900_000 }, () => {
  it("sets up developers, a group shared with the project, branches and their protections", STEP, async () => {
    state.pusher = await newUser("pusher");
    state.dev = await newUser("dev");
    state.grouper = await newUser("grouper");
    state.merger = await newUser("merger");
    state.project = await api("POST", "/projects", { name: `${RUN}-protected`, visibility: "private", initialize_with_readme: true });
    const pid = state.project.id;
    for (const user of [state.pusher, state.dev, state.merger]) await api("POST", `/projects/${pid}/members`, { user_id: user.id, access_level: 30 });
    // The group member reaches the project only through the group's share (as a developer).
    state.group = await api("POST", "/groups", { name: `${RUN} team`, path: `${RUN}-team` });
    await api("POST", `/groups/${state.group.id}/members`, { user_id: state.grouper.id, access_level: 30 });
    await api("POST", `/projects/${pid}/share`, { group_id: state.group.id, group_access: 30 });
    for (const branch of ["by-user", "by-group", "target", "feature"]) await api("POST", `/projects/${pid}/repository/branches`, { branch, ref: "main" });
    // Only the named user pushes (no role level: `push_access_level` is not sent with `allowed_to_push`).
    const byUser = await api("POST", `/projects/${pid}/protected_branches`, { name: "by-user", allowed_to_push: [{ user_id: state.pusher.id }] });
    assert.deepEqual(byUser.push_access_levels.map((l) => [l.user_id, l.group_id, l.access_level_description]), [[state.pusher.id, null, state.pusher.name]]);
    const byGroup = await api("POST", `/projects/${pid}/protected_branches`, { name: "by-*", allowed_to_push: [{ group_id: state.group.id }], push_access_level: 0 });
    assert.deepEqual(byGroup.push_access_levels.map((l) => [l.access_level, l.group_id]).sort(), [[0, null], [null, state.group.id]].sort());
    // Maintainers push to target; the merge level is the named developer alone (no role level is made
    // when `allowed_to_merge` comes without `merge_access_level`).
    await api("POST", `/projects/${pid}/protected_branches`, { name: "target", push_access_level: 40, allowed_to_merge: [{ user_id: state.merger.id }] });
  });

  it("lets the named user push to a branch whose push level is that user; refuses another developer with GitLab's message", STEP, async () => {
    const dir = cloneAs(state.pusher, "pusher", "by-user");
    const push = commitAndPush(dir, "by-user", "pusher.txt");
    assert.equal(push.status, 0, push.stderr);
    assert.equal(await tip("by-user"), gitOk(dir, ["rev-parse", "HEAD"]).trim());
    const other = cloneAs(state.dev, "dev-user", "by-user");
    const before = await tip("by-user");
    const refused = commitAndPush(other, "by-user", "dev.txt");
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, PUSH_REFUSED);
    assert.match(refused.stderr, /pre-receive hook declined/);
    assert.equal(await tip("by-user"), before);
  });

  it("lets a direct member of the group push to a branch whose push level is the group (a wildcard rule); refuses others", STEP, async () => {
    const dir = cloneAs(state.grouper, "grouper", "by-group");
    const push = commitAndPush(dir, "by-group", "group.txt");
    assert.equal(push.status, 0, push.stderr);
    assert.equal(await tip("by-group"), gitOk(dir, ["rev-parse", "HEAD"]).trim());
    // `by-user`'s user level does not match `by-group`, and the group level does not admit the pusher.
    const other = cloneAs(state.pusher, "pusher-group", "by-group");
    const refused = commitAndPush(other, "by-group", "not-group.txt");
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, PUSH_REFUSED);
    // The group's member may also create another branch the wildcard protects (they may push to it).
    const created = gitTry(dir, ["push", "origin", "HEAD:refs/heads/by-group-2"]);
    assert.equal(created.status, 0, created.stderr);
    // A developer outside the group creating one is refused with the creation message.
    const devDir = cloneAs(state.dev, "dev-group", "by-group");
    const creation = gitTry(devDir, ["push", "origin", "HEAD:refs/heads/by-dev"]);
    assert.notEqual(creation.status, 0);
    assert.match(creation.stderr, /GitLab: You are not allowed to create protected branches on this project\./);
  });

  it("sends a merge-only creator of a protected branch to a protected basis and to the API (BranchCheck's creation checks)", STEP, async () => {
    const pid = state.project.id;
    await api("POST", `/projects/${pid}/protected_branches`, { name: "rel-*", push_access_level: 0, merge_access_level: 30 });
    const dir = cloneAs(state.dev, "dev-rel", "main");
    writeFileSync(path.join(dir, "rel.txt"), "rel\n");
    gitOk(dir, ["add", "rel.txt"]);
    gitOk(dir, ["commit", "-q", "-m", "not on a protected branch"]);
    const unprotectedBasis = gitTry(dir, ["push", "origin", "HEAD:refs/heads/rel-1"]);
    assert.notEqual(unprotectedBasis.status, 0);
    assert.match(unprotectedBasis.stderr, /GitLab: You can only use an existing protected branch ref as the basis of a new protected branch\./);
    // `main` is protected: its commit is a valid basis, but a git push is not the web interface.
    const fromMain = gitTry(dir, ["push", "origin", "origin/main:refs/heads/rel-2"]);
    assert.notEqual(fromMain.status, 0);
    assert.match(fromMain.stderr, /GitLab: You can only create protected branches using the web interface and API\./);
    assert.doesNotMatch(gitOk(dir, ["ls-remote", "origin"]), /refs\/heads\/rel-/);
    // The API is the web interface: the same developer creates it from main.
    const created = await call("POST", `/projects/${pid}/repository/branches`, { branch: "rel-2", ref: "main" }, state.dev.token);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // From a commit only an unprotected branch holds, the API refuses it too (400).
    gitOk(dir, ["push", "-q", "origin", "HEAD:refs/heads/dev-topic"]);
    const refused = await call("POST", `/projects/${pid}/repository/branches`, { branch: "rel-3", ref: "dev-topic" }, state.dev.token);
    assert.deepEqual(refused, { status: 400, body: { message: "You can only use an existing protected branch ref as the basis of a new protected branch." } });
  });

  it("merges through the API under a merge level for one user; another developer gets GitLab's 401", STEP, async () => {
    const pid = state.project.id;
    const dir = cloneAs(state.dev, "dev-feature", "feature");
    const push = commitAndPush(dir, "feature", "feature.txt");
    assert.equal(push.status, 0, push.stderr);
    // The developer may not push to target directly (maintainers only) …
    const direct = gitTry(dir, ["push", "origin", "HEAD:refs/heads/target"]);
    assert.notEqual(direct.status, 0);
    assert.match(direct.stderr, PUSH_REFUSED);
    // … and may not merge into it.
    const mr = await api("POST", `/projects/${pid}/merge_requests`, { source_branch: "feature", target_branch: "target", title: "feature into target" }, state.dev.token);
    const denied = await call("PUT", `/projects/${pid}/merge_requests/${mr.iid}/merge`, {}, state.dev.token);
    // lib/api/merge_requests.rb: `unauthorized! unless merge_request.can_be_merged_by?(current_user)`.
    assert.deepEqual([denied.status, denied.body], [401, { message: "401 Unauthorized" }]);
    const seen = await api("GET", `/projects/${pid}/merge_requests/${mr.iid}`, undefined, state.merger.token);
    assert.equal(seen.user.can_merge, true);
    const merged = await call("PUT", `/projects/${pid}/merge_requests/${mr.iid}/merge`, {}, state.merger.token);
    assert.equal(merged.status, 200, JSON.stringify(merged.body));
    assert.equal(merged.body.state, "merged");
    assert.equal(merged.body.merged_by.id, state.merger.id);
    const target = await tip("target");
    assert.equal(target, merged.body.merge_commit_sha);
    // The merged history reaches the developer's clone.
    gitOk(dir, ["fetch", "-q", "origin", "target"]);
    assert.equal(gitOk(dir, ["rev-parse", "FETCH_HEAD"]).trim(), target);
  });

  it("refuses a developer's first push into an empty project with GitLab's empty-project message; a maintainer's goes through", STEP, async () => {
    const empty = await api("POST", "/projects", { name: `${RUN}-empty`, visibility: "private" });
    await api("POST", `/projects/${empty.id}/members`, { user_id: state.dev.id, access_level: 30 });
    const dir = path.join(g.dataDir, "fresh");
    gitOk(g.dataDir, ["init", "-q", "-b", "main", dir]);
    writeFileSync(path.join(dir, "a.txt"), "a\n");
    gitOk(dir, ["add", "a.txt"]);
    gitOk(dir, ["commit", "-q", "-m", "first"]);
    const refused = gitTry(dir, ["push", remote(empty.path_with_namespace, state.dev.token), "main"]);
    assert.notEqual(refused.status, 0);
    // git pads each remote line with spaces (to clear the terminal line), hence ` *` before each newline.
    assert.match(refused.stderr, /remote: GitLab: *\n/);
    assert.match(refused.stderr, new RegExp(`remote: A default branch \\(e\\.g\\. main\\) does not yet exist for ${empty.path_with_namespace} *\n`));
    assert.match(refused.stderr, /remote: Ask a project Owner or Maintainer to create a default branch: *\n/);
    assert.match(refused.stderr, new RegExp(`remote:   ${g.server.host}/${empty.path_with_namespace}/-/project_members *\n`));
    assert.match(refused.stderr, /pre-receive hook declined/);
    const pushed = gitTry(dir, ["push", remote(empty.path_with_namespace, g.rootToken), "main"]);
    assert.equal(pushed.status, 0, pushed.stderr);
  });
});
