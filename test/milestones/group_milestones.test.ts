import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { issues, milestones, projects } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world, type World } from "../helpers/world";
import { createIssue, createMilestone, type Json, mergeFixture } from "../helpers/api";

const titles = async (res: Response) => ((await res.json()) as Json[]).map((m) => m.title);

async function groupMilestone(w: World, token: string, groupId: number, json: Json): Promise<Json> {
  const res = await w.as(token).post(`/groups/${groupId}/milestones`, { json });
  if (res.status !== 201) throw new Error(`create group milestone: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

describe("POST /groups/:id/milestones", () => {
  requiresAuthentication((w) => w.anonymous.post("/groups/1/milestones", { json: { title: "x" } }));

  it("creates a group milestone with the group's next iid (201)", async () => {
    const w = await world();
    const reporter = await w.user();
    const group = await w.group({ reporters: [reporter] });
    const first = await groupMilestone(w, reporter.token, group.id, { title: "v1", due_date: "2030-02-01", start_date: "2030-01-01" });
    expect(first).toEqual({
      id: expect.any(Number),
      iid: 1,
      group_id: group.id,
      title: "v1",
      description: null,
      state: "active",
      created_at: expect.any(String),
      updated_at: expect.any(String),
      due_date: "2030-02-01",
      start_date: "2030-01-01",
      expired: false,
      web_url: expect.stringMatching(new RegExp(`/groups/${group.fullPath}/-/milestones/1$`)),
    });
    expect((await groupMilestone(w, reporter.token, group.id, { title: "v2" })).iid).toBe(2);
  });

  it("refuses a title a project of the group uses, bad dates, guests and missing titles", async () => {
    const w = await world();
    const owner = await w.user();
    const guest = await w.user();
    const group = await w.group({ owners: [owner], guests: [guest] });
    const project = await w.project({ group });
    await createMilestone(w, owner, project, { title: "taken" });
    expect(await statusAndBody(await w.as(owner).post(`/groups/${group.id}/milestones`, { json: { title: "taken" } }))).toEqual([
      400,
      { message: 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}' },
    ]);
    expect(
      await statusAndBody(await w.as(owner).post(`/groups/${group.id}/milestones`, { json: { title: "t", start_date: "2030-02-01", due_date: "2030-01-01" } })),
    ).toEqual([400, { message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}' }]);
    expect((await w.as(guest).post(`/groups/${group.id}/milestones`, { json: { title: "x" } })).status).toBe(403);
    expect(await statusAndBody(await w.as(owner).post(`/groups/${group.id}/milestones`, { json: {} }))).toEqual([400, { error: "title is missing" }]);
  });
});

describe("GET /groups/:id/milestones", () => {
  it("lists newest first, filters by state, iids, title and search, with parents on request", async () => {
    const w = await world();
    const owner = await w.user();
    const guest = await w.user();
    const root = await w.group({ owners: [owner] });
    const group = await w.group({ parent: root, guests: [guest] });
    await groupMilestone(w, owner.token, root.id, { title: "root-m" });
    const a = await groupMilestone(w, owner.token, group.id, { title: "alpha", description: "first" });
    await groupMilestone(w, owner.token, group.id, { title: "beta" });
    await w.as(owner).put(`/groups/${group.id}/milestones/${a.id}`, { json: { state_event: "close" } });
    const list = (query: Json = {}) => w.as(guest).get(`/groups/${group.id}/milestones`, { query });
    const res = await list();
    expect(await titles(res)).toEqual(["beta", "alpha"]);
    expect(res.headers.get("x-total")).toBe("2");
    expect(await titles(await list({ state: "closed" }))).toEqual(["alpha"]);
    expect(await titles(await list({ iids: "2" }))).toEqual(["beta"]);
    expect(await titles(await list({ title: "alpha" }))).toEqual(["alpha"]);
    expect(await titles(await list({ search: "firs" }))).toEqual(["alpha"]);
    expect(await titles(await list({ include_parent_milestones: true }))).toEqual(["beta", "alpha", "root-m"]);
    expect(await statusAndBody(await list({ state: "open" }))).toEqual([400, { error: "state does not have a valid value" }]);
  });

  it("hides a private group from strangers", async () => {
    const w = await world();
    const group = await w.group();
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/milestones`))).toEqual([404, { message: "404 Group Not Found" }]);
  });
});

describe("GET /groups/:id/milestones/:milestone_id", () => {
  it("shows a group milestone; a project milestone's id is 404", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    const m = await groupMilestone(w, owner.token, group.id, { title: "g" });
    const pm = await createMilestone(w, owner, project);
    expect(((await (await w.as(owner).get(`/groups/${group.id}/milestones/${m.id}`)).json()) as Json).title).toBe("g");
    expect(await statusAndBody(await w.as(owner).get(`/groups/${group.id}/milestones/${pm.id}`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("PUT /groups/:id/milestones/:milestone_id", () => {
  it("updates and closes; 400 when nothing is sent", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const m = await groupMilestone(w, owner.token, group.id, { title: "g" });
    const res = await w.as(owner).put(`/groups/${group.id}/milestones/${m.id}`, { json: { title: "renamed", state_event: "close" } });
    expect((await res.json()) as Json).toMatchObject({ title: "renamed", state: "closed" });
    expect(await statusAndBody(await w.as(owner).put(`/groups/${group.id}/milestones/${m.id}`, { json: {} }))).toEqual([
      400,
      { error: "title, description, start_date, due_date, state_event are missing, at least one parameter must be provided" },
    ]);
  });
});

describe("DELETE /groups/:id/milestones/:milestone_id", () => {
  it("deletes the milestone; its issues lose it", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    const m = await groupMilestone(w, owner.token, group.id, { title: "g" });
    const issue = await createIssue(w, owner, project, { milestone_id: m.id });
    expect(issue.milestone.id).toBe(m.id);
    expect((await w.as(owner).delete(`/groups/${group.id}/milestones/${m.id}`)).status).toBe(204);
    const [row] = await w.db((db) => db.select().from(issues).where(eq(issues.id, issue.id)));
    expect(row.milestoneId).toBeNull();
    expect((await w.as(owner).delete(`/groups/${group.id}/milestones/${m.id}`)).status).toBe(404);
  });
});

describe("GET /groups/:id/milestones/:milestone_id/issues", () => {
  it("lists the readable issues of the milestone in the group's projects (IssueBasic)", async () => {
    const w = await world();
    const owner = await w.user();
    const guest = await w.user();
    const group = await w.group({ owners: [owner], guests: [guest] });
    const project = await w.project({ group });
    const m = await groupMilestone(w, owner.token, group.id, { title: "g" });
    const one = await createIssue(w, owner, project, { milestone_id: m.id });
    const two = await createIssue(w, owner, project, { milestone_id: m.id });
    await createIssue(w, owner, project, { milestone_id: m.id, confidential: true });
    await createIssue(w, owner, project);
    const res = await w.as(guest).get(`/groups/${group.id}/milestones/${m.id}/issues`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((i) => i.id)).toEqual([two.id, one.id]);
    expect(body[0]).toMatchObject({ iid: two.iid, project_id: project.id, milestone: { id: m.id } });
    expect(res.headers.get("x-total")).toBe("2");
  });
});

describe("GET /groups/:id/milestones/:milestone_id/merge_requests", () => {
  it("lists the merge requests of the milestone in the group's projects (MergeRequestBasic)", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    const group = await w.group({ owners: [f.owner] });
    await w.db((db) => db.update(projects).set({ namespaceId: group.id }).where(eq(projects.id, f.project.id)));
    const m = await groupMilestone(w, f.owner.token, group.id, { title: "g" });
    await w.db((db) => db.execute(sql`UPDATE merge_requests SET milestone_id = ${m.id} WHERE id = ${f.mr.id}`));
    const res = await w.as(f.owner).get(`/groups/${group.id}/milestones/${m.id}/merge_requests`);
    const body = (await res.json()) as Json[];
    expect(body.map((mr) => mr.id)).toEqual([f.mr.id]);
    expect(body[0]).toMatchObject({ iid: f.mr.iid, milestone: { id: m.id } });
  });
});

describe("GET /projects/:id/milestones/:milestone_id/issues", () => {
  it("lists the milestone's issues; 404 for another project's milestone", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const m = await createMilestone(w, owner, project);
    const issue = await createIssue(w, owner, project, { milestone_id: m.id });
    const body = (await (await w.as(owner).get(`/projects/${project.id}/milestones/${m.id}/issues`)).json()) as Json[];
    expect(body.map((i) => i.id)).toEqual([issue.id]);
    const other = await w.project({ owner });
    expect((await w.as(owner).get(`/projects/${other.id}/milestones/${m.id}/issues`)).status).toBe(404);
    expect(await statusAndBody(await w.as(owner).get(`/projects/${project.id}/milestones/${m.id}/issues`, { query: { per_page: "x" } }))).toEqual([
      400,
      { error: "per_page is invalid" },
    ]);
  });
});

describe("GET /projects/:id/milestones/:milestone_id/merge_requests", () => {
  it("lists the milestone's merge requests", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    const m = await createMilestone(w, f.owner, f.project);
    await w.as(f.owner).put(`/projects/${f.project.id}/merge_requests/${f.mr.iid}`, { json: { milestone_id: m.id } });
    const body = (await (await w.as(f.owner).get(`/projects/${f.project.id}/milestones/${m.id}/merge_requests`)).json()) as Json[];
    expect(body.map((mr) => mr.id)).toEqual([f.mr.id]);
  });
});

describe("POST /projects/:id/milestones/:milestone_id/promote", () => {
  it("promotes to a group milestone; same-titled milestones of sibling projects merge into it", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    const sibling = await w.project({ group });
    const m = await createMilestone(w, owner, project, { title: "release", due_date: "2031-01-01" });
    const twin = await createMilestone(w, owner, sibling, { title: "release" });
    const issue = await createIssue(w, owner, project, { milestone_id: m.id });
    const other = await createIssue(w, owner, sibling, { milestone_id: twin.id });
    const res = await w.as(owner).post(`/projects/${project.id}/milestones/${m.id}/promote`);
    expect(await statusAndBody(res)).toEqual([200, 200]);
    const rows = await w.db((db) => db.select().from(milestones).where(eq(milestones.title, "release")));
    const mine = rows.filter((r) => r.groupId === group.id || r.projectId === project.id || r.projectId === sibling.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ groupId: group.id, projectId: null, dueDate: "2031-01-01", iid: 1 });
    const moved = await w.db((db) => db.select().from(issues).where(eq(issues.milestoneId, mine[0].id)));
    expect(moved.map((i) => i.id).sort()).toEqual([issue.id, other.id].sort());
  });

  it("answers 403 for a personal project and for a reporter of the project only, 404 for a missing milestone", async () => {
    const w = await world();
    const owner = await w.user();
    const personal = await w.project({ owner });
    const m = await createMilestone(w, owner, personal);
    expect((await w.as(owner).post(`/projects/${personal.id}/milestones/${m.id}/promote`)).status).toBe(403);
    const reporter = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group, reporters: [reporter] });
    const gm = await createMilestone(w, owner, project);
    expect((await w.as(reporter).post(`/projects/${project.id}/milestones/${gm.id}/promote`)).status).toBe(403);
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/milestones/999999999/promote`))).toEqual([404, { message: "404 Not found" }]);
  });
});
