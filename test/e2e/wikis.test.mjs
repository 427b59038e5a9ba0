// Wikis over git end to end: Edgeforge started as `npm start` does and the real git CLI. A wiki written
// through the API clones as `<path>.wiki.git` (its pages are `<slug>.md` files on the default branch,
// committed by the user with GitLab's messages); pages pushed with git appear in the API; the access
// rules follow read_wiki / create_wiki (anonymous 401, reporters may clone but not push, a disabled wiki
// refuses); a wiki never written clones as an empty repository and a push creates it; a group wiki too,
// whose pushed pages reach the group's hooks.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gitServer } from "./git-server.mjs";

const STEP = { timeout: 120_000 };
const g = gitServer("wiki");
const { api, call, remote, gitTry, gitOk, newUser, run: RUN } = g;
const state = {};

/** A local webhook receiver: every POST body with its X-Gitlab-Event header. */
const deliveries = [];
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    deliveries.push({ event: req.headers["x-gitlab-event"], body: JSON.parse(body || "null") });
    res.end("ok");
  });
});

before(async () => {
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  await g.start();
});

after(async () => {
  receiver.close();
  await g.stop();
});

describe("wikis over smart HTTP with the git CLI", { timeout: 600_000 }, () => {
  it("sets up a private project with a developer and a reporter, and a page written through the API", STEP, async () => {
    state.dev = await newUser("dev");
    state.reporter = await newUser("reporter");
    state.project = await api("POST", "/projects", { name: `${RUN}-wiki`, visibility: "private" });
    await api("POST", `/projects/${state.project.id}/members`, { user_id: state.dev.id, access_level: 30 });
    await api("POST", `/projects/${state.project.id}/members`, { user_id: state.reporter.id, access_level: 20 });
    const created = await api("POST", `/projects/${state.project.id}/wikis`, { title: "Home", content: "Welcome\n" }, state.dev.token);
    assert.deepEqual(created, { format: "markdown", slug: "Home", title: "Home", content: "Welcome\n", encoding: "UTF-8" });
  });

  it("clones the wiki: the page is Home.md on the default branch, committed by the user with GitLab's message", STEP, async () => {
    const wikiPath = `${state.project.path_with_namespace}.wiki`;
    gitOk(g.dataDir, ["clone", "-q", remote(wikiPath, state.reporter.token), "wiki-reporter"]);
    const dir = path.join(g.dataDir, "wiki-reporter");
    assert.equal(readFileSync(path.join(dir, "Home.md"), "utf8"), "Welcome\n");
    assert.equal(gitOk(dir, ["rev-parse", "--abbrev-ref", "HEAD"]).trim(), "main");
    assert.equal(gitOk(dir, ["log", "--format=%an <%ae>|%s"]).trim(), `${state.dev.name} <${state.dev.email}>|${state.dev.username} created page: Home`);
    assert.equal(gitOk(dir, ["fsck", "--full"]).trim(), "");
    // A reporter may read but not write the wiki (create_wiki is the developer's).
    writeFileSync(path.join(dir, "Reporter.md"), "no\n");
    gitOk(dir, ["add", "."]);
    gitOk(dir, ["commit", "-q", "-m", "reporter page"]);
    const refused = gitTry(dir, ["push", "origin", "main"]);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /You are not allowed to write to this project's wiki\./);
  });

  it("pushes pages with git (a new page in a directory, an edit, a deletion) and reads them through the API", STEP, async () => {
    const wikiPath = `${state.project.path_with_namespace}.wiki`;
    gitOk(g.dataDir, ["clone", "-q", remote(wikiPath, state.dev.token), "wiki-dev"]);
    const dir = path.join(g.dataDir, "wiki-dev");
    mkdirSync(path.join(dir, "guides"));
    writeFileSync(path.join(dir, "guides", "Getting-started.md"), "# Start here\n");
    writeFileSync(path.join(dir, "Notes.org"), "* Org notes\n");
    writeFileSync(path.join(dir, "Home.md"), "Welcome, edited with git\n");
    writeFileSync(path.join(dir, "image.png"), "not a page\n");
    gitOk(dir, ["add", "."]);
    gitOk(dir, ["commit", "-q", "-m", "pages from git"]);
    gitOk(dir, ["push", "-q", "origin", "main"]);
    const pages = await api("GET", `/projects/${state.project.id}/wikis`, undefined, state.reporter.token);
    assert.deepEqual(pages, [
      { format: "markdown", slug: "Home", title: "Home" },
      { format: "org", slug: "Notes", title: "Notes" },
      { format: "markdown", slug: "guides/Getting-started", title: "Getting started" },
    ]);
    const page = await api("GET", `/projects/${state.project.id}/wikis/${encodeURIComponent("guides/Getting-started")}`, undefined, state.reporter.token);
    assert.equal(page.content, "# Start here\n");
    assert.equal((await api("GET", `/projects/${state.project.id}/wikis/Home`)).content, "Welcome, edited with git\n");
    gitOk(dir, ["rm", "-q", "Notes.org"]);
    gitOk(dir, ["commit", "-q", "-m", "drop notes"]);
    gitOk(dir, ["push", "-q", "origin", "main"]);
    assert.equal((await call("GET", `/projects/${state.project.id}/wikis/Notes`)).status, 404);
    // An API write on top of the pushed history, then fetched back with git.
    await api("PUT", `/projects/${state.project.id}/wikis/Home`, { content: "Back to the API\n" }, state.dev.token);
    gitOk(dir, ["pull", "-q", "origin", "main"]);
    assert.equal(readFileSync(path.join(dir, "Home.md"), "utf8"), "Back to the API\n");
    assert.equal(gitOk(dir, ["log", "-1", "--format=%s"]).trim(), `${state.dev.username} updated page: Home`);
  });

  it("sends the Wiki Page Hook for each page a git push creates, changes or deletes on the default branch", STEP, async () => {
    await api("PUT", "/application/settings", { allow_local_requests_from_web_hooks_and_services: true });
    const url = `http://127.0.0.1:${receiver.address().port}/wiki`;
    await api("POST", `/projects/${state.project.id}/hooks`, { url, wiki_page_events: true, push_events: true });
    const dir = path.join(g.dataDir, "wiki-dev");
    const before = gitOk(dir, ["rev-parse", "HEAD"]).trim();
    writeFileSync(path.join(dir, "Pushed.md"), "pushed\n");
    writeFileSync(path.join(dir, "Home.md"), "Home from a push\n");
    gitOk(dir, ["rm", "-q", "guides/Getting-started.md"]);
    gitOk(dir, ["add", "."]);
    gitOk(dir, ["commit", "-q", "-m", "three page changes"]);
    const after = gitOk(dir, ["rev-parse", "HEAD"]).trim();
    gitOk(dir, ["push", "-q", "origin", "main"]);
    // Another branch of the wiki holds no pages: no hook.
    gitOk(dir, ["push", "-q", "origin", "main:side"]);
    // Events of earlier writes may reach the new hook too (payloads are built when the queue runs), so
    // the push's own are those at its commit (a deletion shows the page at the commit before).
    const ofPush = (list) =>
      list.filter((d) => d.body?.object_attributes?.version_id === (d.body.object_attributes.action === "delete" ? before : after));
    const until = Date.now() + 60_000;
    while (ofPush(deliveries).length < 3 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 200));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const got = ofPush(deliveries);
    assert.deepEqual(got.map((d) => d.event), ["Wiki Page Hook", "Wiki Page Hook", "Wiki Page Hook"], JSON.stringify(got));
    const actions = Object.fromEntries(got.map((d) => [d.body.object_attributes.slug, [d.body.object_attributes.action, d.body.object_attributes.content]]));
    assert.deepEqual(actions, {
      Pushed: ["create", "pushed\n"],
      Home: ["update", "Home from a push\n"],
      "guides/Getting-started": ["delete", "# Start here\n"],
    });
    for (const d of got) {
      assert.equal(d.body.object_kind, "wiki_page");
      assert.equal(d.body.user.username, state.dev.username);
      assert.equal(d.body.project.id, state.project.id);
      assert.equal(d.body.wiki.path_with_namespace, `${state.project.path_with_namespace}.wiki`);
    }
    // No Push Hook: a wiki push is not a push to the project's repository.
    assert.deepEqual(deliveries.filter((d) => d.event !== "Wiki Page Hook"), []);
  });

  it("refuses anonymous callers (401) and a disabled wiki (403); the project's own repository is untouched", STEP, async () => {
    const wikiPath = `${state.project.path_with_namespace}.wiki`;
    const anonymous = await fetch(`${g.server.host}/${wikiPath}.git/info/refs?service=git-upload-pack`, { headers: { "Git-Protocol": "version=2" } });
    assert.equal(anonymous.status, 401);
    const branches = await api("GET", `/projects/${state.project.id}/repository/branches`);
    assert.deepEqual(branches, []);
    await api("PUT", `/projects/${state.project.id}`, { wiki_enabled: false });
    const clone = gitTry(g.dataDir, ["clone", "-q", remote(wikiPath, state.dev.token), "wiki-disabled"]);
    assert.notEqual(clone.status, 0);
    assert.match(clone.stderr, /You are not allowed to download files from this wiki\./);
    await api("PUT", `/projects/${state.project.id}`, { wiki_enabled: true });
  });

  it("clones a wiki never written as an empty repository, and a first push creates it (a group's wiki too)", STEP, async () => {
    const other = await api("POST", "/projects", { name: `${RUN}-fresh`, visibility: "private" });
    const group = await api("POST", "/groups", { name: `${RUN}-group`, path: `${RUN}-group` });
    // The group's hook hears its wiki's pushed pages (local requests were allowed above).
    await api("POST", `/groups/${group.id}/hooks`, { url: `http://127.0.0.1:${receiver.address().port}/group-wiki`, wiki_page_events: true, push_events: false });
    for (const [fullPath, list] of [
      [`${other.path_with_namespace}.wiki`, `/projects/${other.id}/wikis`],
      [`${group.full_path}.wiki`, `/groups/${group.id}/wikis`],
    ]) {
      const name = `fresh-${list.split("/")[1]}`;
      const cloned = gitTry(g.dataDir, ["clone", "-q", remote(fullPath, g.rootToken), name]);
      assert.equal(cloned.status, 0, cloned.stderr);
      assert.match(cloned.stderr, /empty repository/);
      const dir = path.join(g.dataDir, name);
      assert.deepEqual(await api("GET", list), []);
      writeFileSync(path.join(dir, "First-page.md"), "first\n");
      gitOk(dir, ["add", "."]);
      gitOk(dir, ["commit", "-q", "-m", "first page"]);
      gitOk(dir, ["push", "-q", "origin", "HEAD:main"]);
      assert.deepEqual(await api("GET", list), [{ format: "markdown", slug: "First-page", title: "First page" }]);
    }
    const ofGroup = () => deliveries.filter((d) => d.body?.group?.group_id === group.id);
    const until = Date.now() + 60_000;
    while (ofGroup().length < 1 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 200));
    const [pushed, ...more] = ofGroup();
    assert.deepEqual(more, []);
    assert.equal(pushed.event, "Wiki Page Hook");
    assert.equal(pushed.body.object_attributes.action, "create");
    assert.equal(pushed.body.object_attributes.slug, "First-page");
    assert.equal(pushed.body.wiki.path_with_namespace, `${group.full_path}.wiki`);
  });
});
