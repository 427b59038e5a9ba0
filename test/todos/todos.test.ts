import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { followPages, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { createMergeRequest, queryCount, type Json } from "../helpers/api";
import { insertIssue } from "../helpers/noteables";
import { rows } from "../helpers/db";

describe("POST /projects/:id/issues/:issue_iid/todo", () => {
  it("marks the issue as a to-do (201), then answers 304 while it is pending", async () => {
    const w = await world();
    const reporter = await w.user();
    const project = await w.project({ reporters: [reporter] });
    const issue = await insertIssue(w, project, { title: "Look at me" });
    const res = await w.as(reporter).post(`/projects/${project.id}/issues/${issue.iid}/todo`);
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      project: { id: project.id, path_with_namespace: project.fullPath },
      author: { id: reporter.id },
      action_name: "marked",
      target_type: "Issue",
      target: { id: issue.id, iid: issue.iid, title: "Look at me" },
      target_url: `http://edgeforge.test/${project.fullPath}/-/issues/${issue.iid}`,
      body: "Look at me",
      state: "pending",
    });
    expect(body.target).not.toHaveProperty("subscribed");
    expect(body).not.toHaveProperty("group");
    const again = await w.as(reporter).post(`/projects/${project.id}/issues/${issue.iid}/todo`);
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(await rows(w, sql`SELECT count(*)::int AS n FROM todos WHERE user_id = ${reporter.id}`)).toEqual([{ n: 1 }]);
  });

  it("answers 404 for a confidential issue the caller may not read", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ guests: [guest] });
    const issue = await insertIssue(w, project, { confidential: true });
    expect(await statusAndBody(await w.as(guest).post(`/projects/${project.id}/issues/${issue.iid}/todo`))).toEqual([404, { message: "404 Issue Not Found" }]);
  });

  it("answers 400 for a non-integer iid", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    expect(await statusAndBody(await w.as(dev).post(`/projects/${project.id}/issues/abc/todo`))).toEqual([400, { error: "issue_iid is invalid" }]);
  });

  requiresAuthentication((w) => w.anonymous.post(`/projects/1/issues/1/todo`));
  hidesPrivateProject((w, p) => w.as(w.stranger).post(`/projects/${p.id}/issues/1/todo`));
});

describe("POST /projects/:id/merge_requests/:merge_request_iid/todo", () => {
  it("marks the merge request, 304 when a to-do of any kind is pending", async () => {
    const w = await world();
    const dev = await w.user();
    const assignee = await w.user();
    const project = await w.project({ developers: [dev, assignee] });
    const mr = await createMergeRequest(w, dev, project, { title: "Review me", assignee_ids: [assignee.id] });
    const res = await w.as(dev).post(`/projects/${project.id}/merge_requests/${mr.iid}/todo`);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      action_name: "marked",
      target_type: "MergeRequest",
      target: { id: mr.id, title: "Review me", references: { relative: "!1" } },
      target_url: `http://edgeforge.test/${project.fullPath}/-/merge_requests/${mr.iid}`,
    });
    // The assignee already has the `assigned` to-do.
    expect((await w.as(assignee).post(`/projects/${project.id}/merge_requests/${mr.iid}/todo`)).status).toBe(304);
    expect(await statusAndBody(await w.as(dev).post(`/projects/${project.id}/merge_requests/77/todo`))).toEqual([404, { message: "404 Merge Request Not Found" }]);
  });
});

describe("GET /todos", () => {
  it("lists the caller's pending to-dos, newest first, with every filter", async () => {
    const w = await world();
    const me = await w.user();
    const author = await w.user();
    const group = await w.group({ developers: [me, author] });
    const project = await w.project({ group });
    const other = await w.project({ developers: [me, author] });
    const issue = await insertIssue(w, project, { title: "Issue title" });
    const mr = await createMergeRequest(w, author, project, { title: "MR title", assignee_ids: [me.id] });
    const elsewhere = await createMergeRequest(w, author, other, { description: `@${me.username} look` });
    await w.as(me).post(`/projects/${project.id}/issues/${issue.iid}/todo`);
    const res = await w.as(me).get(`/todos`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("3");
    const body = (await res.json()) as Json[];
    expect(body.map((t) => [t.target_type, t.action_name, t.target.id])).toEqual([
      ["Issue", "marked", issue.id],
      ["MergeRequest", "directly_addressed", elsewhere.id],
      ["MergeRequest", "assigned", mr.id],
    ]);
    expect(body[2]).toMatchObject({ author: { id: author.id }, body: "MR title", state: "pending", project: { id: project.id } });
    expect(Object.keys(body[2])).toEqual([
      "id", "project", "author", "action_name", "target_type", "target", "target_url", "body", "state", "created_at", "updated_at",
    ]);

    const ids = async (query: Record<string, any>) => ((await (await w.as(me).get(`/todos`, { query })).json()) as Json[]).map((t) => t.target.id);
    expect(await ids({ type: "Issue" })).toEqual([issue.id]);
    expect(await ids({ action: "assigned" })).toEqual([mr.id]);
    expect(await ids({ author_id: author.id })).toEqual([elsewhere.id, mr.id]);
    expect(await ids({ project_id: other.id })).toEqual([elsewhere.id]);
    expect(await ids({ group_id: group.id })).toEqual([issue.id, mr.id]);
    expect(await ids({ state: "done" })).toEqual([]);
    const all = await followPages(w, await w.as(me).get(`/todos`, { query: { per_page: 1 } }), me.token);
    expect(all).toHaveLength(3);
  });

  it("hides to-dos whose target the caller can no longer read", async () => {
    const w = await world();
    const me = await w.user();
    const project = await w.project({ developers: [me] });
    const issue = await insertIssue(w, project);
    await w.as(me).post(`/projects/${project.id}/issues/${issue.iid}/todo`);
    await rows(w, sql`DELETE FROM members WHERE source_type = 'Project' AND source_id = ${project.id} AND user_id = ${me.id}`);
    const res = await w.as(me).get(`/todos`);
    expect(await res.json()).toEqual([]);
    expect(res.headers.get("x-total")).toBe("0");
  });

  it("keeps the statement count flat across page sizes", async () => {
    const w = await world();
    const me = await w.user();
    const project = await w.project({ developers: [me] });
    for (let i = 0; i < 3; i++) {
      const issue = await insertIssue(w, project);
      await w.as(me).post(`/projects/${project.id}/issues/${issue.iid}/todo`);
    }
    const one = await w.as(me).get(`/todos`, { query: { per_page: 1 } });
    const hundred = await w.as(me).get(`/todos`, { query: { per_page: 100 } });
    expect(((await hundred.json()) as Json[]).length).toBe(3);
    expect(queryCount(one)).toBe(queryCount(hundred));
    // Issues and merge requests on one page: one preload statement per kind of target, still at most 6.
    const mr = await createMergeRequest(w, me, project);
    await w.as(me).post(`/projects/${project.id}/merge_requests/${mr.iid}/todo`);
    expect(queryCount(await w.as(me).get(`/todos`, { query: { per_page: 100 } }))).toBeLessThanOrEqual(6);
  });

  it("answers 400 for bad filters and 404 for an unknown author", async () => {
    const w = await world();
    const me = await w.user();
    expect(await statusAndBody(await w.as(me).get(`/todos`, { query: { action: "poked" } }))).toEqual([400, { error: "action does not have a valid value" }]);
    expect(await statusAndBody(await w.as(me).get(`/todos`, { query: { type: "Snippet" } }))).toEqual([400, { error: "type does not have a valid value" }]);
    expect(await statusAndBody(await w.as(me).get(`/todos`, { query: { state: "all" } }))).toEqual([400, { error: "state does not have a valid value" }]);
    expect(await statusAndBody(await w.as(me).get(`/todos`, { query: { author_id: 999999999 } }))).toEqual([404, { message: "404 Not found" }]);
  });

  requiresAuthentication((w) => w.anonymous.get(`/todos`));
});

describe("POST /todos/:id/mark_as_done", () => {
  it("marks one to-do done (201 with it); another user's is 404", async () => {
    const w = await world();
    const me = await w.user();
    const project = await w.project({ developers: [me] });
    const issue = await insertIssue(w, project);
    const created = (await (await w.as(me).post(`/projects/${project.id}/issues/${issue.iid}/todo`)).json()) as Json;
    expect(await statusAndBody(await w.as(w.stranger).post(`/todos/${created.id}/mark_as_done`))).toEqual([404, { message: "404 Not found" }]);
    const res = await w.as(me).post(`/todos/${created.id}/mark_as_done`);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ id: created.id, state: "done", target: { id: issue.id } });
    expect(await rows(w, sql`SELECT state FROM todos WHERE id = ${created.id}`)).toEqual([{ state: "done" }]);
    expect(await (await w.as(me).get(`/todos`)).json()).toEqual([]);
    expect(((await (await w.as(me).get(`/todos`, { query: { state: "done" } })).json()) as Json[]).map((t) => t.id)).toEqual([created.id]);
    // Marking a done to-do again changes nothing and still answers it.
    expect((await w.as(me).post(`/todos/${created.id}/mark_as_done`)).status).toBe(201);
    expect(await statusAndBody(await w.as(me).post(`/todos/abc/mark_as_done`))).toEqual([400, { error: "id is invalid" }]);
  });

  requiresAuthentication((w) => w.anonymous.post(`/todos/1/mark_as_done`));
});

describe("POST /todos/mark_as_done", () => {
  it("marks every pending to-do of the caller done, 204, and leaves others' alone", async () => {
    const w = await world();
    const me = await w.user();
    const other = await w.user();
    const project = await w.project({ developers: [me, other] });
    const issue = await insertIssue(w, project);
    await w.as(me).post(`/projects/${project.id}/issues/${issue.iid}/todo`);
    await w.as(other).post(`/projects/${project.id}/issues/${issue.iid}/todo`);
    await createMergeRequest(w, other, project, { assignee_ids: [me.id] });
    const res = await w.as(me).post(`/todos/mark_as_done`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(await rows(w, sql`SELECT user_id, state FROM todos WHERE user_id IN (${me.id}, ${other.id}) ORDER BY user_id, id`)).toEqual([
      { user_id: me.id, state: "done" },
      { user_id: me.id, state: "done" },
      { user_id: other.id, state: "pending" },
    ]);
  });

  requiresAuthentication((w) => w.anonymous.post(`/todos/mark_as_done`));
});
