import { beforeAll, describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type World } from "../helpers/world";

const DEFAULTS = {
  approvers: [],
  approver_groups: [],
  approvals_before_merge: 0,
  reset_approvals_on_push: true,
  disable_overriding_approvers_per_merge_request: false,
  merge_requests_author_approval: false,
  merge_requests_disable_committers_approval: false,
  require_password_to_approve: false,
};

let w: World;
beforeAll(async () => {
  w = await world();
});

async function fixture() {
  const [maintainer, developer, reporter] = await Promise.all([w.user(), w.user(), w.user()]);
  const project = await w.project({ visibility: "public", maintainers: [maintainer], developers: [developer], reporters: [reporter] });
  return { project, maintainer, developer, reporter };
}

describe("GET /projects/:id/approvals", () => {
  it("shows GitLab's defaults to developers and up", async () => {
    const { project, developer, maintainer } = await fixture();
    for (const u of [developer, maintainer]) expect(await statusAndBody(await w.as(u).get(`/projects/${project.id}/approvals`))).toEqual([200, DEFAULTS]);
  });

  // `create_merge_request_in` is a guest ability (ProjectPolicy), which signed-in readers of a public
  // project have too (they may open merge requests from their forks).
  it("is 401 anonymous, 200 for reporters and non-members of a public project, 404 for a private one", async () => {
    const { project, reporter } = await fixture();
    const hidden = await w.project({ visibility: "private" });
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/approvals`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(reporter).get(`/projects/${project.id}/approvals`))).toEqual([200, DEFAULTS]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/approvals`))).toEqual([200, DEFAULTS]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${hidden.id}/approvals`))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("POST /projects/:id/approvals", () => {
  it("changes the fields sent and keeps the others", async () => {
    const { project, maintainer } = await fixture();
    const res = await w.as(maintainer).post(`/projects/${project.id}/approvals`, { json: { approvals_before_merge: 2, merge_requests_author_approval: true } });
    expect(await statusAndBody(res)).toEqual([201, { ...DEFAULTS, approvals_before_merge: 2, merge_requests_author_approval: true }]);
    const again = await w.as(maintainer).post(`/projects/${project.id}/approvals`, {
      form: { reset_approvals_on_push: "false", require_password_to_approve: "true", merge_requests_disable_committers_approval: "true", disable_overriding_approvers_per_merge_request: "true" },
    });
    const expected = {
      ...DEFAULTS,
      approvals_before_merge: 2,
      merge_requests_author_approval: true,
      reset_approvals_on_push: false,
      require_password_to_approve: true,
      merge_requests_disable_committers_approval: true,
      disable_overriding_approvers_per_merge_request: true,
    };
    expect(await statusAndBody(again)).toEqual([201, expected]);
    expect(await statusAndBody(await w.as(maintainer).get(`/projects/${project.id}/approvals`))).toEqual([200, expected]);
  });

  it("answers GitLab's 400 bodies", async () => {
    const { project, maintainer } = await fixture();
    const path = `/projects/${project.id}/approvals`;
    expect(await statusAndBody(await w.as(maintainer).post(path, { json: {} }))).toEqual([
      400,
      {
        error:
          "approvals_before_merge, reset_approvals_on_push, disable_overriding_approvers_per_merge_request, merge_requests_author_approval, merge_requests_disable_committers_approval, require_password_to_approve are missing, at least one parameter must be provided",
      },
    ]);
    expect(await statusAndBody(await w.as(maintainer).post(path, { json: { approvals_before_merge: "x", reset_approvals_on_push: "maybe" } }))).toEqual([
      400,
      { error: "approvals_before_merge is invalid, reset_approvals_on_push is invalid" },
    ]);
    expect(await statusAndBody(await w.as(maintainer).post(path, { json: { approvals_before_merge: -1 } }))).toEqual([
      400,
      { message: { approvals_before_merge: ["must be greater than or equal to 0"] } },
    ]);
  });

  it("is for maintainers: 401 anonymous, 403 developers, 404 private non-members", async () => {
    const { project, developer } = await fixture();
    const hidden = await w.project({ visibility: "private" });
    const body = { json: { approvals_before_merge: 1 } };
    expect(await statusAndBody(await w.anonymous.post(`/projects/${project.id}/approvals`, body))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(developer).post(`/projects/${project.id}/approvals`, body))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(`/projects/${hidden.id}/approvals`, body))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.root.post(`/projects/${project.id}/approvals`, body))).toEqual([201, { ...DEFAULTS, approvals_before_merge: 1 }]);
  });
});
