import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { createIssue, createLabel, createMilestone, queryCount, team, type Json } from "../helpers/api";

describe("GET /projects/:id/issues/:eventable_id/resource_label_events", () => {
  it("lists label events oldest first with their label and user", async () => {
    const w = await world();
    const t = await team(w);
    const label = await createLabel(w, t.owner, t.project, { name: "bug", color: "#FF0000" });
    const issue = await createIssue(w, t.owner, t.project, { labels: "bug" });
    await w.as(t.reporter).put(`/projects/${t.project.id}/issues/${issue.iid}`, { json: { remove_labels: "bug" } });
    const res = await w.as(t.guest).get(`/projects/${t.project.id}/issues/${issue.iid}/resource_label_events`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body).toEqual([
      {
        id: expect.any(Number),
        user: expect.objectContaining({ id: t.owner.id, username: t.owner.username }),
        created_at: issue.created_at,
        resource_type: "Issue",
        resource_id: issue.id,
        label: { id: label.id, name: "bug", color: "#FF0000", description: null, description_html: null, text_color: "#FFFFFF", remove_on_close: false },
        action: "add",
      },
      expect.objectContaining({ action: "remove", user: expect.objectContaining({ id: t.reporter.id }) }),
    ]);
    expect(res.headers.get("x-total")).toBe("2");
    const one = await w.as(t.guest).get(`/projects/${t.project.id}/issues/${issue.iid}/resource_label_events/${body[1].id}`);
    expect(await statusAndBody(one)).toEqual([200, body[1]]);
  });

  it("paginates with a flat statement count", async () => {
    const w = await world();
    const t = await team(w);
    const issue = await createIssue(w, t.owner, t.project, { labels: "a,b,c" });
    const path = `/projects/${t.project.id}/issues/${issue.iid}/resource_label_events`;
    const one = await w.as(t.owner).get(path, { query: { per_page: 1 } });
    expect(((await one.json()) as Json[]).length).toBe(1);
    expect(one.headers.get("x-total")).toBe("3");
    const hundred = await w.as(t.owner).get(path, { query: { per_page: 100 } });
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
  });

  it("answers 401, 404 Issue Not Found (also for a confidential issue) and 404 Not found for a missing event", async () => {
    const w = await world();
    const t = await team(w, "public");
    const issue = await createIssue(w, t.owner, t.project);
    const secret = await createIssue(w, t.owner, t.project, { confidential: true });
    const base = `/projects/${t.project.id}/issues`;
    expect(await statusAndBody(await w.anonymous.get(`${base}/${issue.iid}/resource_label_events`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(t.guest).get(`${base}/${secret.iid}/resource_label_events`))).toEqual([404, { message: "404 Issue Not Found" }]);
    expect(await statusAndBody(await w.as(t.guest).get(`${base}/99/resource_label_events`))).toEqual([404, { message: "404 Issue Not Found" }]);
    expect(await statusAndBody(await w.as(t.guest).get(`${base}/${issue.iid}/resource_label_events/123456789`))).toEqual([404, { message: "404 Not found" }]);
  });

  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/issues/1/resource_label_events`));
});

describe("GET /projects/:id/issues/:eventable_id/resource_state_events", () => {
  it("lists close and reopen events", async () => {
    const w = await world();
    const t = await team(w);
    const issue = await createIssue(w, t.owner, t.project);
    const path = `/projects/${t.project.id}/issues/${issue.iid}`;
    await w.as(t.owner).put(path, { json: { state_event: "close" } });
    await w.as(t.owner).put(path, { json: { state_event: "reopen" } });
    const body = (await (await w.as(t.guest).get(`${path}/resource_state_events`)).json()) as Json[];
    expect(body.map((e) => e.state)).toEqual(["closed", "reopened"]);
    expect(Object.keys(body[0])).toEqual(["id", "user", "created_at", "resource_type", "resource_id", "state"]);
    const one = await w.as(t.guest).get(`${path}/resource_state_events/${body[0].id}`);
    expect(await one.json()).toEqual(body[0]);
    expect(await statusAndBody(await w.as(t.guest).get(`${path}/resource_state_events/abc`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("GET /projects/:id/issues/:eventable_id/resource_milestone_events", () => {
  it("lists milestone events with the milestone entity and the issue's state", async () => {
    const w = await world();
    const t = await team(w);
    const m = await createMilestone(w, t.owner, t.project, { title: "v1" });
    const issue = await createIssue(w, t.owner, t.project, { milestone_id: m.id });
    const path = `/projects/${t.project.id}/issues/${issue.iid}`;
    await w.as(t.owner).put(path, { json: { milestone_id: 0 } });
    const body = (await (await w.as(t.guest).get(`${path}/resource_milestone_events`)).json()) as Json[];
    expect(body).toMatchObject([
      { resource_type: "Issue", resource_id: issue.id, milestone: { id: m.id, title: "v1" }, action: "add", state: "opened" },
      { milestone: { id: m.id }, action: "remove", state: "opened" },
    ]);
    expect(await statusAndBody(await w.as(t.guest).get(`${path}/resource_milestone_events/${body[1].id}`))).toEqual([200, body[1]]);
  });
});

describe("GET /projects/:id/merge_requests/:eventable_id/resource_{state,label}_events", () => {
  it("lists a merge request's events with resource_type MergeRequest, and 404s like GitLab", async () => {
    const w = await world();
    const t = await team(w);
    const dev = await w.user();
    await w.addMembers("Project", t.project.id, { developers: [dev] });
    const created = await w.as(dev).post(`/projects/${t.project.id}/merge_requests`, {
      json: { source_branch: "feature", target_branch: "main", title: "Events", labels: "bug" },
    });
    expect(created.status).toBe(201);
    const mr = (await created.json()) as Json;
    const path = `/projects/${t.project.id}/merge_requests/${mr.iid}`;
    expect((await w.as(dev).put(path, { json: { state_event: "close" } })).status).toBe(200);

    const states = (await (await w.as(t.reporter).get(`${path}/resource_state_events`)).json()) as Json[];
    expect(states).toEqual([
      {
        id: expect.any(Number),
        user: expect.objectContaining({ id: dev.id }),
        created_at: expect.any(String),
        resource_type: "MergeRequest",
        resource_id: mr.id,
        state: "closed",
      },
    ]);
    const labels = (await (await w.as(t.reporter).get(`${path}/resource_label_events`)).json()) as Json[];
    expect(labels.map((e) => [e.resource_type, e.action, e.label.name])).toEqual([["MergeRequest", "add", "bug"]]);
    const one = await w.as(t.reporter).get(`${path}/resource_state_events/${states[0].id}`);
    expect(await statusAndBody(one)).toEqual([200, states[0]]);

    const base = `/projects/${t.project.id}/merge_requests`;
    expect(await statusAndBody(await w.as(t.reporter).get(`${base}/999/resource_state_events`))).toEqual([
      404,
      { message: "404 Merge Request Not Found" },
    ]);
    expect(await statusAndBody(await w.anonymous.get(`${path}/resource_state_events`))).toEqual([401, { message: "401 Unauthorized" }]);
    // An issue's event id is not found under a merge request.
    expect(await statusAndBody(await w.as(t.reporter).get(`${path}/resource_state_events/123456789`))).toEqual([404, { message: "404 Not found" }]);
  });
});
