import { describe, expect, it } from "vitest";
import { mergeRequests, mergeRequestsClosingIssues, notes } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { createIssue, queryCount, team, type Json } from "../helpers/api";
import { setIssue } from "./support";

describe("GET /projects/:id/issues/:issue_iid", () => {
  it("returns the issue entity with counts kept by other domains", async () => {
    const w = await world();
    const t = await team(w, "public");
    const issue = await createIssue(w, t.owner, t.project, { description: "* [ ] one\n1. [X] two\n+ [ ] three" });
    await setIssue(w, issue.id, { upvotes: 2, downvotes: 1, userNotesCount: 4, timeEstimate: 5400, totalTimeSpent: 60 });
    // Two merge requests close the issue (the merge requests domain writes these rows).
    await w.db(async (db) => {
      const mrs = await db
        .insert(mergeRequests)
        .values([1, 2].map((iid) => ({ iid, projectId: t.project.id, sourceProjectId: t.project.id, title: "fix", sourceBranch: `b${iid}`, targetBranch: "main" })))
        .returning();
      await db.insert(mergeRequestsClosingIssues).values(mrs.map((mr) => ({ mergeRequestId: mr.id, issueId: issue.id })));
    });
    const res = await w.as(t.guest).get(`/projects/${t.project.id}/issues/${issue.iid}`);
    expect(res.status).toBe(200);
    expect(queryCount(res)).toBeLessThanOrEqual(6);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      id: issue.id,
      upvotes: 2,
      downvotes: 1,
      user_notes_count: 4,
      merge_requests_count: 2,
      time_stats: { time_estimate: 5400, total_time_spent: 60, human_time_estimate: "1h 30m", human_total_time_spent: "1m" },
      has_tasks: true,
      task_status: "1 of 3 tasks completed",
      task_completion_status: { count: 3, completed_count: 1 },
      subscribed: false,
    });
    expect(Object.keys(body)).toEqual([
      "id", "iid", "project_id", "title", "description", "state", "created_at", "updated_at", "closed_at", "closed_by", "labels",
      "milestone", "assignees", "author", "type", "assignee", "user_notes_count", "merge_requests_count", "upvotes", "downvotes",
      "due_date", "confidential", "discussion_locked", "issue_type", "web_url", "time_stats", "task_completion_status", "weight",
      "blocking_issues_count", "has_tasks", "task_status", "_links", "references", "severity", "subscribed", "moved_to_id",
      "service_desk_reply_to", "health_status",
    ]);
    // Anonymous callers read public issues.
    expect((await w.anonymous.get(`/projects/${t.project.id}/issues/${issue.iid}`)).status).toBe(200);
  });

  it("shows label details only in lists; a group project's issue carries the epic fields", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    const issue = await createIssue(w, owner, project, { labels: "b,a" });
    const body = (await (await w.as(owner).get(`/projects/${project.id}/issues/${issue.iid}`)).json()) as Json;
    expect(body).toMatchObject({ labels: ["a", "b"], epic_iid: null, epic: null, subscribed: true });
    expect(body.references).toEqual({ short: "#1", relative: "#1", full: `${project.fullPath}#1` });
  });

  it("hides confidential issues from guests who are neither author nor assignee", async () => {
    const w = await world();
    const t = await team(w);
    const author = await w.user();
    const assignee = await w.user();
    await w.addMembers("Project", t.project.id, { guests: [author, assignee] });
    const issue = await createIssue(w, author, t.project);
    // Only readers can be assigned: a guest is assigned before the issue turns confidential.
    await w.as(t.owner).put(`/projects/${t.project.id}/issues/${issue.iid}`, { json: { assignee_ids: [assignee.id] } });
    await w.as(t.owner).put(`/projects/${t.project.id}/issues/${issue.iid}`, { json: { confidential: true } });
    const path = `/projects/${t.project.id}/issues/${issue.iid}`;
    expect(await statusAndBody(await w.as(t.guest).get(path))).toEqual([404, { message: "404 Issue Not Found" }]);
    for (const user of [author, assignee, t.reporter, t.owner]) expect((await w.as(user).get(path)).status).toBe(200);
    const pub = await team(w, "public");
    const secret = await createIssue(w, pub.owner, pub.project, { confidential: true });
    expect((await w.anonymous.get(`/projects/${pub.project.id}/issues/${secret.iid}`)).status).toBe(404);
    expect((await w.as(w.stranger).get(`/projects/${pub.project.id}/issues/${secret.iid}`)).status).toBe(404);
  });

  it("answers 404 Issue Not Found for a missing issue and 400 for a non-integer iid", async () => {
    const w = await world();
    const t = await team(w);
    expect(await statusAndBody(await w.as(t.owner).get(`/projects/${t.project.id}/issues/99`))).toEqual([404, { message: "404 Issue Not Found" }]);
    expect(await statusAndBody(await w.as(t.owner).get(`/projects/${t.project.id}/issues/99999999999`))).toEqual([404, { message: "404 Issue Not Found" }]);
    expect(await statusAndBody(await w.as(t.owner).get(`/projects/${t.project.id}/issues/abc`))).toEqual([400, { error: "issue_iid is invalid" }]);
  });

  it("is subscribed for commenters and mentioned users", async () => {
    const w = await world();
    const t = await team(w);
    const issue = await createIssue(w, t.owner, t.project, { description: `ping @${t.guest.username}` });
    const path = `/projects/${t.project.id}/issues/${issue.iid}`;
    expect(((await (await w.as(t.guest).get(path)).json()) as Json).subscribed).toBe(true);
    expect(((await (await w.as(t.reporter).get(path)).json()) as Json).subscribed).toBe(false);
    await w.db((db) =>
      db.insert(notes).values({ noteableType: "Issue", noteableId: issue.id, projectId: t.project.id, authorId: t.reporter.id, note: "hi", discussionId: "a".repeat(40) }),
    );
    expect(((await (await w.as(t.reporter).get(path)).json()) as Json).subscribed).toBe(true);
  });

  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/issues/1`));
});

describe("GET /issues/:id", () => {
  it("lets administrators read any issue by global id", async () => {
    const w = await world();
    const t = await team(w);
    const issue = await createIssue(w, t.owner, t.project, { confidential: true });
    const admin = await w.user({ admin: true });
    const res = await w.as(admin).get(`/issues/${issue.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: issue.id, iid: issue.iid, references: { relative: "#1" } });
    expect(await statusAndBody(await w.as(admin).get(`/issues/999999999`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(t.owner).get(`/issues/${issue.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.get(`/issues/${issue.id}`))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});
