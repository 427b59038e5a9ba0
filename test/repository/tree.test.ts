import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { followPages, forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { smallRepo } from "../helpers/git";
import { type Json } from "../helpers/api";

const treePath = (project: { id: number }) => `/projects/${project.id}/repository/tree`;

describe("GET /projects/:id/repository/tree", () => {
  it("lists the default branch's root: directories first, then files, each in git's order", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const res = await api.get(treePath(project));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((e) => [e.name, e.type, e.path, e.mode])).toEqual([
      ["bin", "tree", "bin", "040000"],
      ["docs", "tree", "docs", "040000"],
      ["src", "tree", "src", "040000"],
      ["README.md", "blob", "README.md", "100644"],
    ]);
    expect(body[3].id).toMatch(/^[0-9a-f]{40}$/);
    expect(res.headers.get("x-total")).toBe("4");
  });

  it("lists a path, recursively, at any ref", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const list = async (query: Record<string, string>) => ((await (await api.get(treePath(project), { query })).json()) as Json[]).map((e) => [e.path, e.type, e.mode]);
    expect(await list({ path: "docs" })).toEqual([["docs/guide", "tree", "040000"]]);
    expect(await list({ path: "docs/guide/" })).toEqual([["docs/guide/intro.md", "blob", "100644"]]);
    expect(await list({ recursive: "true" })).toEqual([
      ["bin", "tree", "040000"],
      ["docs", "tree", "040000"],
      ["docs/guide", "tree", "040000"],
      ["src", "tree", "040000"],
      ["README.md", "blob", "100644"],
      ["bin/run.sh", "blob", "100755"],
      ["docs/guide/intro.md", "blob", "100644"],
      ["src/app.js", "blob", "100644"],
    ]);
    expect(await list({ ref: commits.first })).toEqual([
      ["src", "tree", "040000"],
      ["README.md", "blob", "100644"],
    ]);
    expect(await list({ path: "." })).toHaveLength(4);
    // A path that is no directory at that ref lists nothing (GitLab 15.4 with Gitaly).
    expect(await list({ path: "no/such" })).toEqual([]);
    expect(await list({ path: "README.md" })).toEqual([]);
  });

  it("answers 404 Tree Not Found for an unknown ref or an empty repository, and Grape's errors", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    expect(await statusAndBody(await api.get(treePath(project), { query: { ref: "foo" } }))).toEqual([404, { message: "404 Tree Not Found" }]);
    const owner = await w.user();
    const empty = await w.project({ owner });
    expect(await statusAndBody(await w.as(owner).get(treePath(empty)))).toEqual([404, { message: "404 Tree Not Found" }]);
    expect(await statusAndBody(await api.get(treePath(project), { query: { pagination: "none" } }))).toEqual([
      400,
      { error: 'pagination cannot be "none" unless "recursive" is true' },
    ]);
    expect(await statusAndBody(await api.get(treePath(project), { query: { pagination: "pages" } }))).toEqual([
      400,
      { error: "pagination does not have a valid value" },
    ]);
    expect(await statusAndBody(await api.get(treePath(project), { query: { recursive: "maybe" } }))).toEqual([400, { error: "recursive is invalid" }]);
  });

  it("paginates with offset headers, or not at all with pagination=none", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const res = await api.get(treePath(project), { query: { recursive: "true", per_page: 3, page: 2 } });
    expect(((await res.json()) as Json[]).map((e) => e.path)).toEqual(["src", "README.md", "bin/run.sh"]);
    expect([res.headers.get("x-total"), res.headers.get("x-total-pages"), res.headers.get("x-next-page"), res.headers.get("x-prev-page")]).toEqual(["8", "3", "3", "1"]);
    const all = await followPages(w, await api.get(treePath(project), { query: { recursive: "true", per_page: 2 } }), api.token);
    expect(all).toHaveLength(8);
    const none = await api.get(treePath(project), { query: { recursive: "true", pagination: "none", per_page: 2 } });
    expect(((await none.json()) as Json[]).length).toBe(8);
    expect(none.headers.get("x-total")).toBeNull();
    expect(none.headers.get("link")).toBeNull();
    const one = await api.get(treePath(project), { query: { per_page: 1 } });
    const hundred = await api.get(treePath(project), { query: { per_page: 100 } });
    expect(one.headers.get("x-query-count")).toBe(hundred.headers.get("x-query-count"));
    expect(Number(hundred.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
  });

  it("is readable anonymously on a public project and by reporters of a private one", async () => {
    const w = await world();
    const reporter = await w.user();
    const open = await smallRepo(w, { visibility: "public" });
    expect((await w.anonymous.get(treePath(open.project))).status).toBe(200);
    const closed = await smallRepo(w, { reporters: [reporter] });
    expect((await w.as(reporter).get(treePath(closed.project))).status).toBe(200);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(treePath(project)));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(treePath(project)));
});
