import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { commitTo, smallRepo } from "../helpers/git";
import { type Json } from "../helpers/api";

const comparePath = (project: { id: number }) => `/projects/${project.id}/repository/compare`;
const mergeBasePath = (project: { id: number }) => `/projects/${project.id}/repository/merge_base`;

describe("GET /projects/:id/repository/compare", () => {
  it("lists the commits from..to oldest first and the diffs from the merge base", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const feature = await commitTo(project, "feature", [{ action: "create", filePath: "new.txt", content: "a\nb\n" }], { startBranch: "main", message: "Add new", at: new Date("2024-01-04T10:00:00Z") });
    // main moves on too: the default (merge-base) diff does not show main's change, `straight` does.
    await commitTo(project, "main", [{ action: "update", filePath: "src/app.js", content: "one\n" }], { message: "Main moves", at: new Date("2024-01-05T10:00:00Z") });
    const [status, body] = await statusAndBody(await api.get(comparePath(project), { query: { from: "main", to: "feature" } }));
    expect(status).toBe(200);
    const json = body as Json;
    expect(Object.keys(json)).toEqual(["commit", "commits", "diffs", "compare_timeout", "compare_same_ref", "web_url"]);
    expect(json.commits.map((c: Json) => c.id)).toEqual([feature]);
    expect(json.commit).toMatchObject({ id: feature, short_id: feature.slice(0, 8), title: "Add new", parent_ids: [commits.third] });
    expect(json.diffs).toEqual([
      { diff: "@@ -0,0 +1,2 @@\n+a\n+b\n", new_path: "new.txt", old_path: "new.txt", a_mode: "0", b_mode: "100644", new_file: true, renamed_file: false, deleted_file: false },
    ]);
    expect(json.compare_timeout).toBe(false);
    expect(json.compare_same_ref).toBe(false);
    expect(json.web_url).toMatch(new RegExp(`/${project.fullPath}/-/compare/[0-9a-f]{40}\\.\\.\\.${feature}$`));

    const straight = (await (await api.get(comparePath(project), { query: { from: "main", to: "feature", straight: true } })).json()) as Json;
    expect(straight.diffs.map((d: Json) => [d.new_path, d.diff])).toEqual([
      ["new.txt", "@@ -0,0 +1,2 @@\n+a\n+b\n"],
      ["src/app.js", "@@ -1 +1,2 @@\n one\n+two\n"],
    ]);
  });

  it("answers the same ref with no commits, a null commit and compare_same_ref", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const body = (await (await api.get(comparePath(project), { query: { from: "main", to: commits.third } })).json()) as Json;
    expect(body).toMatchObject({ commit: null, commits: [], diffs: [], compare_same_ref: true });
    // Backwards: nothing in main..older, the diff undoes the change.
    const back = (await (await api.get(comparePath(project), { query: { from: "main", to: commits.first, straight: true } })).json()) as Json;
    expect(back.commits).toEqual([]);
    expect(back.diffs.map((d: Json) => [d.new_path, d.deleted_file])).toEqual([
      ["README.md", false],
      ["bin/run.sh", true],
      ["docs/guide/intro.md", true],
    ]);
    expect(back.diffs[1]).toMatchObject({ a_mode: "100755", b_mode: "0", diff: "@@ -1 +0,0 @@\n-#!/bin/sh\n" });
  });

  it("answers 404 Ref Not Found for an unknown side and 400 for missing parameters or another project", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    expect(await statusAndBody(await api.get(comparePath(project), { query: { from: "main", to: "nope" } }))).toEqual([404, { message: "404 Ref Not Found" }]);
    expect(await statusAndBody(await api.get(comparePath(project), { query: { from: "nope", to: "main" } }))).toEqual([404, { message: "404 Ref Not Found" }]);
    expect(await statusAndBody(await api.get(comparePath(project), {}))).toEqual([400, { error: "from is missing, to is missing" }]);
    expect(await statusAndBody(await api.get(comparePath(project), { query: { from: "main", to: "main", straight: "maybe" } }))).toEqual([400, { error: "straight is invalid" }]);
    const other = await w.project();
    expect(await statusAndBody(await api.get(comparePath(project), { query: { from: "main", to: "main", from_project_id: other.id } }))).toEqual([
      400,
      { message: `Target project id:${other.id} is not a fork of project id:${project.id}` },
    ]);
    expect((await api.get(comparePath(project), { query: { from: "main", to: "main", from_project_id: project.id } })).status).toBe(200);
  });

  it("lets anyone read a public project's comparison", async () => {
    const w = await world();
    const { project } = await smallRepo(w, { visibility: "public" });
    expect((await w.anonymous.get(comparePath(project), { query: { from: "main~1", to: "main" } })).status).toBe(200);
  });

  hidesPrivateProject(async (w, project) => w.as(await w.user()).get(comparePath(project), { query: { from: "a", to: "b" } }));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(comparePath(project), { query: { from: "a", to: "b" } }));
});

describe("GET /projects/:id/repository/merge_base", () => {
  it("returns the common ancestor as a commit", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    await commitTo(project, "a", [{ action: "create", filePath: "a", content: "a" }], { startBranch: "main" });
    await commitTo(project, "b", [{ action: "create", filePath: "b", content: "b" }], { startBranch: "main" });
    const [status, body] = await statusAndBody(await api.get(mergeBasePath(project), { query: { "refs[]": ["a", "b"] } }));
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: commits.third, title: "Update README", parent_ids: [commits.second] });
    expect(Object.keys(body as Json)).not.toContain("stats");
    // Comma-separated, three refs, a short id: as `git merge-base a b <second>`, the base of `a` and a
    // merge of the others, so the newer `third` (the oracle test checks more against git).
    const three = (await (await api.get(mergeBasePath(project), { query: { refs: `a,b,${commits.second.slice(0, 8)}` } })).json()) as Json;
    expect(three.id).toBe(commits.third);
  });

  it("answers GitLab's 400s and 404 Merge Base Not Found", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    expect(await statusAndBody(await api.get(mergeBasePath(project)))).toEqual([400, { error: "refs is missing" }]);
    expect(await statusAndBody(await api.get(mergeBasePath(project), { query: { "refs[]": ["main"] } }))).toEqual([400, { message: "Provide at least 2 refs" }]);
    expect(await statusAndBody(await api.get(mergeBasePath(project), { query: { "refs[]": ["main", "x"] } }))).toEqual([400, { message: "Could not find ref: x" }]);
    expect(await statusAndBody(await api.get(mergeBasePath(project), { query: { "refs[]": ["y", "main", "x"] } }))).toEqual([400, { message: "Could not find refs: y, x" }]);
  });

  hidesPrivateProject(async (w, project) => w.as(await w.user()).get(mergeBasePath(project), { query: { "refs[]": ["a", "b"] } }));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(mergeBasePath(project), { query: { "refs[]": ["a", "b"] } }));
});
