import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { branchHead, commitRow } from "./support";
import { commit, createMergeRequest, mergeFixture, type Json } from "../helpers/api";

const rebasePath = (project: { id: number }, iid: number | string) => `/projects/${project.id}/merge_requests/${iid}/rebase`;
const REBASE_ERROR = "Rebase failed: Rebase locally, resolve all conflicts, then push the branch.";

describe("PUT /projects/:id/merge_requests/:merge_request_iid/rebase", () => {
  it("replays the source commits onto the target's tip, keeping their authors and messages", async () => {
    const w = await world();
    const developer = await w.user();
    const { owner, project, feature, head, mr } = await mergeFixture(w, { developers: [developer] });
    const second = await commit(w, owner, project, feature, "Add b", [{ action: "create", file_path: "b.txt", content: "b\n" }]);
    const moved = await commit(w, owner, project, "main", "Elsewhere", [{ action: "create", file_path: "c.txt", content: "c\n" }]);

    expect(await statusAndBody(await w.as(developer).put(rebasePath(project, mr.iid)))).toEqual([202, { rebase_in_progress: false }]);
    const newHead = (await branchHead(w, project, feature))!;
    expect(newHead).not.toBe(second);
    const top = await commitRow(w, project, newHead);
    expect(top.message).toBe("Add b");
    const bottom = await commitRow(w, project, top.parents[0]);
    expect(bottom.parents).toEqual([moved]);
    expect(bottom.message).toBe("Change a\n\nThe body.");
    expect(bottom.author_name).toBe((await commitRow(w, project, head)).author_name);

    const body = (await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}?include_rebase_in_progress=true`)).json()) as Json;
    expect(body).toMatchObject({ rebase_in_progress: false, merge_error: null, sha: newHead, diff_refs: { base_sha: moved, start_sha: moved, head_sha: newHead } });
    const files = (await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}/diffs`)).json()) as Json[];
    expect(files.map((f) => f.new_path)).toEqual(["a.txt", "b.txt"]);
  });

  it("leaves a branch that is already on the target's tip alone", async () => {
    const w = await world();
    const { owner, project, feature, head, mr } = await mergeFixture(w);
    expect(await statusAndBody(await w.as(owner).put(rebasePath(project, mr.iid), { json: { skip_ci: true } }))).toEqual([202, { rebase_in_progress: false }]);
    expect(await branchHead(w, project, feature)).toBe(head);
  });

  it("keeps the branch and sets merge_error on a conflict", async () => {
    const w = await world();
    const { owner, project, feature, head, mr } = await mergeFixture(w);
    await commit(w, owner, project, "main", "Conflict", [{ action: "update", file_path: "a.txt", content: "1\ntwo!\n3\n4\n5\n6\n7\n8\n" }]);
    expect(await statusAndBody(await w.as(owner).put(rebasePath(project, mr.iid)))).toEqual([202, { rebase_in_progress: false }]);
    expect(await branchHead(w, project, feature)).toBe(head);
    const body = (await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}?include_rebase_in_progress=true`)).json()) as Json;
    expect(body).toMatchObject({ rebase_in_progress: false, merge_error: REBASE_ERROR });
  });

  it("answers 400 for a skip_ci that is not a boolean and for a bad iid", async () => {
    const w = await world();
    const { owner, project, mr } = await mergeFixture(w);
    expect(await statusAndBody(await w.as(owner).put(rebasePath(project, mr.iid), { json: { skip_ci: "maybe" } }))).toEqual([400, { error: "skip_ci is invalid" }]);
    expect(await statusAndBody(await w.as(owner).put(rebasePath(project, "x")))).toEqual([400, { error: "merge_request_iid is invalid" }]);
  });

  it("answers 401 without credentials, 404 to callers who cannot read the merge request", async () => {
    const w = await world();
    const guest = await w.user();
    const { project, mr } = await mergeFixture(w, { guests: [guest] });
    expect(await statusAndBody(await w.anonymous.put(rebasePath(project, mr.iid)))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(w.stranger).put(rebasePath(project, mr.iid)))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(guest).put(rebasePath(project, mr.iid)))).toEqual([404, { message: "404 Merge Request Not Found" }]);
  });

  it("answers 403 to a reporter, for a protected source branch and for a missing source branch", async () => {
    const w = await world();
    const [reporter, developer] = [await w.user(), await w.user()];
    const { owner, project, mr } = await mergeFixture(w, { reporters: [reporter], developers: [developer] });
    expect(await statusAndBody(await w.as(reporter).put(rebasePath(project, mr.iid)))).toEqual([403, { message: "403 Forbidden - Cannot push to source branch" }]);
    // `main` is protected for maintainers: a developer may not rewrite it.
    const intoFeature = await createMergeRequest(w, owner, project, { source_branch: "main", target_branch: mr.source_branch });
    expect(await statusAndBody(await w.as(developer).put(rebasePath(project, intoFeature.iid)))).toEqual([403, { message: "403 Forbidden - Cannot push to source branch" }]);
    const missing = await createMergeRequest(w, owner, project, { source_branch: "nowhere", target_branch: "main" });
    expect(await statusAndBody(await w.as(owner).put(rebasePath(project, missing.iid)))).toEqual([403, { message: "403 Forbidden - Source branch does not exist" }]);
  });

  it("answers 409 for a merge request that is not open", async () => {
    const w = await world();
    const { owner, project, mr } = await mergeFixture(w);
    expect((await w.as(owner).put(`/projects/${project.id}/merge_requests/${mr.iid}`, { json: { state_event: "close" } })).status).toBe(200);
    expect(await statusAndBody(await w.as(owner).put(rebasePath(project, mr.iid)))).toEqual([409, { message: "409 Conflict" }]);
  });
});
