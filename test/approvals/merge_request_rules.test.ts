import { sql } from "drizzle-orm";
import { zlibSync } from "fflate";
import { beforeAll, describe, expect, it } from "vitest";
import { FLUSH, pkt } from "../../functions/shared/git/pack/pktline";
import { OBJ_COMMIT, PackWriter, objectId } from "../../functions/shared/git/pack/pack";
import { BASE, statusAndBody, worker } from "../helpers/client";
import { world, type TestUser, type World } from "../helpers/world";
import { commit, mergeFixture, type Json } from "../helpers/api";
import { insertMergeRequest } from "../helpers/noteables";
import { rows } from "../helpers/db";

let w: World;
beforeAll(async () => {
  w = await world();
});

async function fixture(opts: { visibility?: "public" | "private"; settings?: Json } = {}) {
  const [author, maintainer, dev1, dev2, reporter] = await Promise.all([w.user(), w.user(), w.user(), w.user(), w.user()]);
  const project = await w.project({ visibility: opts.visibility ?? "public", maintainers: [maintainer], developers: [author, dev1, dev2], reporters: [reporter] });
  if (opts.settings) expect((await w.as(maintainer).post(`/projects/${project.id}/approvals`, { json: opts.settings })).status).toBe(201);
  const mr = await insertMergeRequest(w, project, { authorId: author.id });
  return { project, mr, base: `/projects/${project.id}/merge_requests/${mr.iid}`, author, maintainer, dev1, dev2, reporter };
}

async function create(u: TestUser, base: string, json: Json): Promise<Json> {
  const res = await w.as(u).post(`${base}/approval_rules`, { json });
  if (res.status !== 201) throw new Error(`rule: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

const userIds = (list: Json[]) => list.map((u) => u.id);


/**
 * Pushes one new commit (same tree, parent = the branch's head) to `branch` over smart HTTP
 * (`git-receive-pack`, as `git push` sends it) and returns its id.
 */
async function httpPush(user: TestUser, project: { id: number; fullPath: string }, branch: string): Promise<string> {
  const [head] = await rows<{ target: string; tree: string }>(
    w,
    sql`SELECT r.target, c.tree FROM git_refs r JOIN git_commits c ON c.oid = r.target AND c.pool_id = ${project.id}
         WHERE r.project_id = ${project.id} AND r.name = ${`refs/heads/${branch}`}`,
  );
  const when = `${Math.floor(Date.now() / 1000)} +0000`;
  const body = new TextEncoder().encode(
    `tree ${head.tree.trim()}\nparent ${head.target.trim()}\nauthor Pusher <pusher@example.com> ${when}\ncommitter Pusher <pusher@example.com> ${when}\n\nPushed over HTTP\n`,
  );
  const oid = objectId("commit", body);
  const pack = new PackWriter();
  const parts = [
    pkt(`${head.target.trim()} ${oid} refs/heads/${branch}\0report-status\n`),
    FLUSH,
    pack.header(1),
    pack.entry(OBJ_COMMIT, body.length, zlibSync(body)),
    pack.trailer(),
  ];
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
  const res = await worker.fetch(
    new Request(`${BASE}/${project.fullPath}.git/git-receive-pack`, {
      method: "POST",
      headers: { Authorization: `Basic ${btoa(`anyone:${user.token}`)}`, "Content-Type": "application/x-git-receive-pack-request" },
      body: bytes,
    }),
  );
  const text = await res.text();
  if (res.status !== 200 || !text.includes(`ok refs/heads/${branch}`)) throw new Error(`push: ${res.status} ${text}`);
  return oid;
}

describe("GET /projects/:id/merge_requests/:merge_request_iid/approval_rules", () => {
  it("lists the merge request's own rules in id order, paginated", async () => {
    const { base, maintainer, dev1, dev2, reporter } = await fixture();
    const first = await create(maintainer, base, { name: "First", approvals_required: 1, user_ids: [dev1.id] });
    await create(maintainer, base, { name: "Second", approvals_required: 2, user_ids: `${dev1.id},${dev2.id}` });
    const [status, body] = await statusAndBody(await w.as(reporter).get(`${base}/approval_rules`));
    expect(status).toBe(200);
    expect((body as Json[]).map((r) => r.name)).toEqual(["First", "Second"]);
    expect((body as Json[])[0]).toEqual({
      id: first.id,
      name: "First",
      rule_type: "regular",
      eligible_approvers: [expect.objectContaining({ id: dev1.id })],
      approvals_required: 1,
      users: [expect.objectContaining({ id: dev1.id })],
      groups: [],
      contains_hidden_groups: false,
      source_rule: null,
      overridden: false,
    });
    const page = await w.as(reporter).get(`${base}/approval_rules?per_page=1&page=2`);
    expect(page.headers.get("x-total")).toBe("2");
    expect(((await page.json()) as Json[]).map((r) => r.name)).toEqual(["Second"]);
  });

  it("is 404 for callers who cannot read the merge request", async () => {
    const { base } = await fixture({ visibility: "private" });
    expect((await w.as(await w.user()).get(`${base}/approval_rules`)).status).toBe(404);
    expect((await w.anonymous.get(`${base}/approval_rules`)).status).toBe(404);
  });
});

describe("POST /projects/:id/merge_requests/:merge_request_iid/approval_rules", () => {
  it("creates a rule that replaces the project's rules in the approval state", async () => {
    const { project, base, author, maintainer, dev1, dev2 } = await fixture();
    const projectRule = await w.as(maintainer).post(`/projects/${project.id}/approval_rules`, { json: { name: "Project", approvals_required: 1, user_ids: [dev1.id] } });
    expect(projectRule.status).toBe(201);
    const before = (await (await w.as(dev1).get(`${base}/approval_state`)).json()) as Json;
    expect(before.approval_rules_overwritten).toBe(false);
    expect(before.rules.map((r: Json) => r.name)).toEqual(["Project"]);

    // The author (a developer) may edit the approvers of their merge request.
    const rule = await create(author, base, { name: "Own", approvals_required: 1, user_ids: [dev2.id] });
    expect(rule).toMatchObject({ name: "Own", approvals_required: 1, source_rule: null, overridden: false });
    const after = (await (await w.as(dev1).get(`${base}/approval_state`)).json()) as Json;
    expect(after.approval_rules_overwritten).toBe(true);
    expect(after.rules).toEqual([expect.objectContaining({ id: rule.id, name: "Own", approved: false, approved_by: [], source_rule: null, overridden: false })]);
    const approvals = (await (await w.as(dev2).get(`${base}/approvals`)).json()) as Json;
    expect(approvals).toMatchObject({ approvals_required: 1, approvals_left: 1, user_can_approve: true, approval_rules_left: [{ id: rule.id, name: "Own" }] });
    expect(userIds(approvals.suggested_approvers)).toEqual([dev2.id]);
  });

  it("copies a project rule's name, users and groups with approval_project_rule_id and marks it overridden once it differs", async () => {
    const { project, base, maintainer, dev1 } = await fixture();
    const source = (await (
      await w.as(maintainer).post(`/projects/${project.id}/approval_rules`, { json: { name: "Project", approvals_required: 1, user_ids: [dev1.id] } })
    ).json()) as Json;
    const copy = await create(maintainer, base, { name: "ignored", approvals_required: 1, approval_project_rule_id: source.id });
    expect(copy).toMatchObject({ name: "Project", users: [expect.objectContaining({ id: dev1.id })], source_rule: { approvals_required: 1 }, overridden: false });
    // An unchanged copy does not override the project's rules.
    expect(((await (await w.as(dev1).get(`${base}/approval_state`)).json()) as Json).approval_rules_overwritten).toBe(false);
    const [, raised] = await statusAndBody(await w.as(maintainer).put(`${base}/approval_rules/${copy.id}`, { json: { approvals_required: 2 } }));
    expect(raised).toMatchObject({ approvals_required: 2, overridden: true });
    expect(((await (await w.as(dev1).get(`${base}/approval_state`)).json()) as Json).approval_rules_overwritten).toBe(true);
    expect(await statusAndBody(await w.as(maintainer).put(`${base}/approval_rules/${copy.id}`, { json: { approvals_required: 0 } }))).toEqual([
      400,
      { message: { approvals_required: ["must be greater than or equal to 1"] } },
    ]);
  });

  it("answers GitLab's 400 bodies", async () => {
    const { base, maintainer } = await fixture();
    expect(await statusAndBody(await w.as(maintainer).post(`${base}/approval_rules`, { json: { approvals_required: 1 } }))).toEqual([400, { error: "name is missing" }]);
    expect(await statusAndBody(await w.as(maintainer).post(`${base}/approval_rules`, { json: { name: "X" } }))).toEqual([
      400,
      { error: "approvals_required is missing" },
    ]);
    expect(await statusAndBody(await w.as(maintainer).post(`${base}/approval_rules`, { json: { name: "X", approvals_required: -1 } }))).toEqual([
      400,
      { message: { approvals_required: ["must be greater than or equal to 0"] } },
    ]);
    await create(maintainer, base, { name: "X", approvals_required: 1 });
    expect(await statusAndBody(await w.as(maintainer).post(`${base}/approval_rules`, { json: { name: "X", approvals_required: 1 } }))).toEqual([
      400,
      { message: { name: ["has already been taken"] } },
    ]);
  });

  it("is 401 anonymous, 403 for a reporter or when the project forbids overriding, 404 for a missing merge request", async () => {
    const { project, base, maintainer, reporter } = await fixture();
    expect((await w.anonymous.post(`${base}/approval_rules`, { json: { name: "X", approvals_required: 1 } })).status).toBe(401);
    expect((await w.as(reporter).post(`${base}/approval_rules`, { json: { name: "X", approvals_required: 1 } })).status).toBe(403);
    expect((await w.as(maintainer).post(`/projects/${project.id}/merge_requests/999999/approval_rules`, { json: { name: "X", approvals_required: 1 } })).status).toBe(404);
    expect((await w.as(maintainer).post(`/projects/${project.id}/approvals`, { json: { disable_overriding_approvers_per_merge_request: true } })).status).toBe(201);
    expect((await w.as(maintainer).post(`${base}/approval_rules`, { json: { name: "X", approvals_required: 1 } })).status).toBe(403);
  });

  it("leaves the project's rules in force when overriding is disabled after the fact", async () => {
    const { project, base, maintainer, dev1 } = await fixture();
    await create(maintainer, base, { name: "Own", approvals_required: 3 });
    expect(((await (await w.as(dev1).get(`${base}/approvals`)).json()) as Json).approvals_required).toBe(3);
    expect((await w.as(maintainer).post(`/projects/${project.id}/approvals`, { json: { disable_overriding_approvers_per_merge_request: true } })).status).toBe(201);
    const state = (await (await w.as(dev1).get(`${base}/approval_state`)).json()) as Json;
    expect(state).toEqual({ approval_rules_overwritten: false, rules: [] });
  });
});

describe("PUT /projects/:id/merge_requests/:merge_request_iid/approval_rules/:approval_rule_id", () => {
  it("changes what was sent and replaces the lists sent", async () => {
    const { base, maintainer, dev1, dev2 } = await fixture();
    const rule = await create(maintainer, base, { name: "Own", approvals_required: 1, user_ids: [dev1.id] });
    const [status, body] = await statusAndBody(await w.as(maintainer).put(`${base}/approval_rules/${rule.id}`, { json: { name: "Renamed", user_ids: [dev2.id] } }));
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: rule.id, name: "Renamed", approvals_required: 1 });
    expect(userIds((body as Json).users)).toEqual([dev2.id]);
  });

  it("answers 404 for a rule of another merge request, 400 for a bad id, 403 for a reporter", async () => {
    const { project, base, maintainer, reporter, author } = await fixture();
    const other = await insertMergeRequest(w, project, { authorId: author.id, sourceBranch: "other" });
    const foreign = await create(maintainer, `/projects/${project.id}/merge_requests/${other.iid}`, { name: "Theirs", approvals_required: 1 });
    expect(await statusAndBody(await w.as(maintainer).put(`${base}/approval_rules/${foreign.id}`, { json: { name: "X" } }))).toEqual([404, { message: "404 Not found" }]);
    expect((await w.as(maintainer).put(`${base}/approval_rules/abc`, { json: { name: "X" } })).status).toBe(400);
    expect((await w.as(reporter).put(`${base}/approval_rules/${foreign.id}`, { json: { name: "X" } })).status).toBe(403);
  });
});

describe("DELETE /projects/:id/merge_requests/:merge_request_iid/approval_rules/:approval_rule_id", () => {
  it("deletes the rule (204), after which the project's rules apply again; 404 the second time", async () => {
    const { base, maintainer, dev1 } = await fixture({ settings: { approvals_before_merge: 2 } });
    const rule = await create(maintainer, base, { name: "Own", approvals_required: 1 });
    expect((await w.as(maintainer).delete(`${base}/approval_rules/${rule.id}`)).status).toBe(204);
    expect((await w.as(maintainer).delete(`${base}/approval_rules/${rule.id}`)).status).toBe(404);
    expect(((await (await w.as(dev1).get(`${base}/approvals`)).json()) as Json).approvals_required).toBe(2);
  });

  it("is 403 for a reporter", async () => {
    const { base, maintainer, reporter } = await fixture();
    const rule = await create(maintainer, base, { name: "Own", approvals_required: 1 });
    expect((await w.as(reporter).delete(`${base}/approval_rules/${rule.id}`)).status).toBe(403);
  });
});

describe("reset_approvals_on_push and the committers' approvals", () => {
  it("a push to the source branch removes the approvals when the project says so, and keeps them otherwise", async () => {
    for (const reset of [true, false]) {
      const dev = await w.user();
      const { owner, project, mr, feature } = await mergeFixture(w, { developers: [dev] });
      expect((await w.as(owner).post(`/projects/${project.id}/approvals`, { json: { reset_approvals_on_push: reset, approvals_before_merge: 1 } })).status).toBe(201);
      const base = `/projects/${project.id}/merge_requests/${mr.iid}`;
      expect((await w.as(dev).post(`${base}/approve`)).status).toBe(201);
      // A push to another branch changes nothing.
      await commit(w, owner, project, "main", "Elsewhere", [{ action: "create", file_path: "z.txt", content: "z\n" }]);
      expect(((await (await w.as(dev).get(`${base}/approvals`)).json()) as Json).approved).toBe(true);
      await commit(w, owner, project, feature, "More", [{ action: "create", file_path: "m.txt", content: "m\n" }]);
      const body = (await (await w.as(dev).get(`${base}/approvals`)).json()) as Json;
      expect(body).toMatchObject(reset ? { approved: false, approved_by: [], user_can_approve: true } : { approved: true, approved_by: [{ user: expect.objectContaining({ id: dev.id }) }] });
      const stored = await rows(w, sql`SELECT user_id FROM approvals WHERE merge_request_id = ${mr.id}`);
      expect(stored.length).toBe(reset ? 0 : 1);
      // Approving again after the push counts.
      if (reset) expect((await w.as(dev).post(`${base}/approve`)).status).toBe(201);
    }
  });

  it("a push over smart HTTP resets the approvals too", async () => {
    const dev = await w.user();
    const { owner, project, mr, feature } = await mergeFixture(w, { developers: [dev] });
    expect((await w.as(owner).post(`/projects/${project.id}/approvals`, { json: { approvals_before_merge: 1 } })).status).toBe(201);
    const base = `/projects/${project.id}/merge_requests/${mr.iid}`;
    expect((await w.as(dev).post(`${base}/approve`)).status).toBe(201);
    const pushed = await httpPush(owner, project, feature);
    const body = (await (await w.as(dev).get(`${base}/approvals`)).json()) as Json;
    expect(body).toMatchObject({ approved: false, approved_by: [] });
    const single = (await (await w.as(owner).get(base)).json()) as Json;
    expect(single).toMatchObject({ sha: pushed, detailed_merge_status: "not_approved" });
    expect(await statusAndBody(await w.as(owner).put(`${base}/merge`))).toEqual([406, { message: "Branch cannot be merged" }]);
  });

  it("a committer may not approve when merge_requests_disable_committers_approval is set", async () => {
    for (const disable of [true, false]) {
      const [committer, other] = [await w.user(), await w.user()];
      const { owner, project, mr, feature } = await mergeFixture(w, { developers: [committer, other] });
      expect((await w.as(owner).post(`/projects/${project.id}/approvals`, { json: { merge_requests_disable_committers_approval: disable, reset_approvals_on_push: false } })).status).toBe(201);
      await commit(w, committer, project, feature, "By the committer", [{ action: "create", file_path: "c.txt", content: "c\n" }]);
      const base = `/projects/${project.id}/merge_requests/${mr.iid}`;
      expect(((await (await w.as(committer).get(`${base}/approvals`)).json()) as Json).user_can_approve).toBe(!disable);
      expect((await w.as(committer).post(`${base}/approve`)).status).toBe(disable ? 401 : 201);
      expect((await w.as(other).post(`${base}/approve`)).status).toBe(201);
    }
  });

  it("a committer is not a suggested approver of a rule naming them", async () => {
    const [committer, other] = [await w.user(), await w.user()];
    const { owner, project, mr, feature } = await mergeFixture(w, { developers: [committer, other] });
    expect((await w.as(owner).post(`/projects/${project.id}/approvals`, { json: { merge_requests_disable_committers_approval: true } })).status).toBe(201);
    await commit(w, committer, project, feature, "By the committer", [{ action: "create", file_path: "c.txt", content: "c\n" }]);
    const base = `/projects/${project.id}/merge_requests/${mr.iid}`;
    await create(owner, base, { name: "Both", approvals_required: 1, user_ids: [committer.id, other.id] });
    const body = (await (await w.as(other).get(`${base}/approvals`)).json()) as Json;
    expect(userIds(body.suggested_approvers)).toEqual([other.id]);
  });
});
