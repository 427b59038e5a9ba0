import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { gitRefs, projects, pushEvents } from "../../db/schema";
import { BASE, statusAndBody } from "../helpers/client";
import { followPages, forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { commitTo, projectRow, smallRepo, tagAt } from "../helpers/git";
import { withDb } from "../helpers/db";
import { queryCount, type Json } from "../helpers/api";

const branchesPath = (project: { id: number }) => `/projects/${project.id}/repository/branches`;

async function refsOf(project: { id: number }) {
  return withDb(async (db) =>
    (await db.select({ name: gitRefs.name, target: gitRefs.target }).from(gitRefs).where(eq(gitRefs.projectId, project.id))).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    ),
  );
}

/** smallRepo plus: `feature/x` at the first commit (merged), `topic` with a commit of its own, `same` at main's tip. */
async function branchyRepo(w: Awaited<ReturnType<typeof world>>, opts: Parameters<typeof smallRepo>[1] = {}) {
  const repo = await smallRepo(w, opts);
  await withDb(async (db) => {
    const { createBranch } = await import("../../functions/shared/git");
    const r = { projectId: repo.project.id, poolId: repo.project.id, defaultBranch: "main" };
    await createBranch(db, r, { name: "feature/x", target: repo.commits.first });
    await createBranch(db, r, { name: "same", target: repo.commits.third });
  });
  const topic = await commitTo(repo.project, "topic", [{ action: "create", filePath: "topic.txt", content: "t\n" }], {
    startBranch: "main",
    message: "Topic work\n\nSigned-off-by: Alice <alice@example.com>",
    at: new Date("2024-01-05T10:00:00Z"),
  });
  return { ...repo, topic };
}

describe("GET /projects/:id/repository/branches", () => {
  it("lists branches in git's name order with GitLab's Branch entity", async () => {
    const w = await world();
    const { project, api, commits, topic } = await branchyRepo(w);
    const res = await api.get(branchesPath(project));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = (await res.json()) as Json[];
    expect(body.map((b) => [b.name, b.merged, b.default, b.commit.id])).toEqual([
      ["feature/x", true, false, commits.first],
      ["main", false, true, commits.third],
      ["same", false, false, commits.third],
      ["topic", false, false, topic],
    ]);
    const webUrl = `${BASE}/${project.fullPath}`;
    expect(body[1]).toEqual({
      name: "main",
      commit: {
        id: commits.third,
        short_id: commits.third.slice(0, 8),
        created_at: "2024-01-03T10:00:00.000+00:00",
        parent_ids: [commits.second],
        title: "Update README",
        message: "Update README",
        author_name: "Alice",
        author_email: "alice@example.com",
        authored_date: "2024-01-03T10:00:00.000+00:00",
        committer_name: "Alice",
        committer_email: "alice@example.com",
        committed_date: "2024-01-03T10:00:00.000+00:00",
        trailers: {},
        web_url: `${webUrl}/-/commit/${commits.third}`,
      },
      merged: false,
      // The default branch is protected when its first commit lands (maintainers push and merge).
      protected: true,
      developers_can_push: false,
      developers_can_merge: false,
      can_push: true,
      default: true,
      web_url: `${webUrl}/-/tree/main`,
    });
    expect(body[0].web_url).toBe(`${webUrl}/-/tree/feature/x`);
    expect(body[3].commit).toMatchObject({ title: "Topic work", message: "Topic work\n\nSigned-off-by: Alice <alice@example.com>", parent_ids: [commits.third] });
  });

  it("filters with search (substring, ^ and $ anchors, exact match first) and sorts by update time", async () => {
    const w = await world();
    const { project, api } = await branchyRepo(w);
    await commitTo(project, "x-main", [{ action: "create", filePath: "x.txt", content: "x\n" }], { startBranch: "main", at: new Date("2024-01-04T10:00:00Z") });
    const names = async (query: Record<string, string>) => ((await (await api.get(branchesPath(project), { query })).json()) as Json[]).map((b) => b.name);
    expect(await names({ search: "MAIN" })).toEqual(["main", "x-main"]);
    expect(await names({ search: "^x" })).toEqual(["x-main"]);
    expect(await names({ search: "/x$" })).toEqual(["feature/x"]);
    expect(await names({ search: "e" })).toEqual(["feature/x", "same"]);
    expect(await names({ search: "nothing" })).toEqual([]);
    expect(await names({ sort: "updated_desc" })).toEqual(["topic", "x-main", "main", "same", "feature/x"]);
    expect(await names({ sort: "updated_asc" })).toEqual(["feature/x", "main", "same", "x-main", "topic"]);
    expect(await statusAndBody(await api.get(branchesPath(project), { query: { sort: "newest" } }))).toEqual([
      400,
      { error: "sort does not have a valid value" },
    ]);
  });

  it("paginates with offset headers and a constant number of statements", async () => {
    const w = await world();
    const { project, api } = await branchyRepo(w);
    const res = await api.get(branchesPath(project), { query: { per_page: 1, page: 2 } });
    expect(((await res.json()) as Json[]).map((b) => b.name)).toEqual(["main"]);
    expect(res.headers.get("x-total")).toBe("4");
    expect(res.headers.get("x-total-pages")).toBe("4");
    expect(res.headers.get("x-next-page")).toBe("3");
    expect(res.headers.get("x-prev-page")).toBe("1");
    const all = await followPages(w, await api.get(branchesPath(project), { query: { per_page: 1 } }), api.token);
    expect(all.map((b) => (b as Json).name)).toEqual(["feature/x", "main", "same", "topic"]);
    const one = await api.get(branchesPath(project), { query: { per_page: 1 } });
    const hundred = await api.get(branchesPath(project), { query: { per_page: 100 } });
    expect(one.headers.get("x-query-count")).toBe(hundred.headers.get("x-query-count"));
    expect(Number(hundred.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
  });

  it("is readable anonymously on a public project, where nobody anonymous can push", async () => {
    const w = await world();
    const { project } = await smallRepo(w, { visibility: "public" });
    const res = await w.anonymous.get(branchesPath(project));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json[]).map((b) => [b.name, b.can_push])).toEqual([["main", false]]);
  });

  it("lets reporters read a private project's branches (they cannot push)", async () => {
    const w = await world();
    const reporter = await w.user();
    const { project } = await smallRepo(w, { reporters: [reporter] });
    const body = (await (await w.as(reporter).get(branchesPath(project))).json()) as Json[];
    expect(body.map((b) => [b.name, b.can_push])).toEqual([["main", false]]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(branchesPath(project)));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(branchesPath(project)));
});

describe("GET /projects/:id/repository/branches: merged", () => {
  it("walks the history once per default-branch tip: a second page read asks the database one statement less, with the same answer", async () => {
    const w = await world();
    const { project, api, topic } = await branchyRepo(w);
    // A tip no other test has: the isolate's reachability cache knows nothing of it yet.
    const tip = await commitTo(project, "main", [{ action: "create", filePath: `fresh-${Date.now()}-${Math.random()}.txt`, content: "x\n" }]);
    const list = async () => {
      const res = await api.get(branchesPath(project));
      expect(res.status).toBe(200);
      return { statements: queryCount(res), merged: ((await res.json()) as Json[]).map((b) => [b.name, b.merged]) };
    };
    const first = await list();
    expect(first.merged).toEqual([
      ["feature/x", true],
      ["main", false],
      ["same", true],
      ["topic", false],
    ]);
    const second = await list();
    expect(second.merged).toEqual(first.merged);
    expect(second.statements).toBe(first.statements - 1);
    // The default branch moves on: its new tip is walked once more.
    const next = await commitTo(project, "main", [{ action: "create", filePath: "next.txt", content: "n\n" }]);
    expect(next).not.toBe(tip);
    const moved = await list();
    expect(moved.statements).toBe(first.statements);
    expect(moved.merged).toEqual(first.merged);
    void topic;
  });
});

describe("GET /projects/:id/repository/branches/:branch", () => {
  it("finds a branch by its URL-encoded name", async () => {
    const w = await world();
    const { project, api, commits } = await branchyRepo(w);
    const res = await api.get(`${branchesPath(project)}/feature%2Fx`);
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ name: "feature/x", merged: true, default: false, protected: false, can_push: true, commit: { id: commits.first } });
    expect(Number(res.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    // By full path as well.
    const byPath = await api.get(`/projects/${encodeURIComponent(project.fullPath)}/repository/branches/main`);
    expect(((await byPath.json()) as Json).merged).toBe(false);
  });

  it("answers 404 Branch Not Found, and 400 for a name git refuses", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    expect(await statusAndBody(await api.get(`${branchesPath(project)}/nope`))).toEqual([404, { message: "404 Branch Not Found" }]);
    expect(await statusAndBody(await api.get(`${branchesPath(project)}/branch*`))).toEqual([400, { message: "The branch refname is invalid" }]);
  });

  it("answers HEAD with 204 when the branch exists and 404 otherwise", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const yes = await api.head(`${branchesPath(project)}/main`);
    expect([yes.status, await yes.text()]).toEqual([204, ""]);
    expect((await api.head(`${branchesPath(project)}/nope`)).status).toBe(404);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(`${branchesPath(project)}/main`));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(`${branchesPath(project)}/main`));
});

describe("POST /projects/:id/repository/branches", () => {
  it("creates a branch from a branch, a tag or a commit id, with its push event", async () => {
    const w = await world();
    const developer = await w.user();
    const { project, commits } = await smallRepo(w, { developers: [developer] });
    await tagAt(project, "v1", commits.second, "Release 1");
    const api = w.as(developer);
    const fromBranch = await api.post(branchesPath(project), { json: { branch: "feature/new", ref: "main" } });
    expect(fromBranch.status).toBe(201);
    expect(await fromBranch.json()).toMatchObject({ name: "feature/new", merged: false, default: false, can_push: true, commit: { id: commits.third } });
    const fromTag = (await (await api.post(branchesPath(project), { query: { branch: "from-tag", ref: "v1" } })).json()) as Json;
    expect(fromTag).toMatchObject({ name: "from-tag", merged: true, commit: { id: commits.second } });
    const fromSha = (await (await api.post(branchesPath(project), { form: { branch: "from-sha", ref: commits.first.slice(0, 10) } })).json()) as Json;
    expect(fromSha).toMatchObject({ name: "from-sha", merged: true, commit: { id: commits.first } });
    expect(await refsOf(project)).toEqual([
      { name: "refs/heads/feature/new", target: commits.third },
      { name: "refs/heads/from-sha", target: commits.first },
      { name: "refs/heads/from-tag", target: commits.second },
      { name: "refs/heads/main", target: commits.third },
      { name: "refs/tags/v1", target: expect.stringMatching(/^[0-9a-f]{40}$/) },
    ]);
    const events = await withDb((db) =>
      db.select().from(pushEvents).where(and(eq(pushEvents.projectId, project.id), eq(pushEvents.ref, "refs/heads/feature/new"))),
    );
    expect(events).toMatchObject([{ before: "0".repeat(40), after: commits.third, userId: developer.id }]);
  });

  it("answers GitLab's errors: parameters, invalid name, existing branch, unknown ref", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const post = async (json: Json) => statusAndBody(await api.post(branchesPath(project), { json }));
    expect(await post({})).toEqual([400, { error: "branch is missing, ref is missing" }]);
    expect(await post({ branch: " ", ref: "" })).toEqual([400, { error: "branch is empty, ref is empty" }]);
    expect(await post({ branch: "new design", ref: "main" })).toEqual([400, { message: "Branch name is invalid" }]);
    expect(await post({ branch: "main", ref: "main" })).toEqual([400, { message: "Branch already exists" }]);
    expect(await post({ branch: "main", ref: "foo" })).toEqual([400, { message: "Branch already exists" }]);
    expect(await post({ branch: "new_design3", ref: "foo" })).toEqual([400, { message: "Invalid reference name: foo" }]);
    expect(await post({ branch: "new_design3", ref: "f".repeat(40) })).toEqual([400, { message: `Invalid reference name: ${"f".repeat(40)}` }]);
    // Branches::CreateService relays the pre-receive hook's refusal (BranchCheck): a name of 40 hex digits.
    expect(await post({ branch: commits.third, ref: "main" })).toEqual([400, { message: "You cannot create a branch with a 40-character hexadecimal branch name." }]);
    expect(await post({ branch: "F".repeat(40), ref: "main" })).toEqual([400, { message: "You cannot create a branch with a 40-character hexadecimal branch name." }]);
    expect(await refsOf(project)).toEqual([{ name: "refs/heads/main", target: commits.third }]);
  });

  it("first commits an empty README.md on the default branch of an empty repository", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const res = await w.as(owner).post(branchesPath(project), { json: { branch: "feature", ref: "main" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ name: "feature", default: false, merged: false, commit: { title: "Add README.md", author_name: owner.name, parent_ids: [] } });
    expect((await refsOf(project)).map((r) => r.name)).toEqual(["refs/heads/feature", "refs/heads/main"]);
    expect(await projectRow(project)).toMatchObject({ emptyRepo: false, defaultBranch: "main" });
    const readme = await w.as(owner).get(`/projects/${project.id}/repository/files/README.md`, { query: { ref: "main" } });
    expect(await readme.json()).toMatchObject({ size: 0, content: "" });
  });

  it("applies the protected-branch checks of a web push (Gitlab::Checks::BranchCheck): a merge-only creator starts from a protected branch", async () => {
    const w = await world();
    const developer = await w.user();
    const { project, api, commits } = await smallRepo(w, { developers: [developer] });
    // `main` is protected since its first commit; `side` is not, and holds a commit no protected branch has.
    const side = await commitTo(project, "side", [{ action: "create", filePath: "side.txt", content: "s\n" }], { startBranch: "main" });
    const protect = async (json: Json) => expect((await api.post(`/projects/${project.id}/protected_branches`, { json })).status).toBe(201);
    await protect({ name: "release/*", push_access_level: 0, merge_access_level: 30 });
    await protect({ name: "locked", push_access_level: 40, merge_access_level: 40 });
    const post = async (who: typeof api, json: Json) => statusAndBody(await who.post(branchesPath(project), { json }));
    const dev = w.as(developer);

    expect(await post(dev, { branch: "release/1", ref: "side" })).toEqual([
      400,
      { message: "You can only use an existing protected branch ref as the basis of a new protected branch." },
    ]);
    expect(await post(dev, { branch: "release/1", ref: commits.first })).toMatchObject([201, { name: "release/1", protected: true, commit: { id: commits.first } }]);
    // Now `release/1` is itself a protected basis, whatever reaches from it.
    expect(await post(dev, { branch: "release/2", ref: "release/1" })).toMatchObject([201, { name: "release/2" }]);
    expect(await post(dev, { branch: "locked", ref: "main" })).toEqual([400, { message: "You are not allowed to create protected branches on this project." }]);
    // An existing name is refused first, as ValidateNewService runs before the hook.
    expect(await post(dev, { branch: "release/1", ref: "side" })).toEqual([400, { message: "Branch already exists" }]);
    // Nobody may push `release/*`, so the owner too needs a protected basis; whoever may push (the owner,
    // for `locked`) needs none, and `side`'s commit is then in a protected branch.
    expect(await post(api, { branch: "release/3", ref: "side" })).toEqual([
      400,
      { message: "You can only use an existing protected branch ref as the basis of a new protected branch." },
    ]);
    expect(await post(api, { branch: "locked", ref: "side" })).toMatchObject([201, { name: "locked", commit: { id: side } }]);
    expect(await post(api, { branch: "release/3", ref: "side" })).toMatchObject([201, { name: "release/3", commit: { id: side } }]);
    expect((await refsOf(project)).map((r) => r.name)).toEqual(["refs/heads/locked", "refs/heads/main", "refs/heads/release/1", "refs/heads/release/2", "refs/heads/release/3", "refs/heads/side"]);
  });

  requiresAuthentication((w) => w.anonymous.post("/projects/1/repository/branches", { json: { branch: "x", ref: "main" } }));
  hidesPrivateProject((w, project) => w.as(w.stranger).post(branchesPath(project), { json: { branch: "x", ref: "main" } }));
  forbidsRoles(["guest", "reporter"], (w, project, user) => w.as(user).post(branchesPath(project), { json: { branch: "x", ref: "main" } }));

  it("refuses writes on an archived project (403)", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    await w.db((db) => db.update(projects).set({ archived: true }).where(eq(projects.id, project.id)));
    expect(await statusAndBody(await api.post(branchesPath(project), { json: { branch: "x", ref: "main" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("DELETE /projects/:id/repository/branches/:branch", () => {
  it("deletes a branch (204) and records the push event", async () => {
    const w = await world();
    const developer = await w.user();
    const { project, commits } = await branchyRepo(w, { developers: [developer] });
    const res = await w.as(developer).delete(`${branchesPath(project)}/feature%2Fx`);
    expect([res.status, await res.text()]).toEqual([204, ""]);
    expect((await refsOf(project)).map((r) => r.name)).toEqual(["refs/heads/main", "refs/heads/same", "refs/heads/topic"]);
    const events = await withDb((db) =>
      db.select().from(pushEvents).where(and(eq(pushEvents.projectId, project.id), eq(pushEvents.ref, "refs/heads/feature/x"))).orderBy(pushEvents.id),
    );
    expect(events.map((e) => [e.before, e.after])).toEqual([
      ["0".repeat(40), commits.first],
      [commits.first, "0".repeat(40)],
    ]);
    expect(await projectRow(project)).toMatchObject({ emptyRepo: false });
  });

  it("refuses the default branch, an unknown branch and an invalid name", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    expect(await statusAndBody(await api.delete(`${branchesPath(project)}/main`))).toEqual([400, { message: "The default branch of a project cannot be deleted." }]);
    expect(await statusAndBody(await api.delete(`${branchesPath(project)}/nope`))).toEqual([404, { message: "404 Branch Not Found" }]);
    expect(await statusAndBody(await api.delete(`${branchesPath(project)}/branch*`))).toEqual([400, { message: "The branch refname is invalid" }]);
  });

  it("answers 412 when If-Unmodified-Since is older than the tip's author date", async () => {
    const w = await world();
    const { project, api } = await branchyRepo(w);
    const stale = await api.delete(`${branchesPath(project)}/topic`, { headers: { "If-Unmodified-Since": "Thu, 04 Jan 2024 10:00:00 GMT" } });
    expect(await statusAndBody(stale)).toEqual([412, { message: "412 Precondition Failed" }]);
    const fresh = await api.delete(`${branchesPath(project)}/topic`, { headers: { "If-Unmodified-Since": "Sat, 06 Jan 2024 10:00:00 GMT" } });
    expect(fresh.status).toBe(204);
  });

  it("marks the repository empty when its last branch goes", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    // A default branch that no longer names a branch (so `main` may go).
    await w.db((db) => db.update(projects).set({ defaultBranch: "gone" }).where(eq(projects.id, project.id)));
    expect((await api.delete(`${branchesPath(project)}/main`)).status).toBe(204);
    expect(await projectRow(project)).toMatchObject({ emptyRepo: true });
  });

  requiresAuthentication((w) => w.anonymous.delete("/projects/1/repository/branches/main"));
  hidesPrivateProject((w, project) => w.as(w.stranger).delete(`${branchesPath(project)}/main`));
  forbidsRoles(["guest", "reporter"], (w, project, user) => w.as(user).delete(`${branchesPath(project)}/main`));
});
