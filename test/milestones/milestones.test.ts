import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { issues, milestones, resourceMilestoneEvents } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { createIssue, createMilestone, queryCount, team, token, type Json } from "../helpers/api";

const titles = async (res: Response) => ((await res.json()) as Json[]).map((m) => m.title);

describe("GET /projects/:id/milestones", () => {
  it("lists by due date (no date last), then title, with the milestone entity", async () => {
    const w = await world();
    const t = await team(w);
    await createMilestone(w, t.owner, t.project, { title: "b-undated" });
    await createMilestone(w, t.owner, t.project, { title: "a-undated" });
    const late = await createMilestone(w, t.owner, t.project, { title: "late", due_date: "2031-01-01", start_date: "2030-12-01", description: "d" });
    await createMilestone(w, t.owner, t.project, { title: "early", due_date: "2020-01-01" });
    const res = await w.as(t.guest).get(`/projects/${t.project.id}/milestones`);
    expect(await titles(res)).toEqual(["early", "late", "a-undated", "b-undated"]);
    expect(res.headers.get("x-total")).toBe("4");
    expect(late).toEqual({
      id: expect.any(Number),
      iid: 3,
      project_id: t.project.id,
      title: "late",
      description: "d",
      state: "active",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updated_at: expect.any(String),
      due_date: "2031-01-01",
      start_date: "2030-12-01",
      expired: false,
      web_url: `http://edgeforge.test/${t.project.fullPath}/-/milestones/3`,
    });
    const body = (await (await w.as(t.guest).get(`/projects/${t.project.id}/milestones`)).json()) as Json[];
    expect(body[0]).toMatchObject({ title: "early", expired: true });
    expect(body[2]).toMatchObject({ expired: null, due_date: null });
  });

  it("filters by state, title, search and iids", async () => {
    const w = await world();
    const t = await team(w);
    const word = token();
    const one = await createMilestone(w, t.owner, t.project, { title: `Release ${word}` });
    const two = await createMilestone(w, t.owner, t.project, { title: "Other", description: `mentions ${word}` });
    await w.as(t.owner).put(`/projects/${t.project.id}/milestones/${two.id}`, { json: { state_event: "close" } });
    const get = (query: Json) => w.as(t.guest).get(`/projects/${t.project.id}/milestones`, { query });
    expect(await titles(await get({ state: "closed" }))).toEqual(["Other"]);
    expect(await titles(await get({ state: "active" }))).toEqual([`Release ${word}`]);
    expect(await titles(await get({ title: "Other" }))).toEqual(["Other"]);
    expect(await titles(await get({ search: word }))).toEqual(["Other", `Release ${word}`]);
    expect(await titles(await get({ "iids[]": [one.iid] }))).toEqual([`Release ${word}`]);
    expect(await statusAndBody(await get({ state: "open" }))).toEqual([400, { error: "state does not have a valid value" }]);
  });

  it("paginates with a flat statement count", async () => {
    const w = await world();
    const t = await team(w);
    for (let i = 0; i < 3; i++) await createMilestone(w, t.owner, t.project);
    const one = await w.as(t.owner).get(`/projects/${t.project.id}/milestones`, { query: { per_page: 1 } });
    expect(one.headers.get("x-total")).toBe("3");
    expect((await one.json()) as Json[]).toHaveLength(1);
    const hundred = await w.as(t.owner).get(`/projects/${t.project.id}/milestones`, { query: { per_page: 100 } });
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
  });

  requiresAuthentication(async (w) => w.anonymous.get(`/projects/${(await w.project({ visibility: "public" })).id}/milestones`));
  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/milestones`));
});

describe("GET /projects/:id/milestones/:milestone_id", () => {
  it("returns the milestone by its global id", async () => {
    const w = await world();
    const t = await team(w);
    const m = await createMilestone(w, t.owner, t.project, { title: "one" });
    const res = await w.as(t.guest).get(`/projects/${t.project.id}/milestones/${m.id}`);
    expect(await statusAndBody(res)).toEqual([200, m]);
  });

  it("answers 404 Not found for another project's milestone and 400 for a non-integer id", async () => {
    const w = await world();
    const t = await team(w);
    const other = await team(w);
    const m = await createMilestone(w, other.owner, other.project);
    expect(await statusAndBody(await w.as(t.owner).get(`/projects/${t.project.id}/milestones/${m.id}`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(t.owner).get(`/projects/${t.project.id}/milestones/abc`))).toEqual([400, { error: "milestone_id is invalid" }]);
  });
});

describe("POST /projects/:id/milestones", () => {
  it("creates a milestone with the next iid", async () => {
    const w = await world();
    const t = await team(w);
    await createMilestone(w, t.owner, t.project);
    const res = await w.as(t.reporter).post(`/projects/${t.project.id}/milestones`, {
      json: { title: "v2", description: "second", due_date: "2030-06-30", start_date: "2030-06-01" },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ iid: 2, title: "v2", description: "second", state: "active", due_date: "2030-06-30", start_date: "2030-06-01" });
    const [row] = await w.db((db) => db.select().from(milestones).where(eq(milestones.id, body.id)));
    expect(row).toMatchObject({ projectId: t.project.id, iid: 2, title: "v2", dueDate: "2030-06-30" });
  });

  it("answers 400 with GitLab's messages", async () => {
    const w = await world();
    const t = await team(w);
    await createMilestone(w, t.owner, t.project, { title: "taken" });
    const post = (json: Json) => w.as(t.owner).post(`/projects/${t.project.id}/milestones`, { json });
    expect(await statusAndBody(await post({}))).toEqual([400, { error: "title is missing" }]);
    expect(await statusAndBody(await post({ title: "taken" }))).toEqual([
      400,
      { message: 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}' },
    ]);
    expect(await statusAndBody(await post({ title: " " }))).toEqual([400, { message: `Failed to create milestone {:title=>["can't be blank"]}` }]);
    expect(await statusAndBody(await post({ title: "dates", start_date: "2030-02-01", due_date: "2030-01-01" }))).toEqual([
      400,
      { message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}' },
    ]);
  });

  forbidsRoles(["guest"], (w, p, u) => w.as(u).post(`/projects/${p.id}/milestones`, { json: { title: "x" } }));
  requiresAuthentication((w) => w.anonymous.post(`/projects/1/milestones`, { json: { title: "x" } }));
});

describe("PUT /projects/:id/milestones/:milestone_id", () => {
  it("updates attributes, closes and activates", async () => {
    const w = await world();
    const t = await team(w);
    const m = await createMilestone(w, t.owner, t.project, { title: "before", due_date: "2030-01-01" });
    const res = await w.as(t.reporter).put(`/projects/${t.project.id}/milestones/${m.id}`, {
      json: { title: "after", due_date: null, state_event: "close" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: m.id, title: "after", due_date: null, state: "closed" });
    const back = await w.as(t.reporter).put(`/projects/${t.project.id}/milestones/${m.id}`, { json: { state_event: "activate" } });
    expect(await back.json()).toMatchObject({ state: "active", title: "after" });
    const [row] = await w.db((db) => db.select().from(milestones).where(eq(milestones.id, m.id)));
    expect(row).toMatchObject({ title: "after", dueDate: null, state: "active" });
  });

  it("answers 400 for nothing to update, a bad state_event or a taken title, 404 for a missing milestone", async () => {
    const w = await world();
    const t = await team(w);
    const m = await createMilestone(w, t.owner, t.project, { title: "mine" });
    await createMilestone(w, t.owner, t.project, { title: "theirs" });
    const put = (id: number, json: Json) => w.as(t.owner).put(`/projects/${t.project.id}/milestones/${id}`, { json });
    expect(await statusAndBody(await put(m.id, {}))).toEqual([
      400,
      { error: "title, description, start_date, due_date, state_event are missing, at least one parameter must be provided" },
    ]);
    expect(await statusAndBody(await put(m.id, { state_event: "open" }))).toEqual([400, { error: "state_event does not have a valid value" }]);
    expect(await statusAndBody(await put(m.id, { title: "theirs" }))).toEqual([
      400,
      { message: 'Failed to update milestone {:title=>["already being used for another group or project milestone."]}' },
    ]);
    expect(await statusAndBody(await put(m.id + 1000, { title: "x" }))).toEqual([404, { message: "404 Not found" }]);
  });

  forbidsRoles(["guest"], (w, p, u) => w.as(u).put(`/projects/${p.id}/milestones/1`, { json: { title: "x" } }));
});

describe("DELETE /projects/:id/milestones/:milestone_id", () => {
  it("deletes the milestone, detaches its issues and drops its events", async () => {
    const w = await world();
    const t = await team(w);
    const m = await createMilestone(w, t.owner, t.project);
    const issue = await createIssue(w, t.owner, t.project, { milestone_id: m.id });
    expect(await statusAndBody(await w.as(t.reporter).delete(`/projects/${t.project.id}/milestones/${m.id}`))).toEqual([204, ""]);
    expect(await w.db((db) => db.select().from(milestones).where(eq(milestones.id, m.id)))).toEqual([]);
    const [row] = await w.db((db) => db.select().from(issues).where(eq(issues.id, issue.id)));
    expect(row.milestoneId).toBeNull();
    expect(await w.db((db) => db.select().from(resourceMilestoneEvents).where(eq(resourceMilestoneEvents.issueId, issue.id)))).toEqual([]);
    expect(await statusAndBody(await w.as(t.reporter).delete(`/projects/${t.project.id}/milestones/${m.id}`))).toEqual([404, { message: "404 Not found" }]);
  });

  forbidsRoles(["guest"], (w, p, u) => w.as(u).delete(`/projects/${p.id}/milestones/1`));
  hidesPrivateProject((w, p) => w.as(w.stranger).delete(`/projects/${p.id}/milestones/1`));
});
