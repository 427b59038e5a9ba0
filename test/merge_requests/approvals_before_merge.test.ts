import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type World } from "../helpers/world";
import { branch, createMergeRequest, type Json } from "../helpers/api";

/** A project with a maintainer (who changes the approval settings) and a developer. */
async function setup(w: World, settings: Json = {}) {
  const [maintainer, developer, reporter] = [await w.user(), await w.user(), await w.user()];
  const project = await w.project({ maintainers: [maintainer], developers: [developer], reporters: [reporter] });
  if (Object.keys(settings).length) {
    const res = await w.as(maintainer).post(`/projects/${project.id}/approvals`, { json: settings });
    expect(res.status).toBe(201);
  }
  return { maintainer, developer, reporter, project };
}

const tooFew = [400, { message: { validate_approvals_before_merge: ["Number of approvals must be at least that of approvals on the target project"] } }];

describe("approvals_before_merge on POST /projects/:id/merge_requests", () => {
  it("stores the merge request's own value, at least the project's, and the approval state asks for it", async () => {
    const w = await world();
    const t = await setup(w, { approvals_before_merge: 1 });
    const mr = await createMergeRequest(w, t.developer, t.project, { approvals_before_merge: 2 });
    expect(mr.approvals_before_merge).toBe(2);
    const approvals = await w.as(t.developer).get(`/projects/${t.project.id}/merge_requests/${mr.iid}/approvals`);
    expect(((await approvals.json()) as Json).approvals_required).toBe(2);
    const res = await w.as(t.developer).post(`/projects/${t.project.id}/merge_requests`, {
      json: { title: "x", source_branch: branch(), target_branch: "main", approvals_before_merge: 0 },
    });
    expect(await statusAndBody(res)).toEqual(tooFew);
    const bad = await w.as(t.developer).post(`/projects/${t.project.id}/merge_requests`, {
      json: { title: "x", source_branch: branch(), target_branch: "main", approvals_before_merge: "two" },
    });
    expect(await statusAndBody(bad)).toEqual([400, { error: "approvals_before_merge is invalid" }]);
  });

  it("is dropped when the project does not let merge requests override approvals", async () => {
    const w = await world();
    const t = await setup(w, { disable_overriding_approvers_per_merge_request: true });
    const mr = await createMergeRequest(w, t.developer, t.project, { approvals_before_merge: 5 });
    expect(mr.approvals_before_merge).toBeNull();
  });
});

describe("approvals_before_merge on PUT /projects/:id/merge_requests/:merge_request_iid", () => {
  it("changes the value (not alone: it is not one of the at-least-one params), refuses fewer than the project's", async () => {
    const w = await world();
    const t = await setup(w, { approvals_before_merge: 1 });
    const mr = await createMergeRequest(w, t.developer, t.project);
    expect(mr.approvals_before_merge).toBeNull();
    const put = (json: Json, user = t.developer) => w.as(user).put(`/projects/${t.project.id}/merge_requests/${mr.iid}`, { json });
    const [alone] = await statusAndBody(await put({ approvals_before_merge: 3 }));
    expect(alone).toBe(400);
    const [status, body] = (await statusAndBody(await put({ approvals_before_merge: 3, squash: true }))) as [number, Json];
    expect([status, body.approvals_before_merge]).toEqual([200, 3]);
    expect(await statusAndBody(await put({ approvals_before_merge: 0, squash: true }))).toEqual(tooFew);
    expect(((await (await put({ title: "Renamed" })).json()) as Json).approvals_before_merge).toBe(3);
    expect(await statusAndBody(await put({ approvals_before_merge: 4, squash: true }, t.reporter))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("is dropped on a merged merge request", async () => {
    const w = await world();
    const t = await setup(w);
    const mr = await createMergeRequest(w, t.developer, t.project);
    await w.db((db) => db.execute(`UPDATE merge_requests SET state = 'merged' WHERE id = ${Number(mr.id)}`));
    const res = await w.as(t.maintainer).put(`/projects/${t.project.id}/merge_requests/${mr.iid}`, { json: { approvals_before_merge: 2, title: "Merged" } });
    const [status, body] = (await statusAndBody(res)) as [number, Json];
    expect([status, body.approvals_before_merge]).toEqual([200, null]);
  });
});
