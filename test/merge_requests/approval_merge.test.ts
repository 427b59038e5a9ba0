import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type World } from "../helpers/world";
import { branchHead, commitRow } from "./support";
import { commit, mergeFixture, queryCount, type Json } from "../helpers/api";

const mrPath = (project: { id: number }, iid: number) => `/projects/${project.id}/merge_requests/${iid}`;

async function settings(w: World, user: Parameters<World["as"]>[0], project: { id: number }, json: Json) {
  const res = await w.as(user).post(`/projects/${project.id}/approvals`, { json });
  if (res.status !== 201) throw new Error(`approval settings: ${res.status} ${await res.text()}`);
}

describe("GET /projects/:id/merge_requests/:merge_request_iid (approvals)", () => {
  it("costs one statement for approvals when no rule or setting asks for any, and shows mergeable", async () => {
    const w = await world();
    const { owner, project, mr } = await mergeFixture(w);
    const res = await w.as(owner).get(mrPath(project, mr.iid));
    expect(((await res.json()) as Json).detailed_merge_status).toBe("mergeable");
    // 11 before merges needed approvals; loading the whole approval state made it 15.
    expect(queryCount(res)).toBeLessThanOrEqual(12);
  });
});

describe("PUT /projects/:id/merge_requests/:merge_request_iid/merge (approvals)", () => {
  it("answers 406 and shows not_approved until the approval rules are met, then merges", async () => {
    const w = await world();
    const dev = await w.user();
    const { owner, project, mr } = await mergeFixture(w, { developers: [dev] });
    await settings(w, owner, project, { approvals_before_merge: 1 });

    const before = (await (await w.as(owner).get(mrPath(project, mr.iid))).json()) as Json;
    expect(before).toMatchObject({ merge_status: "can_be_merged", detailed_merge_status: "not_approved" });
    expect(await statusAndBody(await w.as(owner).put(`${mrPath(project, mr.iid)}/merge`))).toEqual([406, { message: "Branch cannot be merged" }]);

    expect((await w.as(dev).post(`${mrPath(project, mr.iid)}/approve`)).status).toBe(201);
    const after = (await (await w.as(owner).get(mrPath(project, mr.iid))).json()) as Json;
    expect(after.detailed_merge_status).toBe("mergeable");
    const [status, merged] = await statusAndBody(await w.as(owner).put(`${mrPath(project, mr.iid)}/merge`));
    expect(status).toBe(200);
    expect((merged as Json).state).toBe("merged");
  });

  it("counts a merge request's own rule instead of the project's", async () => {
    const w = await world();
    const [dev1, dev2] = [await w.user(), await w.user()];
    const { owner, project, mr } = await mergeFixture(w, { developers: [dev1, dev2] });
    const rule = await w.as(owner).post(`/projects/${project.id}/approval_rules`, { json: { name: "Project", approvals_required: 1, user_ids: [dev1.id] } });
    expect(rule.status).toBe(201);
    const own = await w.as(owner).post(`${mrPath(project, mr.iid)}/approval_rules`, { json: { name: "Own", approvals_required: 1, user_ids: [dev2.id] } });
    expect(own.status).toBe(201);
    // dev1 approves for the project's rule, which this merge request no longer uses: not an approver (401).
    expect((await w.as(dev1).post(`${mrPath(project, mr.iid)}/approve`)).status).toBe(401);
    expect((await w.as(owner).put(`${mrPath(project, mr.iid)}/merge`)).status).toBe(406);
    expect((await w.as(dev2).post(`${mrPath(project, mr.iid)}/approve`)).status).toBe(201);
    expect((await w.as(owner).put(`${mrPath(project, mr.iid)}/merge`)).status).toBe(200);
  });
});

describe("PUT /projects/:id and POST /projects (merge_method, squash_option)", () => {
  it("creates and edits the merge settings, shows them, and refuses unknown values", async () => {
    const w = await world();
    const owner = await w.user();
    const [created, body] = await statusAndBody(
      await w.as(owner).post(`/projects`, { json: { name: `merge-settings-${Date.now()}`, merge_method: "rebase_merge", squash_option: "always" } }),
    );
    expect(created).toBe(201);
    expect(body).toMatchObject({ merge_method: "rebase_merge", squash_option: "always" });
    const id = (body as Json).id;
    const [updated, changed] = await statusAndBody(await w.as(owner).put(`/projects/${id}`, { json: { merge_method: "ff", squash_option: "never" } }));
    expect(updated).toBe(200);
    expect(changed).toMatchObject({ merge_method: "ff", squash_option: "never" });
    expect((await (await w.as(owner).get(`/projects/${id}`)).json()) as Json).toMatchObject({ merge_method: "ff", squash_option: "never" });
    expect(await statusAndBody(await w.as(owner).put(`/projects/${id}`, { json: { merge_method: "squash" } }))).toEqual([400, { error: "merge_method does not have a valid value" }]);
    expect(await statusAndBody(await w.as(owner).put(`/projects/${id}`, { json: { squash_option: "sometimes" } }))).toEqual([
      400,
      { error: "squash_option does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.as(owner).post(`/projects`, { json: { name: `bad-${Date.now()}`, merge_method: "octopus" } }))).toEqual([
      400,
      { error: "merge_method does not have a valid value" },
    ]);
  });

  it("is for maintainers: 403 for a developer, 404 for a non-member of a private project", async () => {
    const w = await world();
    const [dev, stranger] = [await w.user(), await w.user()];
    const project = await w.project({ developers: [dev], visibility: "private" });
    expect((await w.as(dev).put(`/projects/${project.id}`, { json: { merge_method: "ff" } })).status).toBe(403);
    expect((await w.as(stranger).put(`/projects/${project.id}`, { json: { merge_method: "ff" } })).status).toBe(404);
  });

  it("merges by the method set through the API: ff refuses a moved target (406), then fast-forwards", async () => {
    const w = await world();
    const { owner, project, mr, head, feature } = await mergeFixture(w);
    expect((await w.as(owner).put(`/projects/${project.id}`, { json: { merge_method: "ff" } })).status).toBe(200);
    await commit(w, owner, project, "main", "Elsewhere", [{ action: "create", file_path: "z.txt", content: "z\n" }]);
    expect(await statusAndBody(await w.as(owner).put(`${mrPath(project, mr.iid)}/merge`))).toEqual([406, { message: "Branch cannot be merged" }]);
    expect((await w.as(owner).put(`${mrPath(project, mr.iid)}/rebase`)).status).toBe(202);
    const rebased = await branchHead(w, project, feature);
    expect(rebased).not.toBe(head);
    const [status, merged] = await statusAndBody(await w.as(owner).put(`${mrPath(project, mr.iid)}/merge`));
    expect(status).toBe(200);
    expect((merged as Json).merge_commit_sha).toBeNull();
    expect(await branchHead(w, project, "main")).toBe(rebased);
  });

  it("squashes as squash_option says: always squashes unasked, never ignores squash=true", async () => {
    const w = await world();
    const always = await mergeFixture(w);
    await commit(w, always.owner, always.project, always.feature, "Second", [{ action: "create", file_path: "s.txt", content: "s\n" }]);
    expect((await w.as(always.owner).put(`/projects/${always.project.id}`, { json: { squash_option: "always" } })).status).toBe(200);
    const [, squashed] = await statusAndBody(await w.as(always.owner).put(`${mrPath(always.project, always.mr.iid)}/merge`));
    expect((squashed as Json).squash_commit_sha).toEqual(expect.any(String));
    const merge = await commitRow(w, always.project, (squashed as Json).merge_commit_sha);
    expect(merge.parents[1]).toBe((squashed as Json).squash_commit_sha);

    const never = await mergeFixture(w);
    await commit(w, never.owner, never.project, never.feature, "Second", [{ action: "create", file_path: "s.txt", content: "s\n" }]);
    expect((await w.as(never.owner).put(`/projects/${never.project.id}`, { json: { squash_option: "never" } })).status).toBe(200);
    const [, plain] = await statusAndBody(await w.as(never.owner).put(`${mrPath(never.project, never.mr.iid)}/merge`, { json: { squash: true } }));
    expect((plain as Json).squash_commit_sha).toBeNull();
    expect((plain as Json).state).toBe("merged");
  });
});
