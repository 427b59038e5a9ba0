import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { gitRefs, projects, pushEvents } from "../../db/schema";
import { decodeUtf8 } from "../../functions/shared/git/pure/bytes";
import { readObjects } from "../../functions/shared/git";
import { versionCompare } from "../../functions/tags/versioncmp";
import { BASE, statusAndBody } from "../helpers/client";
import { followPages, forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { smallRepo, tagAt } from "../helpers/git";
import { withDb } from "../helpers/db";
import { type Json } from "../helpers/api";

const tagsPath = (project: { id: number }) => `/projects/${project.id}/repository/tags`;

async function tagRefs(project: { id: number }) {
  return withDb(async (db) =>
    (await db.select({ name: gitRefs.name, target: gitRefs.target, peeled: gitRefs.peeled }).from(gitRefs).where(eq(gitRefs.projectId, project.id)))
      .filter((r) => r.name.startsWith("refs/tags/"))
      .sort((a, b) => (a.name < b.name ? -1 : 1)),
  );
}

/**
 * smallRepo plus tags: v1.10 (lightweight, third commit), v1.9 (annotated, second, tagged 2024-02-01),
 * v1.2 (lightweight, first), beta (annotated, first, tagged 2023-12-01).
 */
async function taggedRepo(w: Awaited<ReturnType<typeof world>>, opts: Parameters<typeof smallRepo>[1] = {}) {
  const repo = await smallRepo(w, opts);
  const { first, second, third } = repo.commits;
  await tagAt(repo.project, "v1.10", third);
  await tagAt(repo.project, "v1.9", second, "Version 1.9\n\nNotes.", new Date("2024-02-01T00:00:00Z"));
  await tagAt(repo.project, "v1.2", first);
  await tagAt(repo.project, "beta", first, "Beta", new Date("2023-12-01T00:00:00Z"));
  return repo;
}

describe("GET /projects/:id/repository/tags", () => {
  it("lists tags by update time, newest first, with GitLab's Tag entity", async () => {
    const w = await world();
    const { project, api, commits } = await taggedRepo(w);
    const res = await api.get(tagsPath(project));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    // Annotated tags sort by their tagger date (git's creatordate), lightweight ones by the commit's.
    expect(body.map((t) => t.name)).toEqual(["v1.9", "v1.10", "v1.2", "beta"]);
    const refs = await tagRefs(project);
    const v19 = refs.find((r) => r.name === "refs/tags/v1.9")!;
    expect(body[0]).toEqual({
      name: "v1.9",
      message: "Version 1.9\n\nNotes.",
      target: v19.target,
      commit: expect.objectContaining({ id: commits.second, title: "Add docs", web_url: `${BASE}/${project.fullPath}/-/commit/${commits.second}` }),
      release: null,
      protected: false,
    });
    expect(v19.target).not.toBe(commits.second);
    expect(body[1]).toMatchObject({ name: "v1.10", message: "", target: commits.third, commit: { id: commits.third } });
  });

  it("orders by name or version, either way, and filters with search", async () => {
    const w = await world();
    const { project, api } = await taggedRepo(w);
    const names = async (query: Record<string, string>) => ((await (await api.get(tagsPath(project), { query })).json()) as Json[]).map((t) => t.name);
    expect(await names({ order_by: "name", sort: "asc" })).toEqual(["beta", "v1.10", "v1.2", "v1.9"]);
    expect(await names({ order_by: "name" })).toEqual(["v1.9", "v1.2", "v1.10", "beta"]);
    expect(await names({ order_by: "version", sort: "asc" })).toEqual(["beta", "v1.2", "v1.9", "v1.10"]);
    expect(await names({ order_by: "version", sort: "desc" })).toEqual(["v1.10", "v1.9", "v1.2", "beta"]);
    expect(await names({ order_by: "updated", sort: "asc" })).toEqual(["beta", "v1.2", "v1.10", "v1.9"]);
    expect(await names({ search: "V1.1" })).toEqual(["v1.10"]);
    expect(await names({ search: "^v", order_by: "name", sort: "asc" })).toEqual(["v1.10", "v1.2", "v1.9"]);
    expect(await names({ search: "a$" })).toEqual(["beta"]);
    expect(await statusAndBody(await api.get(tagsPath(project), { query: { order_by: "size" } }))).toEqual([400, { error: "order_by does not have a valid value" }]);
    expect(await statusAndBody(await api.get(tagsPath(project), { query: { sort: "up" } }))).toEqual([400, { error: "sort does not have a valid value" }]);
  });

  it("paginates with offset headers and a constant number of statements", async () => {
    const w = await world();
    const { project, api } = await taggedRepo(w);
    const res = await api.get(tagsPath(project), { query: { per_page: 3 } });
    expect(((await res.json()) as Json[]).length).toBe(3);
    expect([res.headers.get("x-total"), res.headers.get("x-total-pages"), res.headers.get("x-next-page")]).toEqual(["4", "2", "2"]);
    const all = await followPages(w, await api.get(tagsPath(project), { query: { per_page: 1, order_by: "name" } }), api.token);
    expect(all.map((t) => (t as Json).name)).toEqual(["v1.9", "v1.2", "v1.10", "beta"]);
    for (const order_by of ["updated", "name"]) {
      const one = await api.get(tagsPath(project), { query: { per_page: 1, order_by } });
      const hundred = await api.get(tagsPath(project), { query: { per_page: 100, order_by } });
      expect(one.headers.get("x-query-count")).toBe(hundred.headers.get("x-query-count"));
      expect(Number(hundred.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    }
  });

  it("is readable anonymously on a public project", async () => {
    const w = await world();
    const { project } = await taggedRepo(w, { visibility: "public" });
    const res = await w.anonymous.get(tagsPath(project));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json[]).length).toBe(4);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(tagsPath(project)));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(tagsPath(project)));
});

describe("GET /projects/:id/repository/tags/:tag_name", () => {
  it("finds a tag, annotated or lightweight", async () => {
    const w = await world();
    const reporter = await w.user();
    const { project, commits } = await taggedRepo(w, { reporters: [reporter] });
    const api = w.as(reporter);
    const res = await api.get(`${tagsPath(project)}/v1.9`);
    expect(await res.json()).toMatchObject({ name: "v1.9", message: "Version 1.9\n\nNotes.", commit: { id: commits.second }, release: null, protected: false });
    expect(Number(res.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    expect(await (await api.get(`${tagsPath(project)}/v1.2`)).json()).toMatchObject({ name: "v1.2", message: "", target: commits.first });
    expect(await statusAndBody(await api.get(`${tagsPath(project)}/v2`))).toEqual([404, { message: "404 Tag Not Found" }]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(`${tagsPath(project)}/v1`));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(`${tagsPath(project)}/v1`));
});

describe("POST /projects/:id/repository/tags", () => {
  it("creates a lightweight tag, and an annotated one when a message is given", async () => {
    const w = await world();
    const developer = await w.user();
    const { project, commits } = await smallRepo(w, { developers: [developer] });
    const api = w.as(developer);
    const light = await api.post(tagsPath(project), { json: { tag_name: "v1.0.0", ref: "main" } });
    expect(light.status).toBe(201);
    expect(await light.json()).toEqual({
      name: "v1.0.0",
      message: "",
      target: commits.third,
      commit: expect.objectContaining({ id: commits.third }),
      release: null,
      protected: false,
    });
    const annotated = await api.post(tagsPath(project), { query: { tag_name: "release/2", ref: commits.first, message: "  Release 2\n" } });
    const body = (await annotated.json()) as Json;
    expect(annotated.status).toBe(201);
    expect(body).toMatchObject({ name: "release/2", message: "Release 2", commit: { id: commits.first } });
    expect(body.target).not.toBe(commits.first);
    // The tag object, as git writes it, with the caller as tagger.
    const object = (await withDb((db) => readObjects(db, project.id, [body.target]))).get(body.target)!;
    expect(object.type).toBe("tag");
    expect(decodeUtf8(object.body)).toMatch(
      new RegExp(`^object ${commits.first}\ntype commit\ntag release/2\ntagger ${developer.name} <${developer.email}> \\d+ \\+0000\n\nRelease 2$`),
    );
    expect(await tagRefs(project)).toEqual([
      { name: "refs/tags/release/2", target: body.target, peeled: commits.first },
      { name: "refs/tags/v1.0.0", target: commits.third, peeled: null },
    ]);
    const events = await withDb((db) => db.select().from(pushEvents).where(and(eq(pushEvents.projectId, project.id), eq(pushEvents.ref, "refs/tags/v1.0.0"))));
    expect(events).toMatchObject([{ before: "0".repeat(40), after: commits.third, userId: developer.id }]);
    // Found by encoded name afterwards.
    expect(await (await api.get(`${tagsPath(project)}/release%2F2`)).json()).toMatchObject({ name: "release/2", message: "Release 2" });
  });

  it("answers GitLab's errors: parameters, invalid name, unknown target, existing tag", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const post = async (json: Json) => statusAndBody(await api.post(tagsPath(project), { json }));
    expect(await post({})).toEqual([400, { error: "tag_name is missing, ref is missing" }]);
    expect(await post({ tag_name: "v 1", ref: "main" })).toEqual([400, { message: "Tag name invalid" }]);
    expect(await post({ tag_name: "v1", ref: "nope" })).toEqual([400, { message: "Target nope is invalid" }]);
    expect((await api.post(tagsPath(project), { json: { tag_name: "v1", ref: "main" } })).status).toBe(201);
    expect(await post({ tag_name: "v1", ref: "main", message: "again" })).toEqual([400, { message: "Tag v1 already exists" }]);
    expect(await post({ tag_name: "v1", ref: "nope" })).toEqual([400, { message: "Target nope is invalid" }]);
  });

  requiresAuthentication((w) => w.anonymous.post("/projects/1/repository/tags", { json: { tag_name: "v1", ref: "main" } }));
  hidesPrivateProject((w, project) => w.as(w.stranger).post(tagsPath(project), { json: { tag_name: "v1", ref: "main" } }));
  forbidsRoles(["guest", "reporter"], (w, project, user) => w.as(user).post(tagsPath(project), { json: { tag_name: "v1", ref: "main" } }));

  it("refuses writes on an archived project (403)", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    await w.db((db) => db.update(projects).set({ archived: true }).where(eq(projects.id, project.id)));
    expect(await statusAndBody(await api.post(tagsPath(project), { json: { tag_name: "v1", ref: "main" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("DELETE /projects/:id/repository/tags/:tag_name", () => {
  it("deletes a tag (204) with its push event", async () => {
    const w = await world();
    const developer = await w.user();
    const { project } = await taggedRepo(w, { developers: [developer] });
    const before = (await tagRefs(project)).find((r) => r.name === "refs/tags/v1.9")!;
    const res = await w.as(developer).delete(`${tagsPath(project)}/v1.9`);
    expect([res.status, await res.text()]).toEqual([204, ""]);
    expect((await tagRefs(project)).map((r) => r.name)).toEqual(["refs/tags/beta", "refs/tags/v1.10", "refs/tags/v1.2"]);
    const events = await withDb((db) => db.select().from(pushEvents).where(and(eq(pushEvents.projectId, project.id), eq(pushEvents.ref, "refs/tags/v1.9"))).orderBy(pushEvents.id));
    expect(events.map((e) => [e.before, e.after])).toEqual([
      ["0".repeat(40), before.target],
      [before.target, "0".repeat(40)],
    ]);
  });

  it("answers 404 Tag Not Found and 412 for a stale If-Unmodified-Since", async () => {
    const w = await world();
    const { project, api } = await taggedRepo(w);
    expect(await statusAndBody(await api.delete(`${tagsPath(project)}/v9`))).toEqual([404, { message: "404 Tag Not Found" }]);
    // v1.9 points at the second commit, authored 2024-01-02T10:00:00Z.
    const stale = await api.delete(`${tagsPath(project)}/v1.9`, { headers: { "If-Unmodified-Since": "Mon, 01 Jan 2024 00:00:00 GMT" } });
    expect(await statusAndBody(stale)).toEqual([412, { message: "412 Precondition Failed" }]);
  });

  requiresAuthentication((w) => w.anonymous.delete("/projects/1/repository/tags/v1"));
  hidesPrivateProject((w, project) => w.as(w.stranger).delete(`${tagsPath(project)}/v1`));
  forbidsRoles(["guest", "reporter"], (w, project, user) => w.as(user).delete(`${tagsPath(project)}/v1`));
});

describe("versionCompare (git's versioncmp)", () => {
  it("orders like `git tag --sort=version:refname`", () => {
    const sorted = ["v1.10", "v1.2", "v1.9", "v1.0.0", "v1.0", "v10", "v2", "1.01", "1.1", "1.001", "a", "v1.2rc1"].sort(versionCompare);
    expect(sorted).toEqual(["1.001", "1.01", "1.1", "a", "v1.0", "v1.0.0", "v1.2", "v1.2rc1", "v1.9", "v1.10", "v2", "v10"]);
  });
});
