import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { labels, projects, resourceLabelEvents, resourceMilestoneEvents, resourceStateEvents, todos } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { createIssue, createLabel, createMilestone, queryCount, team, type Json } from "../helpers/api";
import { issueRow, systemNotes, todosOf } from "./support";

const put = (w: Awaited<ReturnType<typeof world>>, token: { token: string }, project: { id: number }, iid: number, json: Json) =>
  w.as(token.token).put(`/projects/${project.id}/issues/${iid}`, { json });

describe("PUT /projects/:id/issues/:issue_iid", () => {
  it("closes and reopens with closed_at, closed_by and state events", async () => {
    const w = await world();
    const t = await team(w);
    const issue = await createIssue(w, t.owner, t.project);
    const closed = await put(w, t.reporter, t.project, issue.iid, { state_event: "close" });
    expect(closed.status).toBe(200);
    expect(queryCount(closed)).toBeLessThanOrEqual(6);
    const body = (await closed.json()) as Json;
    expect(body).toMatchObject({ state: "closed", closed_by: { id: t.reporter.id, username: t.reporter.username } });
    expect(body.closed_at).toBe(body.updated_at);
    expect((await put(w, t.reporter, t.project, issue.iid, { state_event: "close" })).status).toBe(200);
    const [project] = await w.db((db) => db.select({ n: projects.openIssuesCount }).from(projects).where(eq(projects.id, t.project.id)));
    expect(project.n).toBe(0);
    const reopened = (await (await put(w, t.owner, t.project, issue.iid, { state_event: "reopen" })).json()) as Json;
    expect(reopened).toMatchObject({ state: "opened", closed_at: null, closed_by: null });
    const events = await w.db((db) => db.select().from(resourceStateEvents).where(eq(resourceStateEvents.issueId, issue.id)).orderBy(resourceStateEvents.id));
    expect(events.map((e) => [e.state, e.userId])).toEqual([["closed", t.reporter.id], ["reopened", t.owner.id]]);
  });

  it("replaces, adds and removes labels with label events", async () => {
    const w = await world();
    const t = await team(w);
    const [a, b, c] = [await createLabel(w, t.owner, t.project, { name: "a" }), await createLabel(w, t.owner, t.project, { name: "b" }), await createLabel(w, t.owner, t.project, { name: "c" })];
    const issue = await createIssue(w, t.owner, t.project, { labels: "a,b" });
    const replaced = (await (await put(w, t.reporter, t.project, issue.iid, { labels: ["b", "c", "d"] })).json()) as Json;
    expect(replaced.labels).toEqual(["b", "c", "d"]);
    const added = (await (await put(w, t.reporter, t.project, issue.iid, { add_labels: "a", remove_labels: "b,d" })).json()) as Json;
    expect(added.labels).toEqual(["a", "c"]);
    const [d] = await w.db((db) => db.select().from(labels).where(sql`${labels.projectId} = ${t.project.id} AND ${labels.title} = 'd'`));
    const events = await w.db((db) => db.select().from(resourceLabelEvents).where(eq(resourceLabelEvents.issueId, issue.id)).orderBy(resourceLabelEvents.id));
    const pairs = events.map((e) => `${e.action}:${e.labelId}`);
    expect(pairs.slice(0, 2).sort()).toEqual([`add:${a.id}`, `add:${b.id}`].sort());
    expect(pairs.slice(2, 5).sort()).toEqual([`add:${c.id}`, `add:${d.id}`, `remove:${a.id}`].sort());
    expect(pairs.slice(5).sort()).toEqual([`add:${a.id}`, `remove:${b.id}`, `remove:${d.id}`].sort());
    const cleared = (await (await put(w, t.reporter, t.project, issue.iid, { labels: "" })).json()) as Json;
    expect(cleared.labels).toEqual([]);
  });

  it("changes assignees with a system note, to-dos for the new ones, and resolves the actor's to-dos", async () => {
    const w = await world();
    const t = await team(w);
    const dev = await w.user();
    await w.addMembers("Project", t.project.id, { developers: [dev] });
    const issue = await createIssue(w, t.owner, t.project, { assignee_ids: [t.reporter.id] });
    await w.db((db) =>
      db.insert(todos).values({ userId: t.owner.id, projectId: t.project.id, authorId: t.reporter.id, targetType: "Issue", targetId: issue.id, action: 2 }),
    );
    const res = await put(w, t.owner, t.project, issue.iid, { assignee_ids: [dev.id, t.owner.id], labels: "new", milestone_id: 0, title: "@x" });
    expect(queryCount(res)).toBeLessThanOrEqual(6);
    const body = (await res.json()) as Json;
    expect(body.assignees.map((a: Json) => a.id).sort()).toEqual([dev.id, t.owner.id].sort());
    const added = [dev, t.owner].sort((x, y) => x.id - y.id).map((u) => `@${u.username}`).join(" and ");
    expect((await systemNotes(w, issue.id)).at(-1)).toBe(`assigned to ${added} and unassigned @${t.reporter.username}`);
    const list = await todosOf(w, issue.id);
    // The owner's old to-do is done; the new assignees get `assigned` ones (the owner too: self-assignment).
    expect(list).toEqual(
      expect.arrayContaining([
        { userId: t.owner.id, action: 2, state: "done", authorId: t.reporter.id },
        { userId: dev.id, action: 1, state: "pending", authorId: t.owner.id },
        { userId: t.owner.id, action: 1, state: "pending", authorId: t.owner.id },
      ]),
    );
    const unassigned = (await (await put(w, t.owner, t.project, issue.iid, { assignee_ids: [0] })).json()) as Json;
    expect(unassigned).toMatchObject({ assignees: [], assignee: null });
    const legacy = (await (await put(w, t.owner, t.project, issue.iid, { assignee_id: t.reporter.id })).json()) as Json;
    expect(legacy.assignees.map((a: Json) => a.id)).toEqual([t.reporter.id]);
  });

  it("records milestone changes as milestone events", async () => {
    const w = await world();
    const t = await team(w);
    const [m1, m2] = [await createMilestone(w, t.owner, t.project), await createMilestone(w, t.owner, t.project)];
    const issue = await createIssue(w, t.owner, t.project, { milestone_id: m1.id });
    expect(((await (await put(w, t.owner, t.project, issue.iid, { milestone_id: m2.id })).json()) as Json).milestone.id).toBe(m2.id);
    expect(((await (await put(w, t.owner, t.project, issue.iid, { milestone_id: 0 })).json()) as Json).milestone).toBeNull();
    const events = await w.db((db) => db.select().from(resourceMilestoneEvents).where(eq(resourceMilestoneEvents.issueId, issue.id)).orderBy(resourceMilestoneEvents.id));
    expect(events.map((e) => [e.action, e.milestoneId])).toEqual([["add", m1.id], ["add", m2.id], ["remove", m2.id]]);
  });

  it("writes GitLab's system notes for title, description, lock, due date and confidentiality; new mentions get to-dos", async () => {
    const w = await world();
    const t = await team(w);
    const issue = await createIssue(w, t.owner, t.project, { title: "Fix the bug", description: `old @${t.guest.username}` });
    const before = await todosOf(w, issue.id);
    const res = await put(w, t.owner, t.project, issue.iid, {
      title: "Fix the nasty bug",
      description: `new @${t.guest.username} @${t.reporter.username}`,
      discussion_locked: true,
      due_date: "2031-12-24",
      confidential: true,
    });
    expect(await res.json()).toMatchObject({ title: "Fix the nasty bug", discussion_locked: true, due_date: "2031-12-24", confidential: true });
    expect(await systemNotes(w, issue.id)).toEqual([
      "changed title from **Fix the bug** to **Fix the {+nasty +}bug**",
      "changed the description",
      "locked this issue",
      "changed due date to December 24, 2031",
      "made the issue confidential",
    ]);
    // Only the newly mentioned reporter gets a to-do (the guest was mentioned before).
    const after = await todosOf(w, issue.id);
    expect(after.slice(before.length)).toEqual([{ userId: t.reporter.id, action: 2, state: "pending", authorId: t.owner.id }]);
    await put(w, t.owner, t.project, issue.iid, { due_date: null, discussion_locked: false, confidential: false });
    expect((await systemNotes(w, issue.id)).slice(5)).toEqual(["unlocked this issue", "removed due date", "made the issue visible to everyone"]);
  });

  it("changes nothing when nothing differs, and lets owners set updated_at", async () => {
    const w = await world();
    const t = await team(w);
    const issue = await createIssue(w, t.owner, t.project, { title: "same" });
    const same = (await (await put(w, t.owner, t.project, issue.iid, { title: "same" })).json()) as Json;
    expect(same.updated_at).toBe(issue.updated_at);
    expect(await systemNotes(w, issue.id)).toEqual([]);
    const dated = (await (await put(w, t.owner, t.project, issue.iid, { title: "other", updated_at: "2021-05-06T07:08:09Z" })).json()) as Json;
    expect(dated.updated_at).toBe("2021-05-06T07:08:09.000Z");
    const reporterDated = (await (await put(w, t.reporter, t.project, issue.iid, { title: "third", updated_at: "2021-05-06T07:08:09Z" })).json()) as Json;
    expect(reporterDated.updated_at).not.toBe("2021-05-06T07:08:09.000Z");
  });

  it("answers 400 for nothing to update and bad values", async () => {
    const w = await world();
    const t = await team(w);
    const issue = await createIssue(w, t.owner, t.project);
    expect(await statusAndBody(await put(w, t.owner, t.project, issue.iid, {}))).toEqual([
      400,
      {
        error:
          "assignee_id, assignee_ids, confidential, created_at, description, discussion_locked, due_date, labels, add_labels, remove_labels, milestone_id, iteration_id, state_event, title, issue_type, weight, epic_id, epic_iid are missing, at least one parameter must be provided",
      },
    ]);
    expect(await statusAndBody(await put(w, t.owner, t.project, issue.iid, { state_event: "open" }))).toEqual([400, { error: "state_event does not have a valid value" }]);
    expect(await statusAndBody(await put(w, t.owner, t.project, issue.iid, { title: "" }))).toEqual([400, { message: { title: ["can't be blank"] } }]);
  });

  it("lets a guest author edit and close their issue but not its metadata; other guests get 403", async () => {
    const w = await world();
    const t = await team(w);
    const other = await w.user();
    await w.addMembers("Project", t.project.id, { guests: [other] });
    const issue = await createIssue(w, t.guest, t.project);
    const res = await put(w, t.guest, t.project, issue.iid, { title: "mine", state_event: "close", labels: "x", assignee_ids: [t.guest.id] });
    expect(await res.json()).toMatchObject({ title: "mine", state: "closed", labels: [], assignees: [] });
    expect(await statusAndBody(await put(w, other, t.project, issue.iid, { title: "theirs" }))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await issueRow(w, issue.id)).title).toBe("mine");
  });

  it("answers 404 Not found for a missing or unreadable issue", async () => {
    const w = await world();
    const t = await team(w);
    expect(await statusAndBody(await put(w, t.owner, t.project, 42, { title: "x" }))).toEqual([404, { message: "404 Not found" }]);
    const secret = await createIssue(w, t.owner, t.project, { confidential: true });
    expect(await statusAndBody(await put(w, t.guest, t.project, secret.iid, { title: "x" }))).toEqual([404, { message: "404 Not found" }]);
  });

  requiresAuthentication((w) => w.anonymous.put(`/projects/1/issues/1`, { json: { title: "x" } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).put(`/projects/${p.id}/issues/1`, { json: { title: "x" } }));
});
