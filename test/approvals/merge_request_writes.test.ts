import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type TestUser, type World } from "../helpers/world";
import { insertMergeRequest } from "../helpers/noteables";
import { rows } from "../helpers/db";
import { type Json } from "../helpers/api";

// The merge request approval writes beside approve/unapprove: `POST …/approvals` (approvals_required),
// `PUT …/reset_approvals`, the password `require_password_to_approve` asks for, and the removed
// `PUT …/approvers`.

let w: World;
beforeAll(async () => {
  w = await world();
});

async function fixture(opts: { settings?: Json; state?: string } = {}) {
  const [author, maintainer, dev1, dev2, reporter] = await Promise.all([w.user(), w.user(), w.user(), w.user(), w.user()]);
  const project = await w.project({ visibility: "public", maintainers: [maintainer], developers: [author, dev1, dev2], reporters: [reporter] });
  if (opts.settings) {
    const res = await w.as(maintainer).post(`/projects/${project.id}/approvals`, { json: opts.settings });
    if (res.status !== 201) throw new Error(`settings: ${res.status} ${await res.text()}`);
  }
  const mr = await insertMergeRequest(w, project, { authorId: author.id, state: opts.state });
  const base = `/projects/${project.id}/merge_requests/${mr.iid}`;
  return { project, mr, base, author, maintainer, dev1, dev2, reporter };
}

/** A bot user (as a project access token makes one) with the given role on the project. */
async function bot(projectId: number, accessLevel: number): Promise<TestUser> {
  const u = await w.user();
  await w.db(async (db) => {
    await db.execute(sql`UPDATE users SET user_type = 'project_bot' WHERE id = ${u.id}`);
    await db.execute(sql`INSERT INTO members (source_type, source_id, user_id, access_level) VALUES ('Project', ${projectId}, ${u.id}, ${accessLevel})`);
  });
  return u;
}

async function approvalCount(mrId: number): Promise<number> {
  const [row] = await rows<{ n: string }>(w, sql`SELECT count(*) AS n FROM approvals WHERE merge_request_id = ${mrId}`);
  return Number(row.n);
}

describe("POST /projects/:id/merge_requests/:merge_request_iid/approvals", () => {
  it("sets the merge request's approvals_required, which the state uses when no rule applies (201)", async () => {
    const { base, mr, dev1, dev2, author } = await fixture({ settings: { approvals_before_merge: 1 } });
    const res = await w.as(author).post(`${base}/approvals`, { json: { approvals_required: 3 } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ id: mr.id, iid: mr.iid, approvals_required: 3, approvals_left: 3, approved: false });
    expect((await w.as(dev1).post(`${base}/approve`)).status).toBe(201);
    expect(await (await w.as(dev2).get(`${base}/approvals`)).json()).toMatchObject({ approvals_required: 3, approvals_left: 2 });
    // Shown on the merge request itself (EE `approvals_before_merge`).
    expect(await (await w.as(dev2).get(base)).json()).toMatchObject({ approvals_before_merge: 3 });
  });

  it("refuses fewer approvals than the project asks (400) and a project that disables overriding (422)", async () => {
    const a = await fixture({ settings: { approvals_before_merge: 2 } });
    expect(await statusAndBody(await w.as(a.dev1).post(`${a.base}/approvals`, { json: { approvals_required: 1 } }))).toEqual([
      400,
      { message: { validate_approvals_before_merge: ["Number of approvals must be at least that of approvals on the target project"] } },
    ]);
    const b = await fixture({ settings: { disable_overriding_approvers_per_merge_request: true } });
    expect(await statusAndBody(await w.as(b.dev1).post(`${b.base}/approvals`, { json: { approvals_required: 1 } }))).toEqual([
      422,
      { message: "Overriding approvals is disabled" },
    ]);
  });

  it("needs approvals_required (400), a signed-in user (401) and who may update the merge request (403)", async () => {
    const { base, reporter } = await fixture();
    expect(await statusAndBody(await w.as(reporter).post(`${base}/approvals`))).toEqual([400, { error: "approvals_required is missing" }]);
    expect(await statusAndBody(await w.as(reporter).post(`${base}/approvals`, { json: { approvals_required: "x" } }))).toEqual([
      400,
      { error: "approvals_required is invalid" },
    ]);
    expect(await statusAndBody(await w.anonymous.post(`${base}/approvals`, { json: { approvals_required: 1 } }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(reporter).post(`${base}/approvals`, { json: { approvals_required: 1 } }))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("drops the value on a merged merge request (update_approvers), answering the state", async () => {
    const { base, mr, maintainer } = await fixture({ state: "merged" });
    const res = await w.as(maintainer).post(`${base}/approvals`, { json: { approvals_required: 4 } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ approvals_required: 0 });
    expect(await rows(w, sql`SELECT approvals_before_merge FROM merge_requests WHERE id = ${mr.id}`)).toEqual([{ approvals_before_merge: null }]);
  });
});

describe("PUT /projects/:id/merge_requests/:merge_request_iid/approvers", () => {
  it("is gone since GitLab 13.11 (404, like the project's PUT /approvers)", async () => {
    const { base, project, maintainer } = await fixture();
    expect((await w.as(maintainer).put(`${base}/approvers`, { json: { approver_ids: [], approver_group_ids: [] } })).status).toBe(404);
    expect((await w.as(maintainer).put(`/projects/${project.id}/approvers`, { json: { approver_ids: [], approver_group_ids: [] } })).status).toBe(404);
  });
});

describe("PUT /projects/:id/merge_requests/:merge_request_iid/reset_approvals", () => {
  it("lets a project bot that may update the merge request delete every approval (202)", async () => {
    const { base, mr, project, dev1, dev2 } = await fixture();
    expect((await w.as(dev1).post(`${base}/approve`)).status).toBe(201);
    expect((await w.as(dev2).post(`${base}/approve`)).status).toBe(201);
    const developerBot = await bot(project.id, 30);
    expect(await statusAndBody(await w.as(developerBot).put(`${base}/reset_approvals`))).toEqual([202, 202]);
    expect(await approvalCount(mr.id)).toBe(0);
    expect(await (await w.as(dev1).get(`${base}/approvals`)).json()).toMatchObject({ approved_by: [], user_has_approved: false });
  });

  it("is 401 for humans (even maintainers), bots that may not update it, and merged merge requests", async () => {
    const { base, mr, project, dev1, maintainer } = await fixture();
    expect((await w.as(dev1).post(`${base}/approve`)).status).toBe(201);
    const reporterBot = await bot(project.id, 20);
    for (const u of [maintainer, reporterBot]) expect(await statusAndBody(await w.as(u).put(`${base}/reset_approvals`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.anonymous.put(`${base}/reset_approvals`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await approvalCount(mr.id)).toBe(1);
    const merged = await fixture({ state: "merged" });
    const mergedBot = await bot(merged.project.id, 40);
    expect(await statusAndBody(await w.as(mergedBot).put(`${merged.base}/reset_approvals`))).toEqual([401, { message: "401 Unauthorized" }]);
  });

  it("is 404 for a merge request the bot cannot see", async () => {
    const { project } = await fixture();
    const developerBot = await bot(project.id, 30);
    expect(await statusAndBody(await w.as(developerBot).put(`/projects/${project.id}/merge_requests/9999/reset_approvals`))).toEqual([
      404,
      { message: "404 Merge Request Not Found" },
    ]);
  });
});

describe("POST /projects/:id/merge_requests/:merge_request_iid/approve with require_password_to_approve", () => {
  async function setPassword(u: TestUser, password: string) {
    const res = await w.root.put(`/users/${u.id}`, { json: { password } });
    expect(res.status).toBe(200);
  }

  it("approves with the approver's password and answers 401 to a wrong or missing one", async () => {
    const { base, mr, dev1, dev2 } = await fixture({ settings: { require_password_to_approve: true } });
    await setPassword(dev1, "correct horse battery");
    expect(await statusAndBody(await w.as(dev1).post(`${base}/approve`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(dev1).post(`${base}/approve`, { json: { approval_password: "wrong password" } }))).toEqual([
      401,
      { message: "401 Unauthorized" },
    ]);
    // A user who never set a password cannot give one.
    expect(await statusAndBody(await w.as(dev2).post(`${base}/approve`, { json: { approval_password: "" } }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await approvalCount(mr.id)).toBe(0);
    const res = await w.as(dev1).post(`${base}/approve`, { json: { approval_password: "correct horse battery" } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ require_password_to_approve: true, user_has_approved: true });
  });

  it("does not ask for a password when the setting is off", async () => {
    const { base, dev1 } = await fixture();
    expect((await w.as(dev1).post(`${base}/approve`, { json: { approval_password: "anything" } })).status).toBe(201);
  });
});
