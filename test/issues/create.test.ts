import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  issueAssignees,
  labelLinks,
  labels,
  projects,
  resourceLabelEvents,
  resourceMilestoneEvents,
  userAgentDetails,
} from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { createIssue, createLabel, createMilestone, queryCount, team, type Json } from "../helpers/api";
import { issueRow, systemNotes, todosOf } from "./support";

const TODO = { assigned: 1, mentioned: 2, directly_addressed: 7 };

describe("POST /projects/:id/issues", () => {
  it("creates the issue with labels, milestone, assignees and their side effects", async () => {
    const w = await world();
    const t = await team(w);
    const dev = await w.user();
    await w.addMembers("Project", t.project.id, { developers: [dev] });
    const existing = await createLabel(w, t.owner, t.project, { name: "bug" });
    const milestone = await createMilestone(w, t.owner, t.project, { title: "v1" });
    const res = await w.as(t.reporter).post(`/projects/${t.project.id}/issues`, {
      json: {
        title: "  Broken build  ",
        description: `@${dev.username} please look\n\n- [x] reproduce\n- [ ] fix\n\ncc @${t.guest.username}`,
        labels: "bug, brand-new",
        milestone_id: milestone.id,
        assignee_ids: [t.owner.id],
        due_date: "2030-09-05",
        weight: 3,
        discussion_locked: true,
      },
      headers: { "User-Agent": "python-gitlab/3.12", "X-Forwarded-For": "203.0.113.7, 10.0.0.1" },
    });
    expect(res.status).toBe(201);
    expect(queryCount(res)).toBeLessThanOrEqual(6);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      iid: 1,
      project_id: t.project.id,
      title: "Broken build",
      state: "opened",
      closed_at: null,
      closed_by: null,
      labels: ["brand-new", "bug"],
      milestone: { id: milestone.id, iid: milestone.iid, title: "v1", project_id: t.project.id },
      assignees: [{ id: t.owner.id, username: t.owner.username }],
      assignee: { id: t.owner.id },
      author: { id: t.reporter.id, username: t.reporter.username },
      type: "ISSUE",
      issue_type: "issue",
      user_notes_count: 0,
      merge_requests_count: 0,
      upvotes: 0,
      downvotes: 0,
      due_date: "2030-09-05",
      confidential: false,
      discussion_locked: true,
      weight: 3,
      web_url: `http://edgeforge.test/${t.project.fullPath}/-/issues/1`,
      references: { short: "#1", relative: "#1", full: `${t.project.fullPath}#1` },
      time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
      has_tasks: true,
      task_status: "1 of 2 tasks completed",
      task_completion_status: { count: 2, completed_count: 1 },
      severity: "UNKNOWN",
      subscribed: true,
      moved_to_id: null,
      service_desk_reply_to: null,
      health_status: null,
      blocking_issues_count: 0,
      _links: {
        self: `http://edgeforge.test/api/v4/projects/${t.project.id}/issues/1`,
        notes: `http://edgeforge.test/api/v4/projects/${t.project.id}/issues/1/notes`,
        award_emoji: `http://edgeforge.test/api/v4/projects/${t.project.id}/issues/1/award_emoji`,
        project: `http://edgeforge.test/api/v4/projects/${t.project.id}`,
        closed_as_duplicate_of: null,
      },
    });
    // A personal project has no group, hence no epic fields.
    expect(body).not.toHaveProperty("epic_iid");

    const created = await w.db(async (db) => (await db.select().from(labels).where(and(eq(labels.projectId, t.project.id), eq(labels.title, "brand-new"))))[0]);
    expect(created.color).toBe("#6699cc");
    const linked = await w.db((db) => db.select({ id: labelLinks.labelId }).from(labelLinks).where(and(eq(labelLinks.targetType, "Issue"), eq(labelLinks.targetId, body.id))));
    expect(linked.map((l) => l.id).sort()).toEqual([existing.id, created.id].sort());
    const labelEvents = await w.db((db) => db.select().from(resourceLabelEvents).where(eq(resourceLabelEvents.issueId, body.id)));
    expect(labelEvents.map((e) => [e.action, e.labelId, e.userId]).sort()).toEqual(
      [["add", existing.id, t.reporter.id], ["add", created.id, t.reporter.id]].sort(),
    );
    const milestoneEvents = await w.db((db) => db.select().from(resourceMilestoneEvents).where(eq(resourceMilestoneEvents.issueId, body.id)));
    expect(milestoneEvents).toMatchObject([{ action: "add", milestoneId: milestone.id, userId: t.reporter.id, state: "opened" }]);
    expect(await systemNotes(w, body.id)).toEqual(["changed due date to September  5, 2030", `assigned to @${t.owner.username}`]);
    const agent = await w.db((db) => db.select().from(userAgentDetails).where(and(eq(userAgentDetails.subjectType, "Issue"), eq(userAgentDetails.subjectId, body.id))));
    expect(agent).toMatchObject([{ userAgent: "python-gitlab/3.12", ipAddress: "203.0.113.7", submitted: false }]);
    // Assigned first, then the directly addressed developer, then the mentioned guest.
    expect(await todosOf(w, body.id)).toEqual([
      { userId: t.owner.id, action: TODO.assigned, state: "pending", authorId: t.reporter.id },
      { userId: dev.id, action: TODO.directly_addressed, state: "pending", authorId: t.reporter.id },
      { userId: t.guest.id, action: TODO.mentioned, state: "pending", authorId: t.reporter.id },
    ]);
    const [project] = await w.db((db) => db.select({ n: projects.openIssuesCount }).from(projects).where(eq(projects.id, t.project.id)));
    expect(project.n).toBe(1);
  });

  it("answers 400 for missing, invalid and conflicting parameters", async () => {
    const w = await world();
    const t = await team(w);
    const post = (json: Json) => w.as(t.owner).post(`/projects/${t.project.id}/issues`, { json });
    expect(await statusAndBody(await post({}))).toEqual([400, { error: "title is missing" }]);
    expect(await statusAndBody(await post({ title: "   " }))).toEqual([400, { message: { title: ["can't be blank"] } }]);
    expect(await statusAndBody(await post({ title: "x".repeat(256) }))).toEqual([400, { message: { title: ["is too long (maximum is 255 characters)"] } }]);
    expect(await statusAndBody(await post({ title: "t", confidential: "maybe" }))).toEqual([400, { error: "confidential is invalid" }]);
    expect(await statusAndBody(await post({ title: "t", issue_type: "epic" }))).toEqual([400, { error: "issue_type does not have a valid value" }]);
    expect(await statusAndBody(await post({ title: "t", epic_id: 1, epic_iid: 2 }))).toEqual([400, { error: "epic_id, epic_iid are mutually exclusive" }]);
    expect(await statusAndBody(await post({ title: "t", weight: -1 }))).toEqual([400, { message: { weight: ["must be greater than or equal to 0"] } }]);
  });

  it("lets guest members set metadata on new issues, but not weight, types or new labels", async () => {
    const w = await world();
    const t = await team(w);
    await createLabel(w, t.owner, t.project, { name: "bug" });
    const milestone = await createMilestone(w, t.owner, t.project);
    const body = await createIssue(w, t.guest, t.project, {
      labels: "bug,unknown",
      milestone_id: milestone.id,
      assignee_ids: [t.owner.id],
      due_date: "2030-01-01",
      confidential: true,
      issue_type: "incident",
      weight: 2,
    });
    expect(body).toMatchObject({
      labels: ["bug"],
      milestone: { id: milestone.id },
      assignees: [{ id: t.owner.id }],
      due_date: "2030-01-01",
      confidential: true,
      issue_type: "issue",
      weight: null,
    });
    const unknown = await w.db((db) => db.select().from(labels).where(and(eq(labels.projectId, t.project.id), eq(labels.title, "unknown"))));
    expect(unknown).toEqual([]);
  });

  it("drops all metadata of a non-member opening an issue in a public project", async () => {
    const w = await world();
    const t = await team(w, "public");
    await createLabel(w, t.owner, t.project, { name: "bug" });
    const body = await createIssue(w, w.stranger, t.project, { title: "from outside", labels: "bug", assignee_ids: [t.owner.id], due_date: "2030-01-01", confidential: true });
    expect(body).toMatchObject({ title: "from outside", author: { id: w.stranger.id }, labels: [], assignees: [], due_date: null, confidential: true });
    expect(await systemNotes(w, body.id)).toEqual([]);
  });

  it("assigns only users who can read the issue, takes the legacy assignee_id and drops a foreign milestone", async () => {
    const w = await world();
    const t = await team(w);
    const other = await team(w);
    const foreign = await createMilestone(w, other.owner, other.project);
    const first = await createIssue(w, t.owner, t.project, { assignee_ids: [w.stranger.id, t.guest.id], milestone_id: foreign.id });
    expect(first.assignees.map((a: Json) => a.id)).toEqual([t.guest.id]);
    expect(first.milestone).toBeNull();
    const legacy = await createIssue(w, t.owner, t.project, { assignee_id: t.reporter.id, assignee_ids: [t.guest.id] });
    expect(legacy.assignees.map((a: Json) => a.id)).toEqual([t.reporter.id]);
    const none = await createIssue(w, t.owner, t.project, { assignee_ids: [w.stranger.id] });
    expect(none.assignees).toEqual([]);
  });

  it("mentions on a confidential issue notify only those who can read it", async () => {
    const w = await world();
    const t = await team(w);
    const body = await createIssue(w, t.owner, t.project, {
      confidential: true,
      description: `see @${t.guest.username} and @${t.reporter.username} and @${w.stranger.username}`,
    });
    expect(await todosOf(w, body.id)).toEqual([{ userId: t.reporter.id, action: TODO.mentioned, state: "pending", authorId: t.owner.id }]);
  });

  it("lets owners set created_at and iid; a taken iid is 409 and later iids continue after it", async () => {
    const w = await world();
    const t = await team(w);
    const set = await createIssue(w, t.owner, t.project, { iid: 10, created_at: "2020-01-02T03:04:05Z" });
    expect(set).toMatchObject({ iid: 10, created_at: "2020-01-02T03:04:05.000Z" });
    expect(set.updated_at).not.toBe(set.created_at);
    expect(await statusAndBody(await w.as(t.owner).post(`/projects/${t.project.id}/issues`, { json: { title: "again", iid: 10 } }))).toEqual([
      409,
      { message: "Duplicated issue" },
    ]);
    expect((await createIssue(w, t.owner, t.project)).iid).toBe(11);
    // A reporter's created_at and iid are ignored.
    const ignored = await createIssue(w, t.reporter, t.project, { iid: 50, created_at: "2020-01-02T03:04:05Z" });
    expect(ignored.iid).toBe(12);
    expect(ignored.created_at).not.toBe("2020-01-02T03:04:05.000Z");
  });

  it("records CF-Connecting-IP, and no user agent detail without a User-Agent", async () => {
    const w = await world();
    const t = await team(w);
    const res = await w.as(t.owner).post(`/projects/${t.project.id}/issues`, {
      json: { title: "ip" },
      headers: { "User-Agent": "curl/8", "CF-Connecting-IP": "198.51.100.9", "X-Forwarded-For": "203.0.113.7" },
    });
    const body = (await res.json()) as Json;
    const agent = await w.db((db) => db.select().from(userAgentDetails).where(and(eq(userAgentDetails.subjectType, "Issue"), eq(userAgentDetails.subjectId, body.id))));
    expect(agent).toMatchObject([{ userAgent: "curl/8", ipAddress: "198.51.100.9" }]);
    const bare = await createIssue(w, t.owner, t.project);
    const none = await w.db((db) => db.select().from(userAgentDetails).where(and(eq(userAgentDetails.subjectType, "Issue"), eq(userAgentDetails.subjectId, bare.id))));
    expect(none).toEqual([]);
  });

  it("answers 429 when the user is over the issues_create limit", async () => {
    const w = await world();
    const t = await team(w);
    const fresh = await w.user();
    await w.addMembers("Project", t.project.id, { developers: [fresh] });
    // The per-user counter of the current (and next) one-minute window is at the default limit, 300.
    await w.db((db) =>
      db.execute(sql`INSERT INTO application_rate_limits (key, window_start, count) VALUES
        (${`issues_create:${fresh.id}`}, date_trunc('minute', now()), 300),
        (${`issues_create:${fresh.id}`}, date_trunc('minute', now()) + interval '1 minute', 300)`),
    );
    const res = await w.as(fresh).post(`/projects/${t.project.id}/issues`, { json: { title: "too many" } });
    expect(await statusAndBody(res)).toEqual([429, { message: { error: "This endpoint has been requested too many times. Try again later." } }]);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    const list = (await (await w.as(t.owner).get(`/projects/${t.project.id}/issues`)).json()) as Json[];
    expect(list).toEqual([]);
    await w.db((db) => db.execute(sql`DELETE FROM application_rate_limits WHERE key = ${`issues_create:${fresh.id}`}`));
  });

  it("answers 403 where issues cannot be created", async () => {
    const w = await world();
    const owner = await w.user();
    const archived = await w.project({ owner, archived: true });
    expect(await statusAndBody(await w.as(owner).post(`/projects/${archived.id}/issues`, { json: { title: "x" } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    const disabled = await w.project({ owner });
    await w.db((db) => db.update(projects).set({ issuesEnabled: false }).where(eq(projects.id, disabled.id)));
    expect((await w.as(owner).post(`/projects/${disabled.id}/issues`, { json: { title: "x" } })).status).toBe(403);
  });

  requiresAuthentication((w) => w.anonymous.post(`/projects/1/issues`, { json: { title: "x" } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).post(`/projects/${p.id}/issues`, { json: { title: "x" } }));

  it("stores assignees", async () => {
    const w = await world();
    const t = await team(w);
    const body = await createIssue(w, t.owner, t.project, { assignee_ids: `${t.reporter.id},${t.guest.id}` });
    const rows = await w.db((db) => db.select().from(issueAssignees).where(eq(issueAssignees.issueId, body.id)));
    expect(rows.map((r) => r.userId).sort()).toEqual([t.reporter.id, t.guest.id].sort());
    expect((await issueRow(w, body.id)).authorId).toBe(t.owner.id);
    expect(await systemNotes(w, body.id)).toEqual([`assigned to @${[t.reporter, t.guest].sort((a, b) => a.id - b.id).map((u) => u.username).join(" and @")}`]);
  });
});
