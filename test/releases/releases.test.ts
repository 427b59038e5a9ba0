import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { gitRefs, milestones, releaseEvidences } from "../../db/schema";
import { releasePayload } from "../../functions/shared/webhooks/payloads";
import { BASE, statusAndBody, worker } from "../helpers/client";

/** A GET that does not follow redirects (the test client's fetch would). */
const noFollow = (token: string, path: string) => worker.fetch(new Request(`${BASE}/api/v4${path}`, { headers: { "PRIVATE-TOKEN": token }, redirect: "manual" }));
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { smallRepo, tagAt } from "../helpers/git";
import { withDb } from "../helpers/db";
import { world } from "../helpers/world";

type Json = Record<string, any>;
const path = (project: { id: number }, tag = "") => `/projects/${project.id}/releases${tag ? `/${encodeURIComponent(tag)}` : ""}`;
const linksPath = (project: { id: number }, tag: string, id = "") => `${path(project, tag)}/assets/links${id ? `/${id}` : ""}`;

describe("POST /projects/:id/releases", () => {
  it("creates the tag from ref, with links, milestones and an evidence, and answers GitLab's Release", async () => {
    const w = await world();
    const { api, project, commits } = await smallRepo(w);
    await w.db((db) => db.insert(milestones).values({ projectId: project.id, iid: 1, title: "1.0" }));
    const res = await api.post(path(project), {
      json: {
        tag_name: "v1.0",
        ref: "main",
        description: "First **release**",
        milestones: ["1.0"],
        assets: { links: [{ name: "bin", url: "https://example.com/bin", direct_asset_path: "/bin/app", link_type: "package" }] },
      },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      name: "v1.0",
      tag_name: "v1.0",
      description: "First **release**",
      upcoming_release: false,
      commit: { id: commits.third },
      commit_path: `/${project.fullPath}/-/commit/${commits.third}`,
      tag_path: `/${project.fullPath}/-/tags/v1.0`,
      milestones: [{ title: "1.0", issue_stats: { total: 0, closed: 0 } }],
      assets: { count: 5, links: [{ name: "bin", url: "https://example.com/bin", link_type: "package", external: true }] },
    });
    expect(body.assets.links[0].direct_asset_url).toMatch(new RegExp(`/${project.fullPath}/-/releases/v1.0/downloads/bin/app$`));
    expect(body.assets.sources.map((s: Json) => s.format)).toEqual(["zip", "tar.gz", "tar.bz2", "tar"]);
    expect(body.evidences).toEqual([{ sha: expect.stringMatching(/^[0-9a-f]{64}$/), filepath: expect.stringContaining("/-/releases/v1.0/evidences/"), collected_at: expect.any(String) }]);
    const [tag] = await withDb((db) => db.select().from(gitRefs).where(eq(gitRefs.projectId, project.id))).then((rows) => rows.filter((r) => r.name === "refs/tags/v1.0"));
    expect(tag.target).toBe(commits.third);
    const [evidence] = await withDb((db) => db.select().from(releaseEvidences).where(eq(releaseEvidences.summarySha, body.evidences[0].sha)));
    expect(evidence.summary).toMatchObject({ release: { tag_name: "v1.0", milestones: [{ title: "1.0" }] } });
  });

  it("answers GitLab's errors: missing tag_name, no ref, duplicates, unknown milestone, bad link", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    expect(await statusAndBody(await api.post(path(project), { json: {} }))).toEqual([400, { error: "tag_name is missing" }]);
    expect(await statusAndBody(await api.post(path(project), { json: { tag_name: "v9" } }))).toEqual([422, { message: "Ref is not specified" }]);
    expect(await statusAndBody(await api.post(path(project), { json: { tag_name: "v9", ref: "nope" } }))).toEqual([400, { message: "Target nope is invalid" }]);
    expect(await statusAndBody(await api.post(path(project), { json: { tag_name: "v9", ref: "main", milestones: ["x", "y"] } }))).toEqual([400, { message: "Milestone(s) not found: x, y" }]);
    expect(await statusAndBody(await api.post(path(project), { json: { tag_name: "v9", ref: "main", assets: { links: [{ name: "a" }] } } }))).toEqual([400, { error: "assets[links][0][url] is missing" }]);
    expect(await statusAndBody(await api.post(path(project), { json: { tag_name: "v9", ref: "main", assets: { links: [{ name: "a", url: "javascript:alert(1)" }] } } }))).toEqual([
      400,
      { message: "Validation failed: Links url is blocked: Only allowed schemes are http, https, ftp" },
    ]);
    expect((await api.post(path(project), { json: { tag_name: "v9", ref: "main" } })).status).toBe(201);
    expect(await statusAndBody(await api.post(path(project), { json: { tag_name: "v9", ref: "main" } }))).toEqual([409, { message: "Release already exists" }]);
  });

  it("refuses a protected tag the developer may not create (403)", async () => {
    const w = await world();
    const dev = await w.user();
    const { api, project } = await smallRepo(w, { developers: [dev] });
    await api.post(`/projects/${project.id}/protected_tags`, { json: { name: "v*" } });
    expect(await statusAndBody(await w.as(dev).post(path(project), { json: { tag_name: "v1", ref: "main" } }))).toEqual([
      403,
      { message: "You are not allowed to create this tag as it is protected." },
    ]);
    expect((await w.as(dev).post(path(project), { json: { tag_name: "x1", ref: "main" } })).status).toBe(201);
  });
  forbidsRoles(["guest", "reporter"], (w, p, user) => w.as(user).post(path(p), { json: { tag_name: "v1", ref: "main" } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).post(path(p), { json: { tag_name: "v1", ref: "main" } }));
});

describe("GET /projects/:id/releases", () => {
  it("orders by released_at desc by default, by created_at on request, paginates in constant statements", async () => {
    const w = await world();
    const { api, project, commits } = await smallRepo(w);
    await tagAt(project, "a", commits.first);
    await tagAt(project, "b", commits.second);
    await api.post(path(project), { json: { tag_name: "a", released_at: "2024-01-01T00:00:00Z" } });
    await api.post(path(project), { json: { tag_name: "b", released_at: "2023-01-01T00:00:00Z" } });
    const list = await api.get(path(project));
    expect(((await list.json()) as Json[]).map((r) => r.tag_name)).toEqual(["a", "b"]);
    const byCreated = await api.get(path(project), { query: { order_by: "created_at", sort: "desc" } });
    expect(((await byCreated.json()) as Json[]).map((r) => r.tag_name)).toEqual(["b", "a"]);
    const one = await api.get(path(project), { query: { per_page: "1" } });
    const all = await api.get(path(project), { query: { per_page: "100" } });
    expect(one.headers.get("x-total")).toBe("2");
    expect(one.headers.get("x-query-count")).toBe(all.headers.get("x-query-count"));
    expect(Number(one.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    expect(await statusAndBody(await api.get(path(project), { query: { order_by: "name" } }))).toEqual([400, { error: "order_by does not have a valid value" }]);
  });

  it("shows guests no commit, tag path, sources or evidences", async () => {
    const w = await world();
    const guest = await w.user();
    const { api, project } = await smallRepo(w, { guests: [guest] });
    await api.post(path(project), { json: { tag_name: "v1", ref: "main" } });
    const [body] = (await (await w.as(guest).get(path(project))).json()) as Json[];
    expect(body.tag_name).toBe("v1");
    expect(body).not.toHaveProperty("commit");
    expect(body).not.toHaveProperty("evidences");
    expect(body.assets).toEqual({ count: 0, links: [] });
  });
  hidesPrivateProject((w, p) => w.as(w.stranger).get(path(p)));
});

describe("GET /projects/:id/releases/:tag_name", () => {
  it("shows one release, with description_html on request; 404 for none", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    await api.post(path(project), { json: { tag_name: "v1", ref: "main", description: "**bold**" } });
    const res = await api.get(path(project, "v1"), { query: { include_html_description: "true" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).description_html).toContain("<strong>bold</strong>");
    expect(await statusAndBody(await api.get(path(project, "v2")))).toEqual([404, { message: "404 Not Found" }]);
  });
  forbidsRoles(["guest"], (w, p, user) => w.as(user).get(path(p, "v1")));
});

describe("GET /projects/:id/releases/permalink/latest", () => {
  it("redirects to the newest release by released_at, keeping the suffix and the query", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    expect(await statusAndBody(await noFollow(api.token!, `${path(project)}/permalink/latest`))).toEqual([404, { message: "404 Not Found" }]);
    await api.post(path(project), { json: { tag_name: "new", ref: "main", released_at: "2024-05-01T00:00:00Z" } });
    await api.post(path(project), { json: { tag_name: "old", ref: "main", released_at: "2020-05-01T00:00:00Z" } });
    const res = await noFollow(api.token!, `${path(project)}/permalink/latest/assets/links?order_by=x&per_page=5`);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(new RegExp(`/api/v4/projects/${project.id}/releases/new/assets/links\\?per_page=5$`));
  });
});

describe("PUT /projects/:id/releases/:tag_name", () => {
  it("changes the fields sent and the milestones; 400 with none; 403 for a missing release", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    await w.db((db) => db.insert(milestones).values({ projectId: project.id, iid: 1, title: "m1" }));
    await api.post(path(project), { json: { tag_name: "v1", ref: "main", name: "One", milestones: ["m1"] } });
    const res = await api.put(path(project, "v1"), { json: { description: "new", milestones: [] } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ name: "One", description: "new" });
    expect(body).not.toHaveProperty("milestones");
    expect(await statusAndBody(await api.put(path(project, "v1"), { json: {} }))).toEqual([400, { message: "params is empty" }]);
    expect(await statusAndBody(await api.put(path(project, "none"), { json: { name: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });
  forbidsRoles(["reporter"], (w, p, user) => w.as(user).put(path(p, "v1"), { json: { name: "x" } }));
});

describe("DELETE /projects/:id/releases/:tag_name", () => {
  it("answers 200 with the release and keeps the tag", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    await api.post(path(project), { json: { tag_name: "v1", ref: "main" } });
    const res = await api.delete(path(project, "v1"));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).tag_name).toBe("v1");
    expect(await statusAndBody(await api.get(path(project, "v1")))).toEqual([404, { message: "404 Not Found" }]);
    expect((await api.get(`/projects/${project.id}/repository/tags/v1`)).status).toBe(200);
  });
});

describe("/projects/:id/releases/:tag_name/assets/links", () => {
  it("creates, lists, shows, updates and deletes links; downloads redirect", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    await api.post(path(project), { json: { tag_name: "v1", ref: "main" } });
    const created = await api.post(linksPath(project, "v1"), { json: { name: "doc", url: "https://example.com/doc", filepath: "/docs/doc.pdf" } });
    expect(created.status).toBe(201);
    const link = (await created.json()) as Json;
    expect(link).toMatchObject({ name: "doc", url: "https://example.com/doc", link_type: "other", external: true });
    expect(await statusAndBody(await api.post(linksPath(project, "v1"), { json: { name: "doc", url: "https://example.com/other" } }))).toEqual([
      400,
      { message: { name: ["has already been taken"] } },
    ]);
    expect(((await (await api.get(linksPath(project, "v1"))).json()) as Json[]).map((l) => l.name)).toEqual(["doc"]);
    const download = await noFollow(api.token!, `${path(project, "v1")}/downloads/docs/doc.pdf`);
    expect([download.status, download.headers.get("location")]).toEqual([302, "https://example.com/doc"]);
    expect(await statusAndBody(await noFollow(api.token!, `${path(project, "v1")}/downloads/nothing`))).toEqual([404, { message: "404 Not found" }]);
    const updated = await api.put(linksPath(project, "v1", String(link.id)), { json: { name: "manual", link_type: "runbook" } });
    expect(await statusAndBody(updated)).toEqual([200, expect.objectContaining({ name: "manual", link_type: "runbook" })]);
    expect(await statusAndBody(await api.put(linksPath(project, "v1", String(link.id)), { json: { link_type: "image" } }))).toEqual([
      400,
      { error: "name, url are missing, at least one parameter must be provided" },
    ]);
    expect((await api.delete(linksPath(project, "v1", String(link.id)))).status).toBe(200);
    expect(await statusAndBody(await api.get(linksPath(project, "v1", String(link.id))))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("GET /groups/:id/releases", () => {
  it("lists releases of the group's projects the caller reads", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group, owner });
    const api = w.as(owner);
    await api.post(`/projects/${project.id}/repository/commits`, { json: { branch: "main", commit_message: "x", actions: [{ action: "create", file_path: "a", content: "a" }] } });
    await api.post(path(project), { json: { tag_name: "g1", ref: "main" } });
    const res = await api.get(`/groups/${group.id}/releases`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json[]).map((r) => r.tag_name)).toEqual(["g1"]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/releases`))).toEqual([404, { message: "404 Group Not Found" }]);
  });
});

describe("release hook payload", () => {
  it("builds Gitlab::DataBuilder::Release", () => {
    const project = { id: 3, name: "p", description: null, fullPath: "g/p", avatarUrl: null, namespaceName: "g", visibilityLevel: 0, defaultBranch: "main" } as never;
    const payload = releasePayload(
      { id: 1, tag: "v1", name: "v1", description: "d", sha: null, createdAt: "2024-01-01T00:00:00.000Z", releasedAt: "2024-01-02T00:00:00.000Z", links: [{ id: 2, name: "l", url: "http://h/g/p/x", linkType: "other" }] },
      project,
      { baseUrl: "http://h", actor: null, now: new Date() },
      "create",
      null,
    );
    expect(payload).toMatchObject({
      object_kind: "release",
      action: "create",
      tag: "v1",
      released_at: "2024-01-02 00:00:00 UTC",
      url: "http://h/g/p/-/releases/v1",
      assets: { count: 5, links: [{ id: 2, external: false, link_type: "other", name: "l", url: "http://h/g/p/x" }] },
    });
  });
});
