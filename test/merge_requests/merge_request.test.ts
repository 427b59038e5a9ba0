import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { createMergeRequest, queryCount, type Json } from "../helpers/api";
import { insertIssue } from "../helpers/noteables";
import { rows } from "../helpers/db";

describe("GET /projects/:id/merge_requests/:merge_request_iid", () => {
  it("answers the full entity with user.can_merge for the caller", async () => {
    const w = await world();
    const dev = await w.user();
    const guest = await w.user();
    // Guests read merge requests of public and internal projects only (ProjectPolicy `public_access`).
    const project = await w.project({ visibility: "public", developers: [dev], guests: [guest] });
    const mr = await createMergeRequest(w, dev, project, { description: "- [x] done\n- [ ] todo" });
    const asDev = await w.as(dev).get(`/projects/${project.id}/merge_requests/${mr.iid}`);
    expect(asDev.status).toBe(200);
    const body = (await asDev.json()) as Json;
    expect(body).toMatchObject({ id: mr.id, user: { can_merge: true }, task_completion_status: { count: 2, completed_count: 1 }, subscribed: true });
    expect(body).toHaveProperty("head_pipeline", null);
    expect(queryCount(asDev)).toBeLessThanOrEqual(3);
    // Guests read pipelines only when jobs are public (ProjectPolicy `public_builds & guest`).
    await rows(w, sql`UPDATE projects SET public_jobs = false WHERE id = ${project.id}`);
    const asGuest = (await (await w.as(guest).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).json()) as Json;
    expect(asGuest).toMatchObject({ user: { can_merge: false }, subscribed: false });
    expect(asGuest).not.toHaveProperty("head_pipeline");
  });

  it("renders the optional fields GitLab adds on request", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const mr = await createMergeRequest(w, dev, project, { title: "A <b>bold</b> move", description: "x & y" });
    const plain = (await (await w.as(dev).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).json()) as Json;
    expect(plain).not.toHaveProperty("title_html");
    expect(plain).not.toHaveProperty("rebase_in_progress");
    const res = await w.as(dev).get(`/projects/${project.id}/merge_requests/${mr.iid}`, {
      query: { render_html: true, include_rebase_in_progress: true, include_diverged_commits_count: true },
    });
    expect(await res.json()).toMatchObject({
      title_html: "A &lt;b&gt;bold&lt;/b&gt; move",
      description_html: "<p>x &amp; y</p>",
      rebase_in_progress: false,
      diverged_commits_count: 0,
    });
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/merge_requests/abc`))).toEqual([400, { error: "merge_request_iid is invalid" }]);
  });

  it("renders title_html on one line and description_html as GitLab Flavored Markdown, references resolved for the caller", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const issue = await w.issue(project, { title: "The bug" });
    const mr = await createMergeRequest(w, dev, project, { title: "Fix #1 :tada: **now**", description: "Closes #1\n\n- [x] tested" });
    const res = await w.as(dev).get(`/projects/${project.id}/merge_requests/${mr.iid}`, { query: { render_html: true } });
    const body = (await res.json()) as Json;
    const link = `data-issue="${issue.id}" data-project-path="${project.fullPath}" data-iid="1" data-issue-type="issue" data-container="body" data-placement="top" title="The bug" class="gfm gfm-issue">#1</a>`;
    expect(body.title_html).toContain(link);
    expect(body.title_html).toContain('<gl-emoji title="party popper" data-name="tada">🎉</gl-emoji> **now**');
    expect(body.description_html).toMatch(/^<p>Closes <a href="[^"]+\/-\/issues\/1" /);
    expect(body.description_html).toContain(link);
    expect(body.description_html).toContain('<ul class="task-list">\n<li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" checked disabled> tested</li>');
  });

  it("answers 404 for a missing merge request and 403 in a project without merge requests", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/merge_requests/99`))).toEqual([404, { message: "404 Merge Request Not Found" }]);
    await createMergeRequest(w, dev, project);
    await rows(w, sql`UPDATE projects SET merge_requests_enabled = false WHERE id = ${project.id}`);
    // `find_merge_request_with_access`: found, then `authorize! :read_merge_request` fails.
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/merge_requests/1`))).toEqual([403, { message: "403 Forbidden" }]);
  });

  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/merge_requests/1`));
});

describe("PUT /projects/:id/merge_requests/:merge_request_iid", () => {
  it("updates fields and writes GitLab's system notes and resource events", async () => {
    const w = await world();
    const dev = await w.user();
    const [a, b] = [await w.user(), await w.user()];
    const project = await w.project({ developers: [dev, a, b] });
    const mr = await createMergeRequest(w, dev, project, { title: "Draft: Fix a bug", labels: "old", assignee_ids: [a.id] });
    const res = await w.as(dev).put(`/projects/${project.id}/merge_requests/${mr.iid}`, {
      json: {
        title: "Fix the bug",
        description: "New words",
        target_branch: "release",
        assignee_ids: [b.id],
        reviewer_ids: [a.id],
        labels: "new",
        discussion_locked: true,
      },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      title: "Fix the bug",
      draft: false,
      description: "New words",
      target_branch: "release",
      assignees: [{ id: b.id }],
      reviewers: [{ id: a.id }],
      labels: ["new"],
      discussion_locked: true,
    });
    const notes = await rows(w, sql`SELECT note FROM notes WHERE noteable_type = 'MergeRequest' AND noteable_id = ${mr.id} AND system ORDER BY id`);
    expect(notes.map((n) => n.note)).toEqual([
      "marked this merge request as **ready**",
      "changed title from **{-Draft: -}Fix {-a-} bug** to **Fix {+the+} bug**",
      "changed the description",
      "changed target branch from `main` to `release`",
      "locked this merge request",
      `assigned to @${b.username} and unassigned @${a.username}`,
      `requested review from @${a.username}`,
    ]);
    const events = await rows(w, sql`SELECT e.action, l.title FROM resource_label_events e JOIN labels l ON l.id = e.label_id
      WHERE e.merge_request_id = ${mr.id} ORDER BY e.id`);
    expect(events).toEqual([
      { action: "add", title: "old" },
      { action: "add", title: "new" },
      { action: "remove", title: "old" },
    ]);
    const todos = await rows(w, sql`SELECT user_id, action FROM todos WHERE target_type = 'MergeRequest' AND target_id = ${mr.id} ORDER BY id`);
    // `a` already has a pending to-do (assigned at creation): no review to-do; `b` is newly assigned.
    expect(todos).toEqual([
      { user_id: a.id, action: 1 },
      { user_id: b.id, action: 1 },
    ]);
  });

  it("closes and reopens with closed_by, closed_at, state events and the closer's to-dos done", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const mr = await createMergeRequest(w, dev, project, { assignee_ids: [dev.id] });
    const closed = (await (await w.as(dev).put(`/projects/${project.id}/merge_requests/${mr.iid}`, { json: { state_event: "close" } })).json()) as Json;
    expect(closed).toMatchObject({ state: "closed", closed_by: { id: dev.id }, user: { can_merge: false } });
    expect(closed.closed_at).toEqual(expect.any(String));
    expect(await rows(w, sql`SELECT state FROM todos WHERE target_type = 'MergeRequest' AND target_id = ${mr.id}`)).toEqual([{ state: "done" }]);
    const reopened = (await (await w.as(dev).put(`/projects/${project.id}/merge_requests/${mr.iid}`, { json: { state_event: "reopen" } })).json()) as Json;
    expect(reopened).toMatchObject({ state: "opened", closed_by: null, closed_at: null });
    expect(await rows(w, sql`SELECT state, user_id FROM resource_state_events WHERE merge_request_id = ${mr.id} ORDER BY id`)).toEqual([
      { state: "closed", user_id: dev.id },
      { state: "reopened", user_id: dev.id },
    ]);
  });

  it("marks the updater's pending to-dos done on a meaningful change only", async () => {
    const w = await world();
    const author = await w.user();
    const dev = await w.user();
    const project = await w.project({ developers: [author, dev] });
    const mr = await createMergeRequest(w, author, project, { assignee_ids: [dev.id] });
    const state = async () => (await rows(w, sql`SELECT state FROM todos WHERE user_id = ${dev.id} AND target_id = ${mr.id}`))[0].state;
    await w.as(dev).put(`/projects/${project.id}/merge_requests/${mr.iid}`, { json: { squash: true } });
    expect(await state()).toBe("pending");
    await w.as(dev).put(`/projects/${project.id}/merge_requests/${mr.iid}`, { json: { title: "Retitled" } });
    expect(await state()).toBe("done");
  });

  it("refuses to reopen over another open merge request of the same branches", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const first = await createMergeRequest(w, dev, project);
    await w.as(dev).put(`/projects/${project.id}/merge_requests/${first.iid}`, { json: { state_event: "close" } });
    await createMergeRequest(w, dev, project, { source_branch: first.source_branch });
    const res = await w.as(dev).put(`/projects/${project.id}/merge_requests/${first.iid}`, { json: { state_event: "reopen" } });
    expect(await statusAndBody(res)).toEqual([409, { message: ["Another open merge request already exists for this source branch: !2"] }]);
  });

  it("rebuilds closing issues when the description changes", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const one = await insertIssue(w, project);
    const two = await insertIssue(w, project);
    const mr = await createMergeRequest(w, dev, project, { description: `Closes #${one.iid}` });
    await w.as(dev).put(`/projects/${project.id}/merge_requests/${mr.iid}`, { json: { description: `Resolves #${two.iid}` } });
    expect(await rows(w, sql`SELECT issue_id FROM merge_requests_closing_issues WHERE merge_request_id = ${mr.id}`)).toEqual([{ issue_id: two.id }]);
    // Cross references stay (GitLab never removes "mentioned in" notes).
    const refs = await rows(w, sql`SELECT issue_id FROM issue_merge_request_references WHERE merge_request_id = ${mr.id} ORDER BY issue_id`);
    expect(refs.map((r) => r.issue_id)).toEqual([one.id, two.id]);
  });

  it("lets the author update their merge request without developer access", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ developers: [author] });
    const mr = await createMergeRequest(w, author, project);
    await rows(w, sql`UPDATE members SET access_level = 10 WHERE source_type = 'Project' AND source_id = ${project.id} AND user_id = ${author.id}`);
    const res = await w.as(author).put(`/projects/${project.id}/merge_requests/${mr.iid}`, { json: { title: "Mine", labels: "ignored" } });
    expect(res.status).toBe(200);
    // Labels need admin_merge_request (IssuableBaseService#filter_params): silently dropped.
    expect(await res.json()).toMatchObject({ title: "Mine", labels: [] });
  });

  it("answers 400 for nothing to update and for a blank title", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const mr = await createMergeRequest(w, dev, project);
    const none = await w.as(dev).put(`/projects/${project.id}/merge_requests/${mr.iid}`, { json: {} });
    expect(await statusAndBody(none)).toEqual([
      400,
      {
        error:
          "assignee_id, assignee_ids, reviewer_ids, description, labels, add_labels, remove_labels, milestone_id, remove_source_branch, allow_collaboration, allow_maintainer_to_push, squash, target_branch, title, state_event, discussion_locked are missing, at least one parameter must be provided",
      },
    ]);
    const blank = await w.as(dev).put(`/projects/${project.id}/merge_requests/${mr.iid}`, { json: { title: "" } });
    expect(await statusAndBody(blank)).toEqual([400, { error: "title is empty" }]);
    const event = await w.as(dev).put(`/projects/${project.id}/merge_requests/${mr.iid}`, { json: { state_event: "merge" } });
    expect(await statusAndBody(event)).toEqual([400, { error: "state_event does not have a valid value" }]);
  });

  forbidsRoles(["reporter"], async (w, p, u) => {
    const owner = await w.user();
    await w.addMembers("Project", p.id, { developers: [owner] });
    const mr = await createMergeRequest(w, owner, p);
    return w.as(u).put(`/projects/${p.id}/merge_requests/${mr.iid}`, { json: { title: "x" } });
  });

  // `find_merge_request_with_access(iid, :update_merge_request)`: found, then authorized.
  it("answers 403 to a guest of a private project, who may not read someone else's merge request", async () => {
    const w = await world();
    const owner = await w.user();
    const guest = await w.user();
    const p = await w.project({ visibility: "private", developers: [owner], guests: [guest] });
    const mr = await createMergeRequest(w, owner, p);
    const res = await w.as(guest).put(`/projects/${p.id}/merge_requests/${mr.iid}`, { json: { title: "x" } });
    expect(await statusAndBody(res)).toEqual([403, { message: "403 Forbidden" }]);
  });
  requiresAuthentication((w) => w.anonymous.put(`/projects/1/merge_requests/1`, { json: { title: "x" } }));
});

describe("DELETE /projects/:id/merge_requests/:merge_request_iid", () => {
  it("deletes for owners with 204 and removes polymorphic rows", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const mr = await createMergeRequest(w, owner, project, { labels: "x", assignee_ids: [owner.id] });
    const res = await w.as(owner).delete(`/projects/${project.id}/merge_requests/${mr.iid}`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(await rows(w, sql`SELECT 1 FROM merge_requests WHERE id = ${mr.id}`)).toEqual([]);
    expect(await rows(w, sql`SELECT 1 FROM label_links WHERE target_type = 'MergeRequest' AND target_id = ${mr.id}`)).toEqual([]);
    expect(await rows(w, sql`SELECT 1 FROM todos WHERE target_type = 'MergeRequest' AND target_id = ${mr.id}`)).toEqual([]);
    expect((await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).status).toBe(404);
  });

  it("answers 412 when the merge request changed after If-Unmodified-Since", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const mr = await createMergeRequest(w, owner, project);
    const res = await w.as(owner).delete(`/projects/${project.id}/merge_requests/${mr.iid}`, { headers: { "If-Unmodified-Since": "Thu, 01 Jan 2015 00:00:00 GMT" } });
    expect(await statusAndBody(res)).toEqual([412, { message: "412 Precondition Failed" }]);
  });

  forbidsRoles(["developer", "maintainer"], async (w, p, u) => {
    const author = await w.user();
    await w.addMembers("Project", p.id, { developers: [author] });
    const mr = await createMergeRequest(w, author, p);
    return w.as(u).delete(`/projects/${p.id}/merge_requests/${mr.iid}`);
  });
});
