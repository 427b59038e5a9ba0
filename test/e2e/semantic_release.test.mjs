// @semantic-release/gitlab end to end: the plugin's own `verifyConditions` and `publish` (its HTTP
// client, its URL building, its uploads) against Edgeforge started as `npm start` does. A repository
// with a tag is pushed with the git CLI, then the plugin makes the release with an upload, a generic
// package and a plain link as assets, as semantic-release would after computing the next version.
// E2E_VERBOSE=1 shows the server's output.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { verifyConditions, publish } from "@semantic-release/gitlab";
import { gitServer } from "./git-server.mjs";

const g = gitServer("sr");
const STEP = { timeout: 120_000 };
const state = {};

/** semantic-release's logger: the plugin logs through it; errors are kept for the failure message. */
const logged = [];
const logger = { log: (...a) => logged.push(a.join(" ")), error: (...a) => logged.push(`ERROR ${a.join(" ")}`), success: () => {}, warn: () => {} };

before(() => g.start());
after(() => g.stop());

describe("@semantic-release/gitlab against Edgeforge", { timeout: 300_000 }, () => {
  it("pushes a repository with a tag with the git CLI", STEP, async () => {
    state.user = await g.newUser("maint");
    state.project = await g.api("POST", "/projects", { name: `${g.run}-lib`, visibility: "private" }, state.user.token);
    const dir = path.join(g.dataDir, "repo");
    mkdirSync(path.join(dir, "dist"), { recursive: true });
    g.gitOk(dir, ["init", "-q", "-b", "main"]);
    writeFileSync(path.join(dir, "README.md"), "# lib\n");
    writeFileSync(path.join(dir, "dist", "notes.txt"), "release notes file\n");
    writeFileSync(path.join(dir, "dist", "tool.bin"), "binary tool\n");
    g.gitOk(dir, ["add", "README.md"]);
    g.gitOk(dir, ["commit", "-q", "-m", "feat: first feature"]);
    g.gitOk(dir, ["tag", "v1.0.0"]);
    g.gitOk(dir, ["push", "-q", g.remote(state.project.path_with_namespace, state.user.token), "main", "v1.0.0"]);
    state.dir = dir;
    state.head = g.gitOk(dir, ["rev-parse", "HEAD"]).trim();
    const tag = await g.api("GET", `/projects/${state.project.id}/repository/tags/v1.0.0`, undefined, state.user.token);
    assert.equal(tag.commit.id, state.head);
  });

  it("verifies the conditions and publishes the release with its assets", STEP, async () => {
    const pluginConfig = {
      assets: [
        { path: "dist/notes.txt", label: "Notes file" },
        { path: "dist/tool.bin", label: "tool.bin", target: "generic_package", packageName: "lib" },
        { url: "https://example.com/docs/1.0.0", label: "Documentation", type: "other" },
      ],
    };
    const context = {
      cwd: state.dir,
      env: { GITLAB_TOKEN: state.user.token, GITLAB_URL: g.server.host },
      // The remote semantic-release reads from the repository: no credentials in it.
      options: { repositoryUrl: `${g.server.host}/${state.project.path_with_namespace}.git` },
      branch: { name: "main" },
      nextRelease: { type: "major", version: "1.0.0", gitTag: "v1.0.0", gitHead: state.head, name: "v1.0.0", notes: "## 1.0.0\n\n### Features\n\n* first feature" },
      logger,
    };
    try {
      await verifyConditions(pluginConfig, context);
      state.result = await publish(pluginConfig, context);
    } catch (error) {
      assert.fail(`${error.stack}\n${logged.join("\n")}\n${g.server.output?.() ?? ""}`);
    }
    assert.deepEqual(state.result, { name: "GitLab release", url: `${g.server.host}/${state.project.path_with_namespace}/-/releases/v1.0.0` });
  });

  it("the release exists through the API with its notes and asset links", STEP, async () => {
    const release = await g.api("GET", `/projects/${state.project.id}/releases/v1.0.0`, undefined, state.user.token);
    assert.equal(release.tag_name, "v1.0.0");
    assert.equal(release.description, "## 1.0.0\n\n### Features\n\n* first feature");
    assert.equal(release.commit.id, state.head);
    const links = Object.fromEntries(release.assets.links.map((l) => [l.name, l]));
    assert.deepEqual(Object.keys(links).sort(), ["Documentation", "Notes file", "tool.bin"]);
    assert.equal(links.Documentation.url, "https://example.com/docs/1.0.0");
    assert.equal(links.Documentation.link_type, "other");
    assert.match(links["Notes file"].url, new RegExp(`^${g.server.host}/.*/uploads/[0-9a-f]{32}/notes\\.txt$`));
    assert.equal(links["tool.bin"].url, `${g.server.apiUrl}/projects/${encodeURIComponent(state.project.path_with_namespace)}/packages/generic/lib/1.0.0/tool.bin`);
    assert.equal(links["tool.bin"].link_type, "package");
    // The uploaded bytes are there behind each link.
    const headers = { "PRIVATE-TOKEN": state.user.token };
    assert.equal(await (await fetch(links["tool.bin"].url, { headers })).text(), "binary tool\n");
    const upload = await fetch(links["Notes file"].url, { headers });
    assert.equal(upload.status, 200);
    assert.equal(await upload.text(), "release notes file\n");
  });

  it("verifyConditions refuses a reporter and an unknown token as the plugin reports them", STEP, async () => {
    const reporter = await g.newUser("reporter");
    await g.api("POST", `/projects/${state.project.id}/members`, { user_id: reporter.id, access_level: 20 });
    const context = (token) => ({
      cwd: state.dir,
      env: { GITLAB_TOKEN: token, GITLAB_URL: g.server.host },
      options: { repositoryUrl: `${g.server.host}/${state.project.path_with_namespace}.git` },
      logger,
    });
    await assert.rejects(verifyConditions({}, context(reporter.token)), (error) => [...error.errors].some((e) => e.code === "EGLNOPUSHPERMISSION"));
    await assert.rejects(verifyConditions({}, context("glpat-unknown")), (error) => [...error.errors].some((e) => e.code === "EINVALIDGLTOKEN"));
  });
});
