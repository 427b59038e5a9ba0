import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { awardEmoji, issues, notes, projects, resourceStateEvents } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world, type World } from "../helpers/world";
import { createIssue, createLabel, createMilestone, type Json } from "../helpers/api";
import { issueRow, setIssue, systemNotes } from "./support";

/** Two projects in one group, with an owner, a reporter of both and a guest of the source. */
async function pair(w: World) {
  const [owner, reporter, guest] = [await w.user(), await w.user(), await w.user()];
  const group = await w.group({ owners: [owner] });
  const source = await w.project({ group, reporters: [reporter], guests: [guest] });
  const target = await w.project({ group, reporters: [reporter] });
  return { owner, reporter, guest, group, source, target };
}

const openIssues = async (w: World, projectId: number) =>
  (await w.db((db) => db.select({ n: projects.openIssuesCount }).from(projects).where(eq(projects.id, projectId))))[0].n;

const userNotes = (w: World, issueId: number) =>
  w.db((db) =>
    db
      .select({ note: notes.note, authorId: notes.authorId, discussionId: notes.discussionId, projectId: notes.projectId, createdAt: notes.createdAt })
      .from(notes)
      .where(and(eq(notes.noteableType, "Issue"), eq(notes.noteableId, issueId), eq(notes.system, false)))
      .orderBy(notes.id),
  );

describe("POST /projects/:id/issues/:issue_iid/move", () => {
  it("moves the issue: new iid in the target, labels and milestone by title, notes and awards copied, the original closed", async () => {
    const w = await world();
    const t = await pair(w);
    const label = await createLabel(w, t.owner, t.source, { name: "bug" });
    await createLabel(w, t.owner, t.source, { name: "only-here" });
    await createLabel(w, t.owner, t.target, { name: "bug" });
    const milestone = await createMilestone(w, t.owner, t.source, { title: "v1" });
    const targetMilestone = await createMilestone(w, t.owner, t.target, { title: "v1" });
    await createIssue(w, t.owner, t.target); // the target's iid 1
    const original = await createIssue(w, t.owner, t.source, {
      labels: `${label.name},only-here`,
      milestone_id: milestone.id,
      assignee_ids: [t.reporter.id],
      description: "text",
      confidential: true,
    });
    const note = await w.as(t.guest).post(`/projects/${t.source.id}/issues/${original.iid}/notes`, { json: { body: "a comment" } });
    expect(note.status).toBe(404); // the guest cannot read the confidential issue
    await w.as(t.reporter).post(`/projects/${t.source.id}/issues/${original.iid}/notes`, { json: { body: "a comment" } });
    await w.as(t.reporter).post(`/projects/${t.source.id}/issues/${original.iid}/award_emoji`, { json: { name: "thumbsup" } });
    const before = await userNotes(w, original.id);

    const res = await w.as(t.reporter).post(`/projects/${t.source.id}/issues/${original.iid}/move`, { json: { to_project_id: t.target.id } });
    const [status, body] = (await statusAndBody(res)) as [number, Json];
    expect(status).toBe(201);
    expect(body).toMatchObject({
      project_id: t.target.id,
      iid: 2,
      title: original.title,
      description: "text",
      confidential: true,
      state: "opened",
      labels: ["bug"],
      milestone: { id: targetMilestone.id },
      assignees: [{ id: t.reporter.id }],
      author: { id: t.owner.id },
      upvotes: 1,
      user_notes_count: 1,
      created_at: original.created_at,
      references: { relative: `${t.target.path}#2` },
    });
    const copied = await userNotes(w, body.id);
    expect(copied.map((n) => [n.note, n.authorId, n.projectId, n.createdAt])).toEqual(before.map((n) => [n.note, n.authorId, t.target.id, n.createdAt]));
    expect(copied[0].discussionId).not.toBe(before[0].discussionId);
    expect((await systemNotes(w, body.id)).at(-1)).toBe(`moved from ${t.source.path}#${original.iid}`);
    expect((await systemNotes(w, original.id)).at(-1)).toBe(`moved to ${t.target.path}#2`);
    const old = await issueRow(w, original.id);
    expect([old.state, old.movedToId, old.closedById]).toEqual(["closed", body.id, t.reporter.id]);
    const events = await w.db((db) => db.select().from(resourceStateEvents).where(eq(resourceStateEvents.issueId, original.id)));
    expect(events.map((e) => e.state)).toEqual(["closed"]);
    expect(await w.db((db) => db.select().from(awardEmoji).where(and(eq(awardEmoji.awardableType, "Issue"), eq(awardEmoji.awardableId, body.id))))).toHaveLength(1);
    expect([await openIssues(w, t.source.id), await openIssues(w, t.target.id)]).toEqual([0, 2]);
    const shown = await w.as(t.reporter).get(`/projects/${t.source.id}/issues/${original.iid}`);
    expect(((await shown.json()) as Json).moved_to_id).toBe(body.id);
  });

  it("refuses with GitLab's 400 messages", async () => {
    const w = await world();
    const t = await pair(w);
    const original = await createIssue(w, t.owner, t.source);
    const move = (user = t.reporter, json: Json = { to_project_id: t.target.id }, iid = original.iid) =>
      w.as(user).post(`/projects/${t.source.id}/issues/${iid}/move`, { json });
    expect(await statusAndBody(await move(t.reporter, {}))).toEqual([400, { error: "to_project_id is missing" }]);
    expect(await statusAndBody(await move(t.reporter, { to_project_id: "x" }))).toEqual([400, { error: "to_project_id is invalid" }]);
    expect(await statusAndBody(await move(t.reporter, { to_project_id: t.source.id }))).toEqual([
      400,
      { message: "Cannot move issue to project it originates from!" },
    ]);
    const insufficient = [400, { message: "Cannot move issue due to insufficient permissions!" }];
    expect(await statusAndBody(await move(t.guest))).toEqual(insufficient);
    const elsewhere = await w.project({ visibility: "private" });
    expect(await statusAndBody(await move(t.reporter, { to_project_id: elsewhere.id }))).toEqual(insufficient);
    const archived = await w.project({ group: t.group, archived: true });
    expect(await statusAndBody(await move(t.owner, { to_project_id: archived.id }))).toEqual(insufficient);
    const task = await createIssue(w, t.owner, t.source);
    await setIssue(w, task.id, { issueType: "task" });
    expect(await statusAndBody(await move(t.owner, undefined, task.iid))).toEqual([400, { message: "Cannot move issues of 'task' type." }]);
    expect((await move()).status).toBe(201);
    // A moved issue moves no more.
    expect(await statusAndBody(await move(t.owner, { to_project_id: (await w.project({ group: t.group })).id }))).toEqual(insufficient);
  });

  it("answers 404 for a missing issue or target project, and a confidential issue the caller may not read", async () => {
    const w = await world();
    const t = await pair(w);
    const secret = await createIssue(w, t.owner, t.source, { confidential: true });
    const post = (iid: number, to: number) => w.as(t.guest).post(`/projects/${t.source.id}/issues/${iid}/move`, { json: { to_project_id: to } });
    expect(await statusAndBody(await post(999, t.target.id))).toEqual([404, { message: "404 Issue Not Found" }]);
    expect(await statusAndBody(await post(secret.iid, t.target.id))).toEqual([404, { message: "404 Issue Not Found" }]);
    const open = await createIssue(w, t.owner, t.source);
    expect(await statusAndBody(await post(open.iid, 2147483000))).toEqual([404, { message: "404 Project Not Found" }]);
  });

  requiresAuthentication((w) => w.anonymous.post(`/projects/1/issues/1/move`, { json: { to_project_id: 2 } }));
  hidesPrivateProject((w, project) => w.as(w.stranger).post(`/projects/${project.id}/issues/1/move`, { json: { to_project_id: project.id } }));
});

describe("POST /projects/:id/issues/:issue_iid/clone", () => {
  it("clones into another project as the caller, leaves the original open, copies notes only with with_notes", async () => {
    const w = await world();
    const t = await pair(w);
    const original = await createIssue(w, t.owner, t.source, { labels: "bug" });
    await w.as(t.owner).post(`/projects/${t.source.id}/issues/${original.iid}/notes`, { json: { body: "hello" } });
    const plain = await w.as(t.reporter).post(`/projects/${t.source.id}/issues/${original.iid}/clone`, { json: { to_project_id: t.target.id } });
    const [status, body] = (await statusAndBody(plain)) as [number, Json];
    expect(status).toBe(201);
    expect(body).toMatchObject({ project_id: t.target.id, iid: 1, author: { id: t.reporter.id }, labels: [], user_notes_count: 0, state: "opened" });
    expect(await userNotes(w, body.id)).toEqual([]);
    expect(await systemNotes(w, body.id)).toEqual([`cloned from ${t.source.path}#${original.iid}`]);
    expect((await systemNotes(w, original.id)).at(-1)).toBe(`cloned to ${t.target.path}#1`);
    const old = await issueRow(w, original.id);
    expect([old.state, old.movedToId]).toEqual(["opened", null]);

    const withNotes = await w.as(t.reporter).post(`/projects/${t.source.id}/issues/${original.iid}/clone`, { json: { to_project_id: t.target.id, with_notes: true } });
    const second = (await withNotes.json()) as Json;
    expect(second).toMatchObject({ iid: 2, user_notes_count: 1 });
    expect((await userNotes(w, second.id)).map((n) => n.note)).toEqual(["hello"]);
    expect([await openIssues(w, t.source.id), await openIssues(w, t.target.id)]).toEqual([1, 2]);
  });

  it("clones into the same project, and refuses as GitLab does", async () => {
    const w = await world();
    const t = await pair(w);
    const original = await createIssue(w, t.owner, t.source);
    const clone = (user = t.reporter, json: Json = { to_project_id: t.source.id }) => w.as(user).post(`/projects/${t.source.id}/issues/${original.iid}/clone`, { json });
    const same = (await (await clone()).json()) as Json;
    expect(same).toMatchObject({ project_id: t.source.id, iid: original.iid + 1 });
    expect((await systemNotes(w, same.id)).at(-1)).toBe(`cloned from #${original.iid}`);
    expect(await statusAndBody(await clone(t.guest))).toEqual([400, { message: "Cannot clone issue due to insufficient permissions!" }]);
    expect(await statusAndBody(await clone(t.reporter, { to_project_id: t.target.id, with_notes: "maybe" }))).toEqual([
      400,
      { error: "with_notes is invalid" },
    ]);
  });

  requiresAuthentication((w) => w.anonymous.post(`/projects/1/issues/1/clone`, { json: { to_project_id: 2 } }));
});

describe("PUT /projects/:id/issues/:issue_iid/reorder", () => {
  async function three(w: World) {
    const t = await pair(w);
    const list = [];
    for (const position of [10, 20, 30]) {
      const i = await createIssue(w, t.owner, t.source);
      await setIssue(w, i.id, { relativePosition: position });
      list.push(i);
    }
    return { ...t, list };
  }
  const position = async (w: World, id: number) => (await issueRow(w, id)).relativePosition!;

  it("puts the issue between move_after_id and move_before_id, and lists sorted by relative_position follow", async () => {
    const w = await world();
    const t = await three(w);
    const [a, b, c] = t.list;
    const res = await w.as(t.reporter).put(`/projects/${t.source.id}/issues/${a.iid}/reorder`, { json: { move_after_id: b.id, move_before_id: c.id } });
    const [status, body] = (await statusAndBody(res)) as [number, Json];
    expect(status).toBe(200);
    expect(body.id).toBe(a.id);
    const at = await position(w, a.id);
    expect(at > 20 && at < 30).toBe(true);
    const list = await w.as(t.reporter).get(`/projects/${t.source.id}/issues`, { query: { order_by: "relative_position", sort: "asc" } });
    expect(((await list.json()) as Json[]).map((i) => i.id)).toEqual([b.id, a.id, c.id]);
  });

  it("with one neighbour: after move_before_id, before move_after_id (GitLab's move_between), making room when needed", async () => {
    const w = await world();
    const t = await three(w);
    const [a, b, c] = t.list;
    const put = (iid: number, json: Json) => w.as(t.reporter).put(`/projects/${t.source.id}/issues/${iid}/reorder`, { json });
    expect((await put(c.iid, { move_before_id: a.id })).status).toBe(200);
    let at = await position(w, c.id);
    expect(at > 10 && at < 20).toBe(true);
    expect((await put(a.iid, { move_after_id: b.id })).status).toBe(200);
    at = await position(w, a.id);
    expect(at < 20 && at > (await position(w, c.id))).toBe(true);
    // No gap between two neighbours at 20 and 21: the upper one and what follows move up.
    await setIssue(w, c.id, { relativePosition: 21 });
    expect((await put(a.iid, { move_after_id: b.id, move_before_id: c.id })).status).toBe(200);
    const [pa, pb, pc] = [await position(w, a.id), await position(w, b.id), await position(w, c.id)];
    expect(pb < pa && pa < pc).toBe(true);
  });

  it("answers 400 without a neighbour, 422 for a neighbour elsewhere, 403 for a guest", async () => {
    const w = await world();
    const t = await three(w);
    const [a] = t.list;
    const put = (json: Json, user = t.reporter) => w.as(user).put(`/projects/${t.source.id}/issues/${a.iid}/reorder`, { json });
    expect(await statusAndBody(await put({}))).toEqual([400, { error: "move_after_id, move_before_id are missing, at least one parameter must be provided" }]);
    const stranger = await createIssue(w, w.stranger, await w.project({ owner: w.stranger }));
    expect(await statusAndBody(await put({ move_after_id: stranger.id }))).toEqual([422, { message: { error: "Unprocessable Entity" } }]);
    expect(await statusAndBody(await put({ move_after_id: 0 }))).toEqual([422, { message: { error: "Unprocessable Entity" } }]);
    expect(await statusAndBody(await put({ move_after_id: t.list[1].id }, t.guest))).toEqual([403, { message: "403 Forbidden" }]);
    // Another project of the same top-level group shares the order.
    const sibling = await createIssue(w, t.owner, t.target);
    expect((await put({ move_after_id: sibling.id })).status).toBe(200);
  });

  requiresAuthentication((w) => w.anonymous.put(`/projects/1/issues/1/reorder`, { json: { move_after_id: 1 } }));
});
