import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { branch, commit, createMergeRequest, mergeFixture, queryCount, type Json } from "../helpers/api";
import { insertIssue } from "../helpers/noteables";
import { rows } from "../helpers/db";

const mrPath = (project: { id: number }, iid: number | string, rest: string) => `/projects/${project.id}/merge_requests/${iid}/${rest}`;

describe("GET /projects/:id/merge_requests/:merge_request_iid/participants", () => {
  it("lists the author, the commenters, the assignees and the reviewers once each, as UserBasic", async () => {
    const w = await world();
    const [dev, commenter, reviewer] = [await w.user(), await w.user(), await w.user()];
    const { owner, project, mr } = await mergeFixture(w, { developers: [dev, reviewer], reporters: [commenter], mr: { assignee_ids: [dev.id], reviewer_ids: [reviewer.id] } });
    expect((await w.as(commenter).post(mrPath(project, mr.iid, "notes"), { json: { body: "Looks fine" } })).status).toBe(201);
    expect((await w.as(dev).post(mrPath(project, mr.iid, "notes"), { json: { body: "Thanks" } })).status).toBe(201);
    const res = await w.as(owner).get(mrPath(project, mr.iid, "participants"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("4");
    const body = (await res.json()) as Json[];
    expect(body.map((u) => u.id)).toEqual([owner.id, commenter.id, dev.id, reviewer.id]);
    expect(body[0]).toEqual({
      id: owner.id,
      username: owner.username,
      name: owner.name,
      state: "active",
      avatar_url: expect.any(String),
      web_url: expect.stringContaining(`/${owner.username}`),
    });
    const page = await w.as(owner).get(mrPath(project, mr.iid, "participants?per_page=2&page=2"));
    expect(((await page.json()) as Json[]).map((u) => u.id)).toEqual([dev.id, reviewer.id]);
  });

  it("costs the same statements whatever the number of participants (no N+1)", async () => {
    const w = await world();
    const commenters = [await w.user(), await w.user(), await w.user()];
    const { owner, project, mr } = await mergeFixture(w, { reporters: commenters });
    const count = async () => queryCount(await w.as(owner).get(mrPath(project, mr.iid, "participants")));
    const alone = await count();
    expect(alone).toBeGreaterThan(0);
    for (const user of commenters) expect((await w.as(user).post(mrPath(project, mr.iid, "notes"), { json: { body: "Hi" } })).status).toBe(201);
    expect(await count()).toBe(alone);
  });

  it("leaves out participants who can no longer read the project", async () => {
    const w = await world();
    const commenter = await w.user();
    const { owner, project, mr } = await mergeFixture(w, { reporters: [commenter] });
    expect((await w.as(commenter).post(mrPath(project, mr.iid, "notes"), { json: { body: "Hi" } })).status).toBe(201);
    await rows(w, sql`DELETE FROM members WHERE source_type = 'Project' AND source_id = ${project.id} AND user_id = ${commenter.id}`);
    expect(((await (await w.as(owner).get(mrPath(project, mr.iid, "participants"))).json()) as Json[]).map((u) => u.id)).toEqual([owner.id]);
  });

  it("answers 400 for bad input, 403 to who sees the project but not the merge request, 404 to who sees neither", async () => {
    const w = await world();
    const guest = await w.user();
    const { owner, project, mr } = await mergeFixture(w, { guests: [guest] });
    expect(await statusAndBody(await w.as(owner).get(mrPath(project, mr.iid, "participants?page=0")))).toEqual([400, { error: "page does not have a valid value" }]);
    expect(await statusAndBody(await w.as(owner).get(mrPath(project, "x", "participants")))).toEqual([400, { error: "merge_request_iid is invalid" }]);
    expect(await statusAndBody(await w.as(guest).get(mrPath(project, mr.iid, "participants")))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.get(mrPath(project, mr.iid, "participants")))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(mrPath(project, mr.iid, "participants")))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("GET /projects/:id/merge_requests/:merge_request_iid/closes_issues", () => {
  it("lists the issues the description and the commit messages close, that the caller reads, as IssueBasic", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner, visibility: "public" });
    const [a, b, secret, mentioned] = [
      await insertIssue(w, project, { title: "A" }),
      await insertIssue(w, project, { title: "B" }),
      await insertIssue(w, project, { title: "Secret", confidential: true }),
      await insertIssue(w, project, { title: "Only mentioned" }),
    ];
    await commit(w, owner, project, "main", "Initial commit", [{ action: "create", file_path: "a.txt", content: "a\n" }]);
    const source = branch();
    await commit(w, owner, project, source, `Fix it\n\nFixes #${b.iid}`, [{ action: "create", file_path: "b.txt", content: "b\n" }], { start_branch: "main" });
    const mr = await createMergeRequest(w, owner, project, {
      source_branch: source,
      target_branch: "main",
      description: `Closes #${a.iid} and #${secret.iid}, see #${mentioned.iid}`,
    });
    const res = await w.as(owner).get(mrPath(project, mr.iid, "closes_issues"));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((i) => i.iid)).toEqual([a.iid, secret.iid, b.iid]);
    expect(body[0]).toMatchObject({ id: a.id, iid: a.iid, project_id: project.id, title: "A", state: "opened" });
    expect(res.headers.get("x-total")).toBe("3");
    // Anonymous callers do not read the confidential issue.
    const anonymous = (await (await w.anonymous.get(mrPath(project, mr.iid, "closes_issues"))).json()) as Json[];
    expect(anonymous.map((i) => i.iid)).toEqual([a.iid, b.iid]);
    const page = await w.as(owner).get(mrPath(project, mr.iid, "closes_issues?per_page=1&page=3"));
    expect(((await page.json()) as Json[]).map((i) => i.iid)).toEqual([b.iid]);
  });

  it("is empty for a merge request into another branch than the default one", async () => {
    const w = await world();
    const { owner, project } = await mergeFixture(w);
    const issue = await insertIssue(w, project);
    await commit(w, owner, project, "stable", "Stable", [{ action: "create", file_path: "s.txt", content: "s\n" }], { start_branch: "main" });
    const mr = await createMergeRequest(w, owner, project, { target_branch: "stable", source_branch: "main", description: `Closes #${issue.iid}` });
    expect(await statusAndBody(await w.as(owner).get(mrPath(project, mr.iid, "closes_issues")))).toEqual([200, []]);
  });

  it("answers 400 for bad input, 403 to who sees the project but not the merge request, 404 to who sees neither", async () => {
    const w = await world();
    const guest = await w.user();
    const { owner, project, mr } = await mergeFixture(w, { guests: [guest] });
    expect(await statusAndBody(await w.as(owner).get(mrPath(project, mr.iid, "closes_issues?per_page=abc")))).toEqual([400, { error: "per_page is invalid" }]);
    expect(await statusAndBody(await w.as(guest).get(mrPath(project, mr.iid, "closes_issues")))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.get(mrPath(project, mr.iid, "closes_issues")))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});
