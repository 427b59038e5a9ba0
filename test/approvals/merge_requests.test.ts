import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type TestUser, type World } from "../helpers/world";
import { insertMergeRequest } from "../helpers/noteables";
import { protectBranch, setBranch } from "../helpers/git";
import { rows } from "../helpers/db";
import { type Json } from "../helpers/api";

let w: World;
beforeAll(async () => {
  w = await world();
});

async function fixture(opts: { visibility?: "public" | "private"; settings?: Json } = {}) {
  const [author, maintainer, dev1, dev2, reporter, guest] = await Promise.all([w.user(), w.user(), w.user(), w.user(), w.user(), w.user()]);
  const project = await w.project({
    visibility: opts.visibility ?? "public",
    maintainers: [maintainer],
    developers: [author, dev1, dev2],
    reporters: [reporter],
    guests: [guest],
  });
  if (opts.settings) {
    const res = await w.as(maintainer).post(`/projects/${project.id}/approvals`, { json: opts.settings });
    if (res.status !== 201) throw new Error(`settings: ${res.status} ${await res.text()}`);
  }
  const mr = await insertMergeRequest(w, project, { authorId: author.id, sourceBranch: "feature", targetBranch: "main" });
  const base = `/projects/${project.id}/merge_requests/${mr.iid}`;
  return { project, mr, base, author, maintainer, dev1, dev2, reporter, guest };
}

async function rule(u: TestUser, project: { id: number }, json: Json): Promise<Json> {
  const res = await w.as(u).post(`/projects/${project.id}/approval_rules`, { json });
  if (res.status !== 201) throw new Error(`rule: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

const ids = (list: Json[]) => list.map((x) => x.id);

async function systemNotes(mrId: number): Promise<string[]> {
  const found = await rows<{ note: string }>(w, sql`SELECT note FROM notes WHERE noteable_type = 'MergeRequest' AND noteable_id = ${mrId} AND system ORDER BY id`);
  return found.map((n) => n.note);
}

describe("GET /projects/:id/merge_requests/:merge_request_iid/approvals", () => {
  it("without rules falls back to the project's approvals_before_merge", async () => {
    const { base, mr, project, dev1, author } = await fixture({ settings: { approvals_before_merge: 2 } });
    const res = await w.as(dev1).get(`${base}/approvals`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toEqual({
      id: mr.id,
      iid: mr.iid,
      project_id: project.id,
      title: "A change",
      description: null,
      state: "opened",
      created_at: expect.any(String),
      updated_at: expect.any(String),
      merge_status: "unchecked",
      approved: false,
      approvals_required: 2,
      approvals_left: 2,
      require_password_to_approve: false,
      approved_by: [],
      suggested_approvers: [],
      approvers: [],
      approver_groups: [],
      user_has_approved: false,
      user_can_approve: true,
      approval_rules_left: [],
      has_approval_rules: false,
      merge_request_approvers_available: true,
      multiple_approval_rules_available: true,
      invalid_approvers_rules: [],
    });
    // The author may not approve while merge_requests_author_approval is off; anonymous readers of a public project see the state.
    expect(((await (await w.as(author).get(`${base}/approvals`)).json()) as Json).user_can_approve).toBe(false);
    expect(await w.anonymous.get(`${base}/approvals`).then((r) => r.json())).toMatchObject({ approved: false, user_can_approve: false, user_has_approved: false });
  });

  it("computes approvals from the rules that apply to the target branch", async () => {
    const { base, project, maintainer, dev1, dev2 } = await fixture();
    const security = await rule(maintainer, project, { name: "security", approvals_required: 1, user_ids: [dev1.id] });
    const branchId = await protectBranch(w, project, "release/*");
    await rule(maintainer, project, { name: "release only", approvals_required: 3, user_ids: [dev2.id], protected_branch_ids: [branchId] });
    const body = (await (await w.as(dev2).get(`${base}/approvals`)).json()) as Json;
    expect(body).toMatchObject({
      approved: false,
      approvals_required: 1,
      approvals_left: 1,
      has_approval_rules: true,
      user_can_approve: false,
      approval_rules_left: [{ id: security.id, name: "security", rule_type: "regular" }],
    });
    expect(ids(body.suggested_approvers)).toEqual([dev1.id]);
    expect(((await (await w.as(dev1).get(`${base}/approvals`)).json()) as Json).user_can_approve).toBe(true);
  });

  it("fails open on a rule nobody can satisfy (invalid_approvers_rules)", async () => {
    const { base, project, maintainer, author } = await fixture();
    const onlyAuthor = await rule(maintainer, project, { name: "author only", approvals_required: 1, user_ids: [author.id] });
    const body = (await (await w.as(maintainer).get(`${base}/approvals`)).json()) as Json;
    expect(body).toMatchObject({ approved: true, approvals_left: 0, invalid_approvers_rules: [{ id: onlyAuthor.id, name: "author only", rule_type: "regular" }] });
  });

  // `find_merge_request_with_access`: a merge request of a visible project the caller may not read is 403.
  it("is 404 for a project the caller may not read, 403 for such a merge request, and 400 for a bad iid", async () => {
    const { project, mr } = await fixture({ visibility: "private" });
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/merge_requests/${mr.iid}/approvals`))).toEqual([404, { message: "404 Project Not Found" }]);
    const other = await fixture({ visibility: "private" });
    expect(await statusAndBody(await w.as(other.guest).get(`${other.base}/approvals`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(other.reporter).get(`/projects/${other.project.id}/merge_requests/9999/approvals`))).toEqual([404, { message: "404 Merge Request Not Found" }]);
    expect(await statusAndBody(await w.as(other.reporter).get(`/projects/${other.project.id}/merge_requests/abc/approvals`))).toEqual([400, { error: "merge_request_iid is invalid" }]);
  });
});

describe("POST /projects/:id/merge_requests/:merge_request_iid/approve", () => {
  it("approves once, writes GitLab's system note and resolves the approver's to-dos", async () => {
    const { base, mr, project, maintainer, dev1, dev2 } = await fixture();
    await rule(maintainer, project, { name: "security", approvals_required: 1, user_ids: [dev1.id] });
    await w.db((db) =>
      db.execute(sql`INSERT INTO todos (user_id, author_id, project_id, target_type, target_id, action, state, body)
        VALUES (${dev1.id}, ${maintainer.id}, ${project.id}, 'MergeRequest', ${mr.id}, 5, 'pending', 'A change')`),
    );
    const res = await w.as(dev1).post(`${base}/approve`);
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ approved: true, approvals_left: 0, user_has_approved: true, user_can_approve: false, approval_rules_left: [] });
    expect(body.approved_by).toEqual([{ user: expect.objectContaining({ id: dev1.id, username: dev1.username }) }]);
    expect(await systemNotes(mr.id)).toEqual(["approved this merge request"]);
    expect(await rows(w, sql`SELECT state FROM todos WHERE user_id = ${dev1.id} AND target_id = ${mr.id}`)).toEqual([{ state: "done" }]);
    // Approving twice is refused; once the rules are met any developer may add an approval.
    expect(await statusAndBody(await w.as(dev1).post(`${base}/approve`))).toEqual([401, { message: "401 Unauthorized" }]);
    const second = (await (await w.as(dev2).post(`${base}/approve`)).json()) as Json;
    expect(ids(second.approved_by.map((a: Json) => a.user))).toEqual([dev1.id, dev2.id]);
    expect(await systemNotes(mr.id)).toEqual(["approved this merge request", "approved this merge request"]);
  });

  it("checks `sha` against the source branch's head (409)", async () => {
    const { base, project, dev1 } = await fixture();
    const head = "a".repeat(40);
    await setBranch(w, project, "feature", head);
    expect(await statusAndBody(await w.as(dev1).post(`${base}/approve`, { json: { sha: "b".repeat(40) } }))).toEqual([
      409,
      { message: `SHA does not match HEAD of source branch: ${head}` },
    ]);
    expect((await w.as(dev1).post(`${base}/approve`, { json: { sha: head } })).status).toBe(201);
  });

  it("lets the author approve only when merge_requests_author_approval is on", async () => {
    const off = await fixture();
    expect(await statusAndBody(await w.as(off.author).post(`${off.base}/approve`))).toEqual([401, { message: "401 Unauthorized" }]);
    const on = await fixture({ settings: { merge_requests_author_approval: true } });
    const res = await w.as(on.author).post(`${on.base}/approve`);
    expect(res.status).toBe(201);
    expect(((await res.json()) as Json).user_has_approved).toBe(true);
  });

  it("is 401 anonymous or not eligible, 404 for a hidden project, 400 for a bad iid", async () => {
    const { base, project, reporter, dev1 } = await fixture({ visibility: "private" });
    expect(await statusAndBody(await w.anonymous.post(`${base}/approve`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(reporter).post(`${base}/approve`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(`${base}/approve`))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(dev1).post(`/projects/${project.id}/merge_requests/x/approve`))).toEqual([400, { error: "merge_request_iid is invalid" }]);
    const closed = await insertMergeRequest(w, project, { authorId: reporter.id, state: "merged" });
    expect(await statusAndBody(await w.as(dev1).post(`/projects/${project.id}/merge_requests/${closed.iid}/approve`))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("POST /projects/:id/merge_requests/:merge_request_iid/unapprove", () => {
  it("removes the caller's approval with a system note; without one it is 404", async () => {
    const { base, mr, dev1, dev2 } = await fixture();
    expect((await w.as(dev1).post(`${base}/approve`)).status).toBe(201);
    expect(await statusAndBody(await w.as(dev2).post(`${base}/unapprove`))).toEqual([404, { message: "404 Not Found" }]);
    const res = await w.as(dev1).post(`${base}/unapprove`);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ approved_by: [], user_has_approved: false, user_can_approve: true });
    expect(await systemNotes(mr.id)).toEqual(["approved this merge request", "unapproved this merge request"]);
    expect(await statusAndBody(await w.as(dev1).post(`${base}/unapprove`))).toEqual([404, { message: "404 Not Found" }]);
    expect(await statusAndBody(await w.anonymous.post(`${base}/unapprove`))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("GET /projects/:id/merge_requests/:merge_request_iid/approval_state", () => {
  it("lists each applying rule with its approvers and who approved", async () => {
    const { base, project, maintainer, author, dev1, dev2 } = await fixture();
    const security = await rule(maintainer, project, { name: "security", approvals_required: 1, user_ids: [dev1.id, author.id] });
    const both = await rule(maintainer, project, { name: "two", approvals_required: 2, user_ids: [dev1.id, dev2.id] });
    await w.as(dev1).post(`${base}/approve`);
    const res = await w.as(dev2).get(`${base}/approval_state`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.approval_rules_overwritten).toBe(false);
    expect(body.rules.map((r: Json) => [r.id, r.approved, ids(r.approved_by)])).toEqual([
      [security.id, true, [dev1.id]],
      [both.id, false, [dev1.id]],
    ]);
    // The author is no eligible approver while authors may not approve.
    expect(ids(body.rules[0].eligible_approvers)).toEqual([dev1.id]);
    expect(body.rules[1]).toMatchObject({ name: "two", rule_type: "regular", approvals_required: 2, contains_hidden_groups: false, source_rule: null, overridden: false, groups: [] });
    expect(ids(body.rules[1].users)).toEqual([dev1.id, dev2.id].sort((a, b) => a - b));
  });

  it("is 404 for a merge request the caller may not read", async () => {
    const { base } = await fixture({ visibility: "private" });
    expect(await statusAndBody(await w.as(w.stranger).get(`${base}/approval_state`))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});
