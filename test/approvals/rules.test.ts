import { beforeAll, describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type TestUser, type World } from "../helpers/world";
import { protectBranch } from "../helpers/git";
import { queryCount, type Json } from "../helpers/api";

let w: World;
beforeAll(async () => {
  w = await world();
});

const path = (project: { id: number }, id?: number) => `/projects/${project.id}/approval_rules${id === undefined ? "" : `/${id}`}`;
const ids = (list: Json[]) => list.map((x) => x.id);

async function fixture(visibility: "public" | "private" = "public") {
  const [maintainer, developer, reporter, outsider] = await Promise.all([w.user(), w.user(), w.user(), w.user()]);
  const project = await w.project({ visibility, maintainers: [maintainer], developers: [developer], reporters: [reporter] });
  return { project, maintainer, developer, reporter, outsider };
}

async function create(u: TestUser, project: { id: number }, json: Json) {
  const res = await w.as(u).post(path(project), { json });
  if (res.status !== 201) throw new Error(`create rule: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

describe("POST /projects/:id/approval_rules", () => {
  it("creates a rule with project members, visible groups and the project's protected branches", async () => {
    const { project, maintainer, developer, reporter, outsider } = await fixture();
    const groupMember = await w.user();
    const group = await w.group({ visibility: "public", developers: [groupMember] });
    const privateGroup = await w.group({ visibility: "private" });
    const branchId = await protectBranch(w, project, "main");
    const other = await w.project({ visibility: "public" });
    const foreignBranch = await protectBranch(w, other, "main");
    const res = await w.as(maintainer).post(path(project), {
      json: {
        name: "security",
        approvals_required: 2,
        user_ids: [developer.id, reporter.id, outsider.id],
        group_ids: [group.id, privateGroup.id],
        protected_branch_ids: [branchId, foreignBranch],
      },
    });
    expect(res.status).toBe(201);
    const rule = (await res.json()) as Json;
    expect(rule).toMatchObject({ name: "security", rule_type: "regular", approvals_required: 2, contains_hidden_groups: false, applies_to_all_protected_branches: false });
    // Outsiders are no project members and the private group is not visible to the maintainer: dropped.
    expect(ids(rule.users)).toEqual([developer.id, reporter.id].sort((a, b) => a - b));
    expect(rule.users.find((u: Json) => u.id === developer.id)).toEqual({
      id: developer.id,
      username: developer.username,
      name: developer.name,
      state: "active",
      avatar_url: expect.any(String),
      web_url: `http://edgeforge.test/${developer.username}`,
    });
    expect(rule.groups).toHaveLength(1);
    expect(rule.groups[0]).toMatchObject({ id: group.id, full_path: group.fullPath, visibility: "public", web_url: `http://edgeforge.test/groups/${group.fullPath}` });
    expect(ids(rule.eligible_approvers)).toEqual([developer.id, reporter.id, groupMember.id].sort((a, b) => a - b));
    expect(rule.protected_branches).toHaveLength(1);
    expect(rule.protected_branches[0]).toMatchObject({ id: branchId, name: "main" });
  });

  it("takes comma-separated ids and makes one any_approver rule per project", async () => {
    const { project, maintainer, developer } = await fixture();
    const rule = await create(maintainer, project, { name: "All members", approvals_required: 1, rule_type: "any_approver", user_ids: `${developer.id}` });
    expect(rule).toMatchObject({ rule_type: "any_approver", users: [], eligible_approvers: [] });
    expect(await statusAndBody(await w.as(maintainer).post(path(project), { json: { name: "Again", approvals_required: 1, rule_type: "any_approver" } }))).toEqual([
      400,
      { message: { rule_type: ["any-approver for the project already exists"] } },
    ]);
    const regular = await create(maintainer, project, { name: "Devs", approvals_required: 1, user_ids: `${developer.id}` });
    expect(ids(regular.users)).toEqual([developer.id]);
  });

  it("answers GitLab's 400 bodies", async () => {
    const { project, maintainer } = await fixture();
    const post = (json: Json) => w.as(maintainer).post(path(project), { json }).then(statusAndBody);
    expect(await post({})).toEqual([400, { error: "name is missing, approvals_required is missing" }]);
    expect(await post({ name: "x", approvals_required: "many", user_ids: "a,b", rule_type: "other" })).toEqual([
      400,
      { error: "approvals_required is invalid, rule_type does not have a valid value, user_ids is invalid" },
    ]);
    expect(await post({ name: " ", approvals_required: -1 })).toEqual([
      400,
      { message: { name: ["can't be blank"], approvals_required: ["must be greater than or equal to 0"] } },
    ]);
    expect(await post({ name: "n".repeat(70_000), approvals_required: 1 })).toEqual([400, { message: { name: ["is too long (maximum is 255 characters)"] } }]);
    expect(await post({ name: "x", approvals_required: 101 })).toEqual([400, { message: { approvals_required: ["must be less than or equal to 100"] } }]);
    await create(maintainer, project, { name: "taken", approvals_required: 1 });
    expect(await post({ name: "taken", approvals_required: 1 })).toEqual([400, { message: { name: ["has already been taken"] } }]);
  });

  it("is for maintainers: 401 anonymous, 403 developers, 404 private non-members", async () => {
    const { project, developer } = await fixture();
    const hidden = await w.project({ visibility: "private" });
    const json = { name: "r", approvals_required: 1 };
    expect(await statusAndBody(await w.anonymous.post(path(project), { json }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(developer).post(path(project), { json }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(path(hidden), { json }))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("GET /projects/:id/approval_rules", () => {
  it("lists the rules in id order, paginated, in a fixed number of statements", async () => {
    const { project, maintainer, developer } = await fixture();
    const group = await w.group({ visibility: "public", developers: [await w.user()] });
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await create(maintainer, project, { name: `rule ${i}`, approvals_required: i, user_ids: [developer.id], group_ids: [group.id] }));
    const res = await w.as(developer).get(path(project));
    expect(res.status).toBe(200);
    const list = (await res.json()) as Json[];
    expect(ids(list)).toEqual(ids(created));
    expect(list[2]).toEqual(created[2]);
    expect(res.headers.get("x-total")).toBe("3");
    const page = await w.as(developer).get(path(project), { query: { per_page: 2, page: 2 } });
    expect(ids((await page.json()) as Json[])).toEqual([created[2].id]);
    const more = await create(maintainer, project, { name: "rule 3", approvals_required: 1, user_ids: [maintainer.id], group_ids: [group.id] });
    const again = await w.as(developer).get(path(project));
    expect(((await again.json()) as Json[]).length).toBe(4);
    expect(queryCount(again)).toBe(queryCount(res));
    expect(more.id).toBeGreaterThan(created[2].id);
  });

  it("hides groups the reader cannot see and says so", async () => {
    const { project, maintainer, developer } = await fixture();
    const secret = await w.group({ visibility: "private", maintainers: [maintainer] });
    const rule = await create(maintainer, project, { name: "secret", approvals_required: 1, group_ids: [secret.id] });
    expect(rule).toMatchObject({ contains_hidden_groups: false, groups: [{ id: secret.id }] });
    const seen = (await (await w.as(developer).get(path(project, rule.id))).json()) as Json;
    expect(seen).toMatchObject({ contains_hidden_groups: true, groups: [] });
  });

  // `create_merge_request_in` is a guest ability (ProjectPolicy), which signed-in readers of a public
  // project have too: they may open merge requests from their forks, and read the rules that apply.
  it("is 401 anonymous, 200 for reporters and non-members of a public project, 404 for private non-members", async () => {
    const { project, reporter } = await fixture();
    const hidden = await w.project({ visibility: "private" });
    expect(await statusAndBody(await w.anonymous.get(path(project)))).toEqual([401, { message: "401 Unauthorized" }]);
    expect((await w.as(reporter).get(path(project))).status).toBe(200);
    expect((await w.as(w.stranger).get(path(project))).status).toBe(200);
    expect(await statusAndBody(await w.as(w.stranger).get(path(hidden)))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("GET /projects/:id/approval_rules/:approval_rule_id", () => {
  it("shows one rule; another project's rule or a bad id is 404 / 400", async () => {
    const { project, maintainer, developer } = await fixture();
    const rule = await create(maintainer, project, { name: "one", approvals_required: 1, user_ids: [developer.id] });
    expect(await statusAndBody(await w.as(developer).get(path(project, rule.id)))).toEqual([200, rule]);
    const other = await fixture();
    expect(await statusAndBody(await w.as(other.maintainer).get(path(other.project, rule.id)))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(developer).get(`/projects/${project.id}/approval_rules/abc`))).toEqual([400, { error: "approval_rule_id is invalid" }]);
  });
});

describe("PUT /projects/:id/approval_rules/:approval_rule_id", () => {
  it("replaces the lists sent, keeps the others, and keeps hidden groups unless told", async () => {
    const { project, maintainer, developer, reporter } = await fixture();
    const secret = await w.group({ visibility: "private", owners: [w.stranger] });
    const visible = await w.group({ visibility: "public" });
    const branchId = await protectBranch(w, project, "release/*");
    // The hidden group is linked directly: the maintainer could not have named it.
    const rule = await create(maintainer, project, { name: "r", approvals_required: 1, user_ids: [developer.id], group_ids: [visible.id], protected_branch_ids: [branchId] });
    await w.db((db) => db.execute(`INSERT INTO approval_project_rules_groups (rule_id, group_id) VALUES (${rule.id}, ${secret.id})`));
    const res = await w.as(maintainer).put(path(project, rule.id), { json: { name: "renamed", approvals_required: 2, user_ids: [reporter.id], group_ids: [] } });
    expect(res.status).toBe(200);
    const updated = (await res.json()) as Json;
    expect(updated).toMatchObject({ id: rule.id, name: "renamed", approvals_required: 2, groups: [], contains_hidden_groups: true });
    expect(ids(updated.users)).toEqual([reporter.id]);
    expect(ids(updated.protected_branches)).toEqual([branchId]);
    const removed = (await (await w.as(maintainer).put(path(project, rule.id), { json: { name: "renamed", approvals_required: 2, group_ids: [], remove_hidden_groups: true } })).json()) as Json;
    expect(removed).toMatchObject({ contains_hidden_groups: false, groups: [] });
    expect(ids(removed.users)).toEqual([reporter.id]);
  });

  it("answers 400 for missing fields and a taken name, 404 for an unknown rule, 403 for developers", async () => {
    const { project, maintainer, developer } = await fixture();
    const a = await create(maintainer, project, { name: "a", approvals_required: 1 });
    await create(maintainer, project, { name: "b", approvals_required: 1 });
    const put = (u: TestUser, id: number, json: Json) => w.as(u).put(path(project, id), { json }).then(statusAndBody);
    expect(await put(maintainer, a.id, {})).toEqual([400, { error: "name is missing, approvals_required is missing" }]);
    expect(await put(maintainer, a.id, { name: "b", approvals_required: 1 })).toEqual([400, { message: { name: ["has already been taken"] } }]);
    expect(await put(maintainer, a.id, { name: "a", approvals_required: -2 })).toEqual([400, { message: { approvals_required: ["must be greater than or equal to 0"] } }]);
    expect(await put(maintainer, a.id + 100000, { name: "a", approvals_required: 1 })).toEqual([404, { message: "404 Not found" }]);
    expect(await put(developer, a.id, { name: "a", approvals_required: 1 })).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.put(path(project, a.id), { json: { name: "a", approvals_required: 1 } }))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("DELETE /projects/:id/approval_rules/:approval_rule_id", () => {
  it("deletes the rule (204), then 404; developers 403", async () => {
    const { project, maintainer, developer } = await fixture();
    const rule = await create(maintainer, project, { name: "gone", approvals_required: 1, user_ids: [developer.id] });
    expect(await statusAndBody(await w.as(developer).delete(path(project, rule.id)))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(maintainer).delete(path(project, rule.id)))).toEqual([204, ""]);
    expect(await statusAndBody(await w.as(maintainer).delete(path(project, rule.id)))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(maintainer).get(path(project)))).toEqual([200, []]);
  });

  it("honours If-Unmodified-Since (412)", async () => {
    const { project, maintainer } = await fixture();
    const rule = await create(maintainer, project, { name: "kept", approvals_required: 1 });
    const res = await w.as(maintainer).delete(path(project, rule.id), { headers: { "If-Unmodified-Since": "Thu, 01 Jan 2015 00:00:00 GMT" } });
    expect(await statusAndBody(res)).toEqual([412, { message: "412 Precondition Failed" }]);
  });
});
