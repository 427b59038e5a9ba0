// The git CLI over HTTP with the tokens that are not a user's own: a deploy token
// (`http://<token username>:<token>@host/...`, read only) and a project access token (its bot user's
// role and the token's scopes decide). Edgeforge started as `npm start` does; E2E_VERBOSE=1 shows its output.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gitServer } from "./git-server.mjs";

const g = gitServer("gt");
const STEP = { timeout: 120_000 };
const state = {};

/** `http://<login>:<token>@host/<path>.git` */
function remoteAs(login, token) {
  const url = new URL(`${g.server.host}/${state.project.path_with_namespace}.git`);
  url.username = login;
  url.password = token;
  return url.toString();
}

/** Clones `remote` into `name`, commits a file and pushes it to a new branch; `{ clone, push }` results. */
function cloneAndPush(remote, name) {
  const dir = path.join(g.dataDir, name);
  const clone = g.gitTry(g.dataDir, ["clone", "-q", remote, name]);
  if (clone.status !== 0) return { clone, push: null };
  writeFileSync(path.join(dir, `${name}.txt`), `${name}\n`);
  g.gitOk(dir, ["add", "."]);
  g.gitOk(dir, ["commit", "-q", "-m", `add ${name}`]);
  return { clone, push: g.gitTry(dir, ["push", "-q", "origin", `HEAD:refs/heads/${name}`]) };
}

const branchExists = async (branch) => (await g.call("GET", `/projects/${state.project.id}/repository/branches/${branch}`)).status === 200;

before(() => g.start());
after(() => g.stop());

describe("git over HTTP with deploy tokens and project access tokens", { timeout: 300_000 }, () => {
  it("sets up a private project with a commit", STEP, async () => {
    state.project = await g.api("POST", "/projects", { name: `${g.run}-app`, visibility: "private", initialize_with_readme: true });
  });

  it("a deploy token with read_repository clones; its push is refused", STEP, async () => {
    const token = await g.api("POST", `/projects/${state.project.id}/deploy_tokens`, { name: "ci", scopes: ["read_repository"] });
    const { clone, push } = cloneAndPush(remoteAs(token.username, token.token), "deploy");
    assert.equal(clone.status, 0, clone.stderr);
    assert.notEqual(push.status, 0);
    assert.match(push.stderr, /not allowed|denied|403/i);
    assert.equal(await branchExists("deploy"), false);
    // Another login with the same token is no credential.
    assert.notEqual(g.gitTry(g.dataDir, ["clone", "-q", remoteAs("someone-else", token.token), "deploy-other"]).status, 0);
  });

  it("a deploy token without read_repository, or revoked, does not clone", STEP, async () => {
    const registry = await g.api("POST", `/projects/${state.project.id}/deploy_tokens`, { name: "registry", scopes: ["read_package_registry"] });
    assert.notEqual(g.gitTry(g.dataDir, ["clone", "-q", remoteAs(registry.username, registry.token), "deploy-noscope"]).status, 0);
    const revoked = await g.api("POST", `/projects/${state.project.id}/deploy_tokens`, { name: "old", scopes: ["read_repository"] });
    await g.api("DELETE", `/projects/${state.project.id}/deploy_tokens/${revoked.id}`);
    assert.notEqual(g.gitTry(g.dataDir, ["clone", "-q", remoteAs(revoked.username, revoked.token), "deploy-revoked"]).status, 0);
  });

  it("a project access token with write_repository and Developer clones and pushes", STEP, async () => {
    const token = await g.api("POST", `/projects/${state.project.id}/access_tokens`, { name: "bot", scopes: ["write_repository", "read_repository"], access_level: 30 });
    const { clone, push } = cloneAndPush(remoteAs("bot", token.token), "bot-dev");
    assert.equal(clone.status, 0, clone.stderr);
    assert.equal(push.status, 0, push.stderr);
    assert.equal(await branchExists("bot-dev"), true);
  });

  it("a project access token without write_repository, or only Reporter, cannot push", STEP, async () => {
    const readOnly = await g.api("POST", `/projects/${state.project.id}/access_tokens`, { name: "reader", scopes: ["read_repository"], access_level: 30 });
    const first = cloneAndPush(remoteAs("reader", readOnly.token), "bot-read");
    assert.equal(first.clone.status, 0, first.clone.stderr);
    assert.notEqual(first.push.status, 0);
    const reporter = await g.api("POST", `/projects/${state.project.id}/access_tokens`, { name: "reporter", scopes: ["write_repository", "read_repository"], access_level: 20 });
    const second = cloneAndPush(remoteAs("reporter", reporter.token), "bot-reporter");
    assert.equal(second.clone.status, 0, second.clone.stderr);
    assert.notEqual(second.push.status, 0);
    assert.equal(await branchExists("bot-read"), false);
    assert.equal(await branchExists("bot-reporter"), false);
  });
});
