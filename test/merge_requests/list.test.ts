import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { followPages, hidesPrivateProject } from "../helpers/shared";
import { unique, world } from "../helpers/world";
import { createMergeRequest, queryCount, type Json } from "../helpers/api";
import { rows } from "../helpers/db";

const iids = async (res: Response) => ((await res.json()) as Json[]).map((m) => m.iid as number);

describe("GET /projects/:id/merge_requests", () => {
  it("lists newest first with the basic entity and pagination headers", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    for (let i = 0; i < 3; i++) await createMergeRequest(w, dev, project, { title: `MR ${i}` });
    const res = await w.as(dev).get(`/projects/${project.id}/merge_requests`, { query: { per_page: 2 } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("3");
    expect(res.headers.get("x-next-page")).toBe("2");
    const body = (await res.json()) as Json[];
    expect(body.map((m) => m.iid)).toEqual([3, 2]);
    expect(body[0]).not.toHaveProperty("user");
    expect(body[0]).not.toHaveProperty("subscribed");
    expect(body[0]).toMatchObject({ title: "MR 2", state: "opened", references: { relative: "!3" } });
    const all = await followPages(w, await w.as(dev).get(`/projects/${project.id}/merge_requests`, { query: { per_page: 1 } }), dev.token);
    expect(all.map((m: any) => m.iid)).toEqual([3, 2, 1]);
  });

  it("filters by state, labels, milestone, assignee, author, reviewer, search, branches, iids, wip and not", async () => {
    const w = await world();
    const dev = await w.user();
    const other = await w.user();
    const project = await w.project({ developers: [dev, other] });
    const [ms] = await rows(w, sql`INSERT INTO milestones (iid, project_id, title) VALUES (1, ${project.id}, 'v1') RETURNING id`);
    const a = await createMergeRequest(w, dev, project, { title: "Alpha widget", labels: "bug,ui", assignee_ids: [other.id], milestone_id: ms.id });
    const b = await createMergeRequest(w, other, project, { title: "Draft: beta", labels: "bug", reviewer_ids: [dev.id], target_branch: "develop" });
    const c = await createMergeRequest(w, dev, project, { title: "Gamma", description: "widget inside" });
    await w.as(dev).put(`/projects/${project.id}/merge_requests/${c.iid}`, { json: { state_event: "close" } });
    const list = (query: Record<string, any>) => w.as(dev).get(`/projects/${project.id}/merge_requests`, { query }).then(iids);
    expect(await list({ state: "closed" })).toEqual([c.iid]);
    expect(await list({ state: "opened" })).toEqual([b.iid, a.iid]);
    expect(await list({ labels: "bug,ui" })).toEqual([a.iid]);
    expect(await list({ labels: "None" })).toEqual([c.iid]);
    expect(await list({ labels: "Any" })).toEqual([b.iid, a.iid]);
    expect(await list({ milestone: "v1" })).toEqual([a.iid]);
    expect(await list({ milestone: "None" })).toEqual([c.iid, b.iid]);
    expect(await list({ assignee_id: other.id })).toEqual([a.iid]);
    expect(await list({ assignee_id: "None" })).toEqual([c.iid, b.iid]);
    expect(await list({ assignee_username: other.username })).toEqual([a.iid]);
    expect(await list({ reviewer_id: dev.id })).toEqual([b.iid]);
    expect(await list({ reviewer_username: "none" })).toEqual([c.iid, a.iid]);
    expect(await list({ author_id: other.id })).toEqual([b.iid]);
    expect(await list({ author_username: dev.username })).toEqual([c.iid, a.iid]);
    expect(await list({ search: "widget" })).toEqual([c.iid, a.iid]);
    expect(await list({ search: "widget", in: "title" })).toEqual([a.iid]);
    expect(await list({ target_branch: "develop" })).toEqual([b.iid]);
    expect(await list({ source_branch: a.source_branch })).toEqual([a.iid]);
    expect(await list({ "iids[]": [a.iid, c.iid] })).toEqual([c.iid, a.iid]);
    expect(await list({ wip: "yes" })).toEqual([b.iid]);
    expect(await list({ wip: "no" })).toEqual([c.iid, a.iid]);
    expect(await list({ "not[labels]": "ui" })).toEqual([c.iid, b.iid]);
    expect(await list({ "not[author_id]": dev.id })).toEqual([b.iid]);
    expect(await list({ order_by: "title", sort: "asc" })).toEqual([a.iid, b.iid, c.iid]);
    expect(await list({ environment: "production" })).toEqual([]);
    const simple = (await (await w.as(dev).get(`/projects/${project.id}/merge_requests`, { query: { view: "simple", "iids[]": a.iid } })).json()) as Json[];
    expect(Object.keys(simple[0])).toEqual(["id", "iid", "project_id", "title", "description", "state", "created_at", "updated_at", "web_url"]);
    const detailed = (await (await w.as(dev).get(`/projects/${project.id}/merge_requests`, { query: { with_labels_details: true, "iids[]": b.iid } })).json()) as Json[];
    expect(detailed[0].labels).toEqual([
      { id: expect.any(Number), name: "bug", color: "#6699cc", description: null, description_html: null, text_color: "#FFFFFF", remove_on_close: false },
    ]);
  });

  it("renders the labels' description_html with_labels_details through the Markdown renderer", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    await w.issue(project, { title: "Target" });
    await createMergeRequest(w, dev, project, { labels: "bug" });
    await rows(w, sql`UPDATE labels SET description = ${":tada: fixes #1"} WHERE project_id = ${project.id} AND title = 'bug'`);
    const [mr] = (await (await w.as(dev).get(`/projects/${project.id}/merge_requests`, { query: { with_labels_details: true } })).json()) as Json[];
    expect(mr.labels[0].description_html).toMatch(/^<gl-emoji title="party popper" data-name="tada">🎉<\/gl-emoji> fixes <a href="[^"]+\/-\/issues\/1" [^>]*title="Target" class="gfm gfm-issue">#1<\/a>$/);
  });

  it("answers 400 for bad filters", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const get = (query: Record<string, any>) => w.as(dev).get(`/projects/${project.id}/merge_requests`, { query }).then(statusAndBody);
    expect(await get({ state: "nope" })).toEqual([400, { error: "state does not have a valid value" }]);
    expect(await get({ assignee_id: "someone" })).toEqual([400, { error: "assignee_id should be an integer, none or any" }]);
    expect(await get({ author_id: 1, author_username: "x" })).toEqual([400, { error: "author_id, author_username are mutually exclusive" }]);
    expect(await get({ order_by: "weight" })).toEqual([400, { error: "order_by does not have a valid value" }]);
  });

  it("keeps the statement count flat across page sizes", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    for (let i = 0; i < 3; i++) await createMergeRequest(w, dev, project, { labels: "x", assignee_ids: [dev.id] });
    const one = await w.as(dev).get(`/projects/${project.id}/merge_requests`, { query: { per_page: 1 } });
    const hundred = await w.as(dev).get(`/projects/${project.id}/merge_requests`, { query: { per_page: 100 } });
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
  });

  it("answers 403 when merge requests are disabled, and lets anyone read a public project's", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ visibility: "public", developers: [dev] });
    await createMergeRequest(w, dev, project);
    expect(await w.anonymous.get(`/projects/${project.id}/merge_requests`).then(iids)).toEqual([1]);
    await rows(w, sql`UPDATE projects SET merge_requests_enabled = false WHERE id = ${project.id}`);
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/merge_requests`))).toEqual([403, { message: "403 Forbidden" }]);
  });

  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/merge_requests`));
});

describe("GET /merge_requests", () => {
  it("lists the caller's merge requests by default and every readable one with scope=all", async () => {
    const w = await world();
    const dev = await w.user();
    const other = await w.user();
    const title = unique("global");
    const mine = await w.project({ developers: [dev, other] });
    const hidden = await w.project({ developers: [other] });
    const a = await createMergeRequest(w, dev, mine, { title });
    const b = await createMergeRequest(w, other, mine, { title, assignee_ids: [dev.id] });
    await createMergeRequest(w, other, hidden, { title });
    const list = (query: Record<string, any>) => w.as(dev).get(`/merge_requests`, { query: { search: title, ...query } }).then((r) => r.json() as Promise<Json[]>);
    expect((await list({})).map((m) => m.id)).toEqual([a.id]);
    expect((await list({ scope: "assigned_to_me" })).map((m) => m.id)).toEqual([b.id]);
    expect((await list({ scope: "all" })).map((m) => m.id)).toEqual([b.id, a.id]);
    // An id past the integer column matches nothing (as Rails makes it), not a 500 from Postgres.
    for (const key of ["assignee_id", "reviewer_id"]) {
      const res = await w.as(dev).get(`/merge_requests`, { query: { search: title, scope: "all", [key]: "99999999999" } });
      expect([res.status, await res.json()]).toEqual([200, []]);
    }
    // Without a project or group to be relative to, `relative` is the short reference (to_reference(nil)).
    expect((await list({ scope: "all" }))[0].references).toEqual({ short: "!2", relative: "!2", full: `${mine.fullPath}!2` });
  });

  it("answers 401 without credentials unless scope=all", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get(`/merge_requests`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect((await w.anonymous.get(`/merge_requests`, { query: { scope: "all", search: unique("none") } })).status).toBe(200);
  });
});

describe("GET /groups/:id/merge_requests", () => {
  it("lists merge requests of the group's projects and subgroups, skipping archived projects", async () => {
    const w = await world();
    const dev = await w.user();
    const group = await w.group({ developers: [dev] });
    const sub = await w.group({ parent: group });
    const top = await w.project({ group });
    const nested = await w.project({ group: sub });
    const archived = await w.project({ group, archived: false });
    const a = await createMergeRequest(w, dev, top);
    const b = await createMergeRequest(w, dev, nested);
    await createMergeRequest(w, dev, archived);
    await rows(w, sql`UPDATE projects SET archived = true WHERE id = ${archived.id}`);
    const res = await w.as(dev).get(`/groups/${group.id}/merge_requests`);
    const body = (await res.json()) as Json[];
    expect(body.map((m) => m.id)).toEqual([b.id, a.id]);
    expect(body.map((m) => m.references.relative)).toEqual([`${nested.fullPath}!1`, `${top.path}!1`]);
    const withArchived = (await (await w.as(dev).get(`/groups/${group.id}/merge_requests`, { query: { non_archived: false } })).json()) as Json[];
    expect(withArchived).toHaveLength(3);
  });

  it("answers 404 for a private group of strangers", async () => {
    const w = await world();
    const group = await w.group({ visibility: "private" });
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/merge_requests`))).toEqual([404, { message: "404 Group Not Found" }]);
  });
});
