import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { unique, world, type TestUser, type World } from "../helpers/world";
import { createMergeRequest, createMilestone, type Json } from "../helpers/api";
import { commitTo } from "../helpers/git";

/** A word no other test's rows contain, so that results are only this test's. */
const word = () => unique("srch").replace(/[^a-z0-9]/gi, "");

const ids = async (res: Response) => ((await res.json()) as Json[]).map((r) => r.id);

describe("GET /search", () => {
  it("needs a signed-in caller", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/search", { query: { scope: "issues", search: "x" } }))).toEqual([401, { message: "401 Unauthorized" }]);
  });

  it("answers Grape's 400s for a missing or unknown scope or search, and refuses code scopes without Elasticsearch", async () => {
    const w = await world();
    const api = w.as(w.stranger);
    expect(await statusAndBody(await api.get("/search", { query: { scope: "issues" } }))).toEqual([400, { error: "search is missing" }]);
    expect(await statusAndBody(await api.get("/search", { query: { search: "x" } }))).toEqual([400, { error: "scope is missing, scope does not have a valid value" }]);
    expect(await statusAndBody(await api.get("/search", { query: { search: "x", scope: "epics" } }))).toEqual([400, { error: "scope does not have a valid value" }]);
    expect(await statusAndBody(await api.get("/search", { query: { search: "x", scope: "issues", state: "locked" } }))).toEqual([400, { error: "state does not have a valid value" }]);
    expect(await statusAndBody(await api.get("/search", { query: { search: "x", scope: "issues", confidential: "maybe" } }))).toEqual([400, { error: "confidential is invalid" }]);
    for (const scope of ["blobs", "commits", "wiki_blobs", "notes"])
      expect(await statusAndBody(await api.get("/search", { query: { search: "x", scope } }))).toEqual([400, { message: { error: "Scope not supported without Elasticsearch!" } }]);
  });

  it("finds issues row by row as the caller may read them (visibility matrix)", async () => {
    const w = await world();
    const [guest, reporter, author] = [await w.user(), await w.user(), await w.user()];
    const admin = await w.user({ admin: true });
    const key = word();
    const pub = await w.project({ visibility: "public" });
    const priv = await w.project({ visibility: "private", guests: [guest, author], reporters: [reporter] });
    const noIssues = await w.project({ visibility: "public" });
    await w.db((db) => db.execute(`UPDATE projects SET issues_enabled = false WHERE id = ${noIssues.id}`));
    const open = await w.issue(pub, { title: `${key} public` });
    const privIssue = await w.issue(priv, { title: `${key} private` });
    const secret = await w.issue(priv, { title: `${key} confidential`, confidential: true });
    const own = await w.issue(priv, { title: `${key} own secret`, confidential: true, authorId: author.id });
    await w.issue(noIssues, { title: `${key} feature off` });
    const found = async (u: TestUser) => (await ids(await w.as(u).get("/search", { query: { scope: "issues", search: key, per_page: 100 } }))).sort((a, b) => a - b);
    const sorted = (...xs: number[]) => xs.sort((a, b) => a - b);
    expect(await found(w.stranger)).toEqual([open.id]);
    expect(await found(guest)).toEqual(sorted(open.id, privIssue.id));
    expect(await found(author)).toEqual(sorted(open.id, privIssue.id, own.id));
    expect(await found(reporter)).toEqual(sorted(open.id, privIssue.id, secret.id, own.id));
    expect(await found(admin)).toEqual(sorted(open.id, privIssue.id, secret.id, own.id));
  });

  it("filters issues by state, confidentiality and `#iid`, and orders them", async () => {
    const w = await world();
    const owner = await w.user();
    const key = word();
    const project = await w.project({ visibility: "private", owner });
    const first = await w.issue(project, { title: `${key} first` });
    const second = await w.issue(project, { title: `${key} second`, confidential: true });
    await w.db((db) => db.execute(`UPDATE issues SET state = 'closed', created_at = now() + interval '1 minute' WHERE id = ${second.id}`));
    const api = w.as(owner);
    const search = (query: Json) => api.get("/search", { query: { scope: "issues", search: key, ...query } });
    expect(await ids(await search({}))).toEqual([second.id, first.id]);
    expect(await ids(await search({ order_by: "created_at", sort: "asc" }))).toEqual([first.id, second.id]);
    expect(await ids(await search({ state: "opened" }))).toEqual([first.id]);
    expect(await ids(await search({ state: "closed" }))).toEqual([second.id]);
    expect(await ids(await search({ confidential: true }))).toEqual([second.id]);
    expect(await ids(await search({ confidential: false }))).toEqual([first.id]);
    const res = await api.get(`/projects/${project.id}/search`, { query: { scope: "issues", search: `#${second.iid}` } });
    expect(await ids(res)).toEqual([second.id]);
    const body = (await (await search({ state: "opened" })).json()) as Json[];
    expect(body[0]).toMatchObject({ id: first.id, iid: first.iid, project_id: project.id, state: "opened" });
  });

  it("finds the same pages whether the newest issues hold them or not (the walk and the trigram scan)", async () => {
    const w = await world();
    const owner = await w.user();
    const key = word();
    const project = await w.project({ visibility: "private", owner });
    // Three matches (one through its description, one in upper case): the last the newest issue, the others
    // older than 60 issues that do not match. A page of 1 (2 rows needed) walks the 50 newest and finds one,
    // so the trigram scan answers; page 2 (3 rows) walks 75, all 63, and the walk answers; page 3 (4 rows,
    // 3 found) falls back again.
    const matches = [];
    for (const [i, title] of [`${key} one`, "no word here", `${key.toUpperCase()} three`].entries()) {
      const row = await w.issue(project, { title });
      const description = i === 1 ? `'Steps for ${key}'` : "NULL";
      await w.db((db) => db.execute(`UPDATE issues SET description = ${description}, created_at = ${i === 2 ? "now() + interval '1 hour'" : `now() - interval '1 hour' + interval '${i} minutes'`},
        updated_at = now() - interval '${i} minutes' WHERE id = ${row.id}`));
      matches.push(row.id);
    }
    await w.db((db) =>
      db.execute(`INSERT INTO issues (iid, project_id, title, created_at, updated_at)
        SELECT 100 + g, ${project.id}, 'filler ' || g, now() + g * interval '1 second', now() - interval '2 hours' FROM generate_series(1, 60) g`),
    );
    const api = w.as(owner);
    const page = async (query: Json) => {
      const res = await api.get(`/projects/${project.id}/search`, { query: { scope: "issues", search: key.toLowerCase(), per_page: 1, ...query } });
      expect(res.status).toBe(200);
      return [await ids(res), res.headers.get("x-next-page")];
    };
    const newestFirst = [...matches].reverse();
    expect(await page({})).toEqual([[newestFirst[0]], "2"]);
    expect(await page({ page: 2 })).toEqual([[newestFirst[1]], "3"]);
    expect(await page({ page: 3 })).toEqual([[newestFirst[2]], ""]);
    expect(await page({ page: 4 })).toEqual([[], ""]);
    expect(await page({ per_page: 20 })).toEqual([newestFirst, ""]);
    expect(await page({ order_by: "created_at", sort: "asc", per_page: 2 })).toEqual([matches.slice(0, 2), "2"]);
    // updated_at runs the other way (the first is the most recently updated); the fillers are older there.
    expect(await page({ order_by: "updated_at", sort: "desc", per_page: 2 })).toEqual([matches.slice(0, 2), "2"]);
    expect(await page({ order_by: "updated_at", sort: "asc", per_page: 2, page: 2 })).toEqual([[matches[0]], ""]);
    // Globally as well (the walk there is over every project's newest issues).
    const global = await api.get("/search", { query: { scope: "issues", search: key.toUpperCase(), per_page: 2 } });
    expect([await ids(global), global.headers.get("x-next-page")]).toEqual([newestFirst.slice(0, 2), "2"]);
  });

  it("matches a query without a term of 3 characters against the whole title or description, in any case", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ visibility: "private", owner });
    const short = await w.issue(project, { title: "Zq" });
    const other = await w.issue(project, { title: "zq and more" });
    await w.db((db) => db.execute(`UPDATE issues SET description = 'q Z' WHERE id = ${other.id}`));
    const found = async (search: string) => ids(await w.as(owner).get(`/projects/${project.id}/search`, { query: { scope: "issues", search } }));
    expect(await found("zQ")).toEqual([short.id]);
    expect(await found("  Q   z ")).toEqual([other.id]);
    expect(await found("z")).toEqual([]);
    expect(await found("z%")).toEqual([]);
  });

  it("paginates without totals, as Kaminari's without_count", async () => {
    const w = await world();
    const owner = await w.user();
    const key = word();
    const project = await w.project({ visibility: "private", owner });
    for (let i = 0; i < 3; i++) await w.issue(project, { title: `${key} ${i}` });
    const api = w.as(owner);
    const page1 = await api.get("/search", { query: { scope: "issues", search: key, per_page: 2 } });
    expect((await page1.json()) as Json[]).toHaveLength(2);
    expect(page1.headers.get("x-next-page")).toBe("2");
    expect(page1.headers.get("x-prev-page")).toBe("");
    expect(page1.headers.get("x-page")).toBe("1");
    expect(page1.headers.get("x-per-page")).toBe("2");
    expect(page1.headers.has("x-total")).toBe(false);
    expect(page1.headers.has("x-total-pages")).toBe(false);
    const link = page1.headers.get("link")!;
    expect(link).toContain('rel="next"');
    expect(link).toContain('rel="first"');
    expect(link).not.toContain('rel="last"');
    expect(link).toContain(`search=${key}`);
    const page2 = await api.get("/search", { query: { scope: "issues", search: key, per_page: 2, page: 2 } });
    expect((await page2.json()) as Json[]).toHaveLength(1);
    expect(page2.headers.get("x-next-page")).toBe("");
    expect(page2.headers.get("x-prev-page")).toBe("1");
    expect(await statusAndBody(await api.get("/search", { query: { scope: "issues", search: key, per_page: 0 } }))).toEqual([
      400,
      { error: "per_page does not have a valid value" },
    ]);
  });

  it("finds projects, merge requests, milestones, snippets and users the caller may read", async () => {
    const w = await world();
    const [member, guest] = [await w.user(), await w.user()];
    const key = word();
    const open = await w.project({ visibility: "public", path: `${key}-open` });
    const hidden = await w.project({ visibility: "private", path: `${key}-hidden`, developers: [member], guests: [guest] });
    const search = (u: TestUser, scope: string) => w.as(u).get("/search", { query: { scope, search: key } });

    expect(await ids(await search(w.stranger, "projects"))).toEqual([open.id]);
    expect(await ids(await search(member, "projects"))).toEqual([hidden.id, open.id]);

    const mr = await createMergeRequest(w, member, hidden, { title: `${key} change` });
    expect(await ids(await search(member, "merge_requests"))).toEqual([mr.id]);
    // Merge requests of a private project need reporter access.
    expect(await ids(await search(guest, "merge_requests"))).toEqual([]);
    expect(await ids(await search(w.stranger, "merge_requests"))).toEqual([]);
    expect(await ids(await w.as(member).get("/search", { query: { scope: "merge_requests", search: key, state: "merged" } }))).toEqual([]);

    const milestone = await createMilestone(w, member, hidden, { title: `${key} v1` });
    expect(await ids(await search(member, "milestones"))).toEqual([milestone.id]);
    expect(await ids(await search(w.stranger, "milestones"))).toEqual([]);

    const mine = await w.as(member).post("/snippets", { json: { title: `${key} snippet`, file_name: "a.txt", content: "x", visibility: "private" } });
    const snippet = (await mine.json()) as Json;
    expect(await ids(await search(member, "snippet_titles"))).toEqual([snippet.id]);
    expect(await ids(await search(w.stranger, "snippet_titles"))).toEqual([]);
    // SnippetsFinder `authorized_and_user_personal`: another user's public personal snippet is not searched.
    const open_ = (await (await w.as(w.stranger).post("/snippets", { json: { title: `${key} public`, file_name: "b.txt", content: "y", visibility: "public" } })).json()) as Json;
    expect(await ids(await search(w.stranger, "snippet_titles"))).toEqual([open_.id]);
    expect(await ids(await search(member, "snippet_titles"))).toEqual([snippet.id]);
    const projectSnippet = await w.as(member).post(`/projects/${hidden.id}/snippets`, { json: { title: `${key} in project`, file_name: "c.txt", content: "z", visibility: "private" } });
    expect(projectSnippet.status).toBe(201);
    const inProject = (await projectSnippet.json()) as Json;
    expect(await ids(await search(guest, "snippet_titles"))).toEqual([inProject.id]);
    expect(await ids(await search(w.stranger, "snippet_titles"))).toEqual([open_.id]);

    const named = await w.user({ name: `Person ${key}` });
    const users = (await (await search(w.stranger, "users")).json()) as Json[];
    expect(users.map((u) => u.id)).toEqual([named.id]);
    expect(Object.keys(users[0]).sort()).toEqual(["avatar_url", "id", "name", "state", "username", "web_url"]);
  });
});

describe("GET /groups/:id/search", () => {
  it("searches the group's projects and subgroups only; unreadable groups are 404", async () => {
    const w = await world();
    const owner = await w.user();
    const key = word();
    const group = await w.group({ visibility: "private", owners: [owner] });
    const sub = await w.group({ visibility: "private", parent: group });
    const inGroup = await w.project({ group, visibility: "private" });
    const inSub = await w.project({ group: sub, visibility: "private" });
    const elsewhere = await w.project({ visibility: "public" });
    const a = await w.issue(inGroup, { title: key });
    const b = await w.issue(inSub, { title: key });
    await w.issue(elsewhere, { title: key });
    const res = await w.as(owner).get(`/groups/${group.id}/search`, { query: { scope: "issues", search: key } });
    expect(res.status).toBe(200);
    expect((await ids(res)).sort((x, y) => x - y)).toEqual([a.id, b.id].sort((x, y) => x - y));
    expect(await ids(await w.as(owner).get(`/groups/${group.id}/-/search`, { query: { scope: "projects", search: inSub.path } }))).toEqual([inSub.id]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/search`, { query: { scope: "issues", search: key } }))).toEqual([
      404,
      { message: "404 Group Not Found" },
    ]);
    expect(await statusAndBody(await w.as(owner).get(`/groups/${group.id}/search`, { query: { scope: "blobs", search: key } }))).toEqual([
      400,
      { message: { error: "Scope not supported without Elasticsearch!" } },
    ]);
    expect(await statusAndBody(await w.as(owner).get(`/groups/${group.id}/search`, { query: { scope: "snippet_titles", search: key } }))).toEqual([
      400,
      { error: "scope does not have a valid value" },
    ]);
  });
});

describe("GET /projects/:id/search", () => {
  async function repoProject(w: World, key: string) {
    const owner = await w.user();
    const [guest, reporter] = [await w.user(), await w.user()];
    const project = await w.project({ visibility: "private", owner, guests: [guest], reporters: [reporter] });
    const lines = ["one", "two", "three", `four ${key.toUpperCase()}`, "five", "six", "seven", "eight", "nine", `ten ${key}`];
    const first = await commitTo(project, "main", [
      { action: "create", filePath: "src/app.rb", content: `${lines.join("\n")}\n` },
      { action: "create", filePath: `docs/${key}.md`, content: "# Guide\n" },
      { action: "create", filePath: "logo.bin", content: `\u0000${key}` },
    ], { message: `Add the app for ${key}` });
    const second = await commitTo(project, "main", [{ action: "create", filePath: "README", content: "plain\n" }], { message: "Add a README" });
    return { owner, guest, reporter, project, first, second };
  }

  it("finds blobs on the default branch with their lines, then file names, sorted by path", async () => {
    const w = await world();
    const key = word();
    const { owner, project } = await repoProject(w, key);
    const res = await w.as(owner).get(`/projects/${project.id}/search`, { query: { scope: "blobs", search: key } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body).toEqual([
      { basename: `docs/${key}`, data: "# Guide\n", path: `docs/${key}.md`, filename: `docs/${key}.md`, id: expect.stringMatching(/^[0-9a-f]{40}$/), ref: "main", startline: 1, project_id: project.id },
      { basename: "src/app", data: `two\nthree\nfour ${key.toUpperCase()}\nfive\nsix\n`, path: "src/app.rb", filename: "src/app.rb", id: null, ref: "main", startline: 2, project_id: project.id },
      { basename: "src/app", data: `eight\nnine\nten ${key}\n`, path: "src/app.rb", filename: "src/app.rb", id: null, ref: "main", startline: 8, project_id: project.id },
    ]);
    expect(res.headers.get("x-total")).toBe("3");
  });

  it("finds commits by message on the default branch or `ref`, and by sha", async () => {
    const w = await world();
    const key = word();
    const { owner, project, first, second } = await repoProject(w, key);
    const api = w.as(owner);
    const res = await api.get(`/projects/${project.id}/search`, { query: { scope: "commits", search: key } });
    const body = (await res.json()) as Json[];
    expect(body.map((c) => c.id)).toEqual([first]);
    expect(body[0]).toMatchObject({ title: `Add the app for ${key}`, project_id: project.id, short_id: first.slice(0, 8) });
    expect(await ids(await api.get(`/projects/${project.id}/search`, { query: { scope: "commits", search: second.slice(0, 10) } }))).toEqual([second]);
    expect(await ids(await api.get(`/projects/${project.id}/search`, { query: { scope: "commits", search: key, ref: first } }))).toEqual([first]);
    expect(await ids(await api.get(`/projects/${project.id}/search`, { query: { scope: "commits", search: key, ref: "no-such-branch" } }))).toEqual([]);
  });

  it("shows code only to who may read it, and answers 404 to non-members of a private project", async () => {
    const w = await world();
    const key = word();
    const { guest, reporter, project } = await repoProject(w, key);
    for (const scope of ["blobs", "commits"]) {
      expect(await ids(await w.as(guest).get(`/projects/${project.id}/search`, { query: { scope, search: key } }))).toEqual([]);
      expect((await ids(await w.as(reporter).get(`/projects/${project.id}/search`, { query: { scope, search: key } }))).length).toBeGreaterThan(0);
    }
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/search`, { query: { scope: "blobs", search: key } }))).toEqual([
      404,
      { message: "404 Project Not Found" },
    ]);
    expect(await statusAndBody(await w.as(reporter).get(`/projects/${project.id}/search`, { query: { scope: "projects", search: key } }))).toEqual([
      400,
      { error: "scope does not have a valid value" },
    ]);
  });

  it("finds notes the caller may read, with totals", async () => {
    const w = await world();
    const [owner, guest] = [await w.user(), await w.user()];
    const key = word();
    const project = await w.project({ visibility: "private", owner, guests: [guest] });
    const open = await w.issue(project, { title: "open" });
    const secret = await w.issue(project, { title: "secret", confidential: true });
    const onOpen = (await (await w.as(owner).post(`/projects/${project.id}/issues/${open.iid}/notes`, { json: { body: `about ${key}` } })).json()) as Json;
    const onSecret = (await (await w.as(owner).post(`/projects/${project.id}/issues/${secret.iid}/notes`, { json: { body: `hidden ${key}` } })).json()) as Json;
    const ownerRes = await w.as(owner).get(`/projects/${project.id}/search`, { query: { scope: "notes", search: key } });
    const found = (await ownerRes.json()) as Json[];
    expect(found.map((n) => n.id).sort((a, b) => a - b)).toEqual([onOpen.id, onSecret.id].sort((a, b) => a - b));
    expect(found.find((n) => n.id === onOpen.id)).toMatchObject({ body: `about ${key}`, noteable_type: "Issue", noteable_iid: open.iid });
    expect(ownerRes.headers.get("x-total")).toBe("2");
    expect(await ids(await w.as(guest).get(`/projects/${project.id}/search`, { query: { scope: "notes", search: key } }))).toEqual([onOpen.id]);
  });

  it("answers [] for wiki blobs (no wiki repository) and finds the project's team for users", async () => {
    const w = await world();
    const key = word();
    const member = await w.user({ name: `Member ${key}` });
    await w.user({ name: `Outsider ${key}` });
    const project = await w.project({ visibility: "public", developers: [member] });
    const wiki = await w.as(member).get(`/projects/${project.id}/search`, { query: { scope: "wiki_blobs", search: key } });
    expect(await statusAndBody(wiki)).toEqual([200, []]);
    const users = await w.as(member).get(`/projects/${project.id}/search`, { query: { scope: "users", search: key } });
    expect(await ids(users)).toEqual([member.id]);
    expect(users.headers.get("x-total")).toBe("1");
  });

  it("finds wiki pages by content once the wiki is written, for readers of the wiki only", async () => {
    const w = await world();
    const key = word();
    const [developer, stranger] = [await w.user(), await w.user()];
    const project = await w.project({ visibility: "private", developers: [developer] });
    const created = await w.as(developer).post(`/projects/${project.id}/wikis`, { json: { title: "Runbook", content: `line one\nrestart ${key} here\n` } });
    expect(created.status).toBe(201);
    const res = await w.as(developer).get(`/projects/${project.id}/search`, { query: { scope: "wiki_blobs", search: key } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([expect.objectContaining({ path: "Runbook.md", startline: 1, data: expect.stringContaining(`restart ${key} here`) })]);
    expect((await w.as(stranger).get(`/projects/${project.id}/search`, { query: { scope: "wiki_blobs", search: key } })).status).toBe(404);
  });
});
