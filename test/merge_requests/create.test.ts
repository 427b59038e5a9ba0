import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { branch, commit, createMergeRequest, type Json } from "../helpers/api";
import { insertIssue } from "../helpers/noteables";
import { rows } from "../helpers/db";

describe("POST /projects/:id/merge_requests", () => {
  it("creates an open merge request with assignees, reviewers, labels and milestone", async () => {
    const w = await world();
    const dev = await w.user();
    const other = await w.user();
    const project = await w.project({ developers: [dev, other] });
    const [milestone] = await rows(w, sql`INSERT INTO milestones (iid, project_id, title) VALUES (1, ${project.id}, 'v1') RETURNING id`);
    const source = branch();
    const res = await w.as(dev).post(`/projects/${project.id}/merge_requests`, {
      json: {
        title: "Add the thing",
        description: "Body",
        source_branch: source,
        target_branch: "main",
        assignee_ids: [other.id],
        reviewer_ids: [dev.id],
        labels: "backend,bug",
        milestone_id: milestone.id,
        remove_source_branch: true,
        squash: true,
      },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, any>;
    expect(body).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: "Add the thing",
      description: "Body",
      state: "opened",
      source_branch: source,
      target_branch: "main",
      source_project_id: project.id,
      target_project_id: project.id,
      author: { id: dev.id, username: dev.username },
      assignees: [{ id: other.id }],
      assignee: { id: other.id },
      reviewers: [{ id: dev.id }],
      labels: ["backend", "bug"],
      milestone: { id: milestone.id, title: "v1" },
      draft: false,
      work_in_progress: false,
      merge_status: "unchecked",
      sha: null,
      merge_commit_sha: null,
      diff_refs: null,
      force_remove_source_branch: true,
      squash: true,
      reference: "!1",
      references: { short: "!1", relative: "!1", full: `${project.fullPath}!1` },
      web_url: `http://edgeforge.test/${project.fullPath}/-/merge_requests/1`,
      user: { can_merge: true },
      subscribed: true,
    });
    // The labels did not exist: a developer may create them (Labels::FindOrCreateService), with GitLab's default colour.
    const labels = await rows(w, sql`SELECT title, color FROM labels WHERE project_id = ${project.id} ORDER BY title`);
    expect(labels).toEqual([
      { title: "backend", color: "#6699cc" },
      { title: "bug", color: "#6699cc" },
    ]);
    const events = await rows(w, sql`SELECT action FROM resource_label_events WHERE merge_request_id = ${body.id}`);
    expect(events).toEqual([{ action: "add" }, { action: "add" }]);
    const milestoneEvents = await rows(w, sql`SELECT action, milestone_id FROM resource_milestone_events WHERE merge_request_id = ${body.id}`);
    expect(milestoneEvents).toEqual([{ action: "add", milestone_id: milestone.id }]);
  });

  it("answers the first diff version: sha, diff_refs and changes_count (15.4's after_create ensure_merge_request_diff)", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const base = await commit(w, owner, project, "main", "Initial commit", [{ action: "create", file_path: "a.txt", content: "a\n" }]);
    const source = branch();
    const head = await commit(w, owner, project, source, "Add b", [{ action: "create", file_path: "b.txt", content: "b\n" }], { start_branch: "main" });
    const res = await w.as(owner).post(`/projects/${project.id}/merge_requests`, { json: { title: "Add b", source_branch: source, target_branch: "main" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ sha: head, diff_refs: { base_sha: base, start_sha: base, head_sha: head }, changes_count: "1", merge_status: "can_be_merged" });
    const versions = await rows(w, sql`SELECT head_commit_sha, base_commit_sha, start_commit_sha FROM merge_request_diffs WHERE merge_request_id = ${body.id}`);
    expect(versions).toEqual([{ head_commit_sha: head, base_commit_sha: base, start_commit_sha: base }]);
    // The first read finds nothing moved: the same version, no second one.
    const read = (await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${body.iid}`)).json()) as Json;
    expect(read).toMatchObject({ sha: head, diff_refs: body.diff_refs, merge_status: "can_be_merged" });
    expect(await rows(w, sql`SELECT count(*)::int AS n FROM merge_request_diffs WHERE merge_request_id = ${body.id}`)).toEqual([{ n: 1 }]);
  });

  it("creates to-dos for assignees, reviewers and mentioned users, one each", async () => {
    const w = await world();
    const dev = await w.user();
    const [assignee, reviewer, mentioned, outsider] = [await w.user(), await w.user(), await w.user(), await w.user()];
    const project = await w.project({ developers: [dev, assignee, reviewer], reporters: [mentioned] });
    const mr = await createMergeRequest(w, dev, project, {
      description: `@${mentioned.username} please look; cc @${assignee.username} @${outsider.username}`,
      assignee_ids: [assignee.id],
      reviewer_ids: [reviewer.id],
    });
    const todos = await rows(w, sql`SELECT user_id, action, author_id, project_id, state FROM todos
      WHERE target_type = 'MergeRequest' AND target_id = ${mr.id} ORDER BY user_id`);
    expect(todos).toEqual(
      [
        { user_id: assignee.id, action: 1, author_id: dev.id, project_id: project.id, state: "pending" },
        { user_id: reviewer.id, action: 9, author_id: dev.id, project_id: project.id, state: "pending" },
        { user_id: mentioned.id, action: 7, author_id: dev.id, project_id: project.id, state: "pending" },
      ].sort((a, b) => a.user_id - b.user_id),
    );
  });

  it("records the issues the description closes and references, with cross-reference notes", async () => {
    const w = await world();
    const dev = await w.user();
    const group = await w.group({ developers: [dev] });
    const project = await w.project({ group });
    const sibling = await w.project({ group });
    const closed = await insertIssue(w, project, { title: "closed one" });
    const mentioned = await insertIssue(w, project, { title: "mentioned" });
    const elsewhere = await insertIssue(w, sibling, { title: "elsewhere" });
    const mr = await createMergeRequest(w, dev, project, {
      title: "Fix things",
      description: `Closes #${closed.iid} and ${sibling.path}#${elsewhere.iid}\n\nSee also #${mentioned.iid}, and \`#999\` in code.`,
    });
    const closing = await rows(w, sql`SELECT issue_id FROM merge_requests_closing_issues WHERE merge_request_id = ${mr.id} ORDER BY issue_id`);
    expect(closing.map((r) => r.issue_id)).toEqual([closed.id, elsewhere.id].sort((a, b) => a - b));
    const refs = await rows(w, sql`SELECT issue_id FROM issue_merge_request_references WHERE merge_request_id = ${mr.id} ORDER BY issue_id`);
    expect(refs.map((r) => r.issue_id)).toEqual([closed.id, mentioned.id, elsewhere.id].sort((a, b) => a - b));
    const notes = await rows(w, sql`SELECT noteable_id, note, system, author_id FROM notes
      WHERE noteable_type = 'Issue' AND noteable_id IN (${closed.id}, ${elsewhere.id}) ORDER BY noteable_id`);
    expect(notes).toEqual([
      { noteable_id: closed.id, note: "mentioned in merge request !1", system: true, author_id: dev.id },
      { noteable_id: elsewhere.id, note: `mentioned in merge request ${project.path}!1`, system: true, author_id: dev.id },
    ]);
  });

  it("closes issues only towards the default branch", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const issue = await insertIssue(w, project);
    const mr = await createMergeRequest(w, dev, project, { target_branch: "develop", description: `Fixes #${issue.iid}` });
    expect(await rows(w, sql`SELECT 1 FROM merge_requests_closing_issues WHERE merge_request_id = ${mr.id}`)).toEqual([]);
    expect(await rows(w, sql`SELECT issue_id FROM issue_merge_request_references WHERE merge_request_id = ${mr.id}`)).toEqual([{ issue_id: issue.id }]);
  });

  it("marks drafts from the title", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const mr = await createMergeRequest(w, dev, project, { title: "Draft: not yet" });
    expect(mr).toMatchObject({ draft: true, work_in_progress: true, title: "Draft: not yet" });
  });

  it("answers 400 with Grape's messages for missing parameters", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const res = await w.as(dev).post(`/projects/${project.id}/merge_requests`, { json: {} });
    expect(await statusAndBody(res)).toEqual([400, { error: "title is missing, source_branch is missing, target_branch is missing" }]);
  });

  it("answers GitLab's model errors", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const same = await w.as(dev).post(`/projects/${project.id}/merge_requests`, { json: { title: "x", source_branch: "main", target_branch: "main" } });
    expect(await statusAndBody(same)).toEqual([422, { message: ["You can't use same project/branch for source and target"] }]);
    const bad = await w.as(dev).post(`/projects/${project.id}/merge_requests`, { json: { title: "", source_branch: "a..b", target_branch: "main" } });
    expect(await statusAndBody(bad)).toEqual([400, { message: { title: ["can't be blank"], source_branch: ["is invalid"] } }]);
  });

  it("answers 409 when an open merge request has the same branches", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const source = branch();
    await createMergeRequest(w, dev, project, { source_branch: source });
    const res = await w.as(dev).post(`/projects/${project.id}/merge_requests`, { json: { title: "again", source_branch: source, target_branch: "main" } });
    expect(await statusAndBody(res)).toEqual([409, { message: ["Another open merge request already exists for this source branch: !1"] }]);
    expect(await rows(w, sql`SELECT count(*)::int AS n FROM merge_requests WHERE project_id = ${project.id}`)).toEqual([{ n: 1 }]);
  });

  it("ignores assignees who cannot read the merge request", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const mr = await createMergeRequest(w, dev, project, { assignee_ids: [w.stranger.id] });
    expect(mr.assignees).toEqual([]);
  });

  requiresAuthentication((w) => w.anonymous.post(`/projects/1/merge_requests`, { json: { title: "x", source_branch: "a", target_branch: "b" } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).post(`/projects/${p.id}/merge_requests`, { json: { title: "x", source_branch: "a", target_branch: "b" } }));
  forbidsRoles(["guest", "reporter"], (w, p, u) => w.as(u).post(`/projects/${p.id}/merge_requests`, { json: { title: "x", source_branch: "a", target_branch: "b" } }));
});
