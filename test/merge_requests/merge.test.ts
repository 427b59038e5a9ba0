import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { branchHead, commitRow } from "./support";
import { commit, createMergeRequest, mergeFixture, queryCount, type Json } from "../helpers/api";
import { insertIssue } from "../helpers/noteables";
import { rows } from "../helpers/db";

const mergePath = (project: { id: number }, iid: number) => `/projects/${project.id}/merge_requests/${iid}/merge`;

describe("GET /projects/:id/merge_requests/:merge_request_iid (mergeability)", () => {
  it("checks the merge against the branches: can_be_merged, sha, diff_refs and changes_count", async () => {
    const w = await world();
    const { owner, project, base, head, mr } = await mergeFixture(w);
    // Creation runs the first check (and writes the first diff version), as 15.4 writes the diff.
    expect(mr).toMatchObject({ merge_status: "can_be_merged", sha: head, diff_refs: { base_sha: base, head_sha: head, start_sha: base } });
    const body = (await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).json()) as Json;
    expect(body).toMatchObject({
      merge_status: "can_be_merged",
      detailed_merge_status: "mergeable",
      has_conflicts: false,
      sha: head,
      diff_refs: { base_sha: base, head_sha: head, start_sha: base },
      changes_count: "1",
    });
  });

  it("counts the target's commits the source lacks as diverged_commits_count, on request only", async () => {
    const w = await world();
    const { owner, project, feature, mr } = await mergeFixture(w);
    const get = (query: Json = {}) => w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}`, { query });
    expect(await (await get({ include_diverged_commits_count: true })).json()).toMatchObject({ diverged_commits_count: 0 });
    // Two commits on main since the merge base, one more on the source: only main's two count
    // (`count_commits_between(source_branch_sha, target_branch_sha)`).
    await commit(w, owner, project, "main", "One", [{ action: "create", file_path: "one.txt", content: "1\n" }]);
    await commit(w, owner, project, "main", "Two", [{ action: "create", file_path: "two.txt", content: "2\n" }]);
    await commit(w, owner, project, feature, "More", [{ action: "create", file_path: "more.txt", content: "m\n" }]);
    expect(await (await get({ include_diverged_commits_count: true })).json()).toMatchObject({ diverged_commits_count: 2 });
    expect(await (await get({ include_diverged_commits_count: false })).json()).not.toHaveProperty("diverged_commits_count");
    expect(await (await get()).json()).not.toHaveProperty("diverged_commits_count");
    // The source branch now points at main's tip: nothing of main is missing any more.
    await rows(w, sql`UPDATE git_refs SET target = (SELECT target FROM git_refs WHERE project_id = ${project.id} AND name = 'refs/heads/main')
      WHERE project_id = ${project.id} AND name = ${`refs/heads/${feature}`}`);
    expect(await (await get({ include_diverged_commits_count: true })).json()).toMatchObject({ diverged_commits_count: 0 });
    // A missing source branch counts 0 (`return 0 unless source_branch_sha && target_branch_sha`).
    await w.as(owner).delete(`/projects/${project.id}/repository/branches/${feature}`);
    expect(await (await get({ include_diverged_commits_count: true })).json()).toMatchObject({ diverged_commits_count: 0 });
  });

  it("marks a conflicting merge request cannot_be_merged (has_conflicts)", async () => {
    const w = await world();
    const { owner, project, mr } = await mergeFixture(w);
    await commit(w, owner, project, "main", "Conflict", [{ action: "update", file_path: "a.txt", content: "1\ntwo!\n3\n4\n5\n6\n7\n8\n" }]);
    const body = (await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).json()) as Json;
    expect(body).toMatchObject({ merge_status: "cannot_be_merged", has_conflicts: true, detailed_merge_status: "broken_status" });
    expect(await statusAndBody(await w.as(owner).put(mergePath(project, mr.iid)))).toEqual([406, { message: "Branch cannot be merged" }]);
  });

  it("lists the same merge_status as the single GET after the source branch moves", async () => {
    const w = await world();
    const { owner, project, feature, mr } = await mergeFixture(w);
    await commit(w, owner, project, "main", "Conflict", [{ action: "update", file_path: "a.txt", content: "1\ntwo!\n3\n4\n5\n6\n7\n8\n" }]);
    const status = async () => {
      const listed = ((await (await w.as(owner).get(`/projects/${project.id}/merge_requests`)).json()) as Json[]).find((m) => m.iid === mr.iid)!;
      return [listed.merge_status, listed.detailed_merge_status, listed.has_conflicts, listed.sha];
    };
    const single = async () => {
      const body = (await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).json()) as Json;
      return [body.merge_status, body.detailed_merge_status, body.has_conflicts, body.sha];
    };
    expect(await single()).toEqual(["cannot_be_merged", "broken_status", true, expect.any(String)]);
    // The source branch takes the target's line: the conflict is gone, and the list says so first.
    const resolved = await commit(w, owner, project, feature, "Resolve", [{ action: "update", file_path: "a.txt", content: "1\ntwo!\n3\n4\n5\n6\n7\nEIGHT\n" }]);
    expect(await status()).toEqual(["can_be_merged", "mergeable", false, resolved]);
    expect(await single()).toEqual(await status());
    // And the other way round: the target moves into a conflict, read by the list after the GET.
    await commit(w, owner, project, "main", "Conflict again", [{ action: "update", file_path: "a.txt", content: "1\ntwo!\n3\n4\n5\n6\n7\nacht\n" }]);
    expect(await single()).toEqual(["cannot_be_merged", "broken_status", true, resolved]);
    expect(await status()).toEqual(await single());
    // A list that finds nothing moved does no trial merge: the page costs what an unchecked list does.
    const res = await w.as(owner).get(`/projects/${project.id}/merge_requests`);
    expect(res.status).toBe(200);
    expect(queryCount(res)).toBeLessThanOrEqual(6);
  });
});

describe("PUT /projects/:id/merge_requests/:merge_request_iid/merge", () => {
  it("creates GitLab's merge commit, moves the target, closes the issues and removes the source branch", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const issue = await insertIssue(w, project, { title: "Bug" });
    const base = await commit(w, owner, project, "main", "Initial commit", [{ action: "create", file_path: "a.txt", content: "1\n2\n3\n" }]);
    const head = await commit(w, owner, project, "fix", "Fix", [{ action: "create", file_path: "b.txt", content: "b\n" }], { start_branch: "main" });
    // The target moved on meanwhile: a real three-way merge.
    const moved = await commit(w, owner, project, "main", "Elsewhere", [{ action: "update", file_path: "a.txt", content: "1\n2\n3\n4\n" }]);
    const mr = await createMergeRequest(w, owner, project, { source_branch: "fix", target_branch: "main", title: "Fix it", description: `Closes #${issue.iid}` });

    const res = await w.as(owner).put(mergePath(project, mr.iid), { json: { should_remove_source_branch: true } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      state: "merged",
      merged_by: { id: owner.id },
      merge_user: { id: owner.id },
      merged_at: expect.any(String),
      should_remove_source_branch: true,
      squash_commit_sha: null,
      detailed_merge_status: "not_open",
    });
    const main = await branchHead(w, project, "main");
    expect(body.merge_commit_sha).toBe(main);
    const merge = await commitRow(w, project, main!);
    expect(merge.parents).toEqual([moved, head]);
    expect(merge.message).toBe(`Merge branch 'fix' into 'main'\n\nFix it\n\nCloses #${issue.iid}\n\nSee merge request ${project.fullPath}!${mr.iid}`);
    expect(base).not.toBe(main);
    expect(await branchHead(w, project, "fix")).toBeNull();

    const [closed] = await rows(w, sql`SELECT state, closed_by_id FROM issues WHERE id = ${issue.id}`);
    expect(closed).toEqual({ state: "closed", closed_by_id: owner.id });
    const events = await rows(w, sql`SELECT state, issue_id, merge_request_id, source_merge_request_id FROM resource_state_events
      WHERE merge_request_id = ${mr.id} OR issue_id = ${issue.id} ORDER BY state DESC`);
    expect(events).toEqual([
      { state: "merged", issue_id: null, merge_request_id: mr.id, source_merge_request_id: null },
      { state: "closed", issue_id: issue.id, merge_request_id: null, source_merge_request_id: mr.id },
    ]);
    // Merged: nothing left to merge.
    expect(await statusAndBody(await w.as(owner).put(mergePath(project, mr.iid)))).toEqual([405, { message: "405 Method Not Allowed" }]);
  });

  it("takes merge_commit_message and keeps the source branch by default", async () => {
    const w = await world();
    const { owner, project, feature, mr } = await mergeFixture(w);
    const res = await w.as(owner).put(mergePath(project, mr.iid), { json: { merge_commit_message: "Custom" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect((await commitRow(w, project, body.merge_commit_sha)).message).toBe("Custom");
    expect(await branchHead(w, project, feature)).not.toBeNull();
  });

  // python-gitlab's test_merge_request_large_commit_message: a merge request created with
  // remove_source_branch: true, merged with a 15 kB message and should_remove_source_branch: false, keeps
  // its branch (MergeService#delete_source_branch?: `params.fetch('should_remove_source_branch',
  // force_remove_source_branch?)`: an explicit false wins over the merge request's own setting).
  it("keeps the source branch when should_remove_source_branch: false overrides remove_source_branch", async () => {
    const w = await world();
    const { owner, project, feature, mr } = await mergeFixture(w, { mr: { remove_source_branch: true } });
    expect(mr.force_remove_source_branch).toBe(true);
    const message = "large_message\r\n".repeat(1000);
    const res = await w.as(owner).put(mergePath(project, mr.iid), { json: { merge_commit_message: message, should_remove_source_branch: false } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ state: "merged", should_remove_source_branch: false, force_remove_source_branch: true });
    expect((await commitRow(w, project, body.merge_commit_sha)).message).toBe(message);
    expect(await branchHead(w, project, feature)).not.toBeNull();
    expect((await w.as(owner).get(`/projects/${project.id}/repository/branches/${feature}`)).status).toBe(200);
  });

  it("removes the source branch on the merge request's remove_source_branch when the merge does not say", async () => {
    const w = await world();
    const { owner, project, feature, mr } = await mergeFixture(w, { mr: { remove_source_branch: true } });
    expect((await w.as(owner).put(mergePath(project, mr.iid))).status).toBe(200);
    expect(await branchHead(w, project, feature)).toBeNull();
  });

  it("answers 409 when sha is not the source head", async () => {
    const w = await world();
    const { owner, project, head, mr } = await mergeFixture(w);
    const res = await w.as(owner).put(mergePath(project, mr.iid), { json: { sha: "0".repeat(40) } });
    expect(await statusAndBody(res)).toEqual([409, { message: `SHA does not match HEAD of source branch: ${head}` }]);
    const ok = await w.as(owner).put(mergePath(project, mr.iid), { json: { sha: head } });
    expect(ok.status).toBe(200);
  });

  it("fast-forwards with merge_method ff, and refuses when the target moved (406)", async () => {
    const w = await world();
    const { owner, project, head, mr } = await mergeFixture(w);
    await rows(w, sql`UPDATE projects SET merge_method = 'ff' WHERE id = ${project.id}`);
    const body = (await (await w.as(owner).put(mergePath(project, mr.iid))).json()) as Json;
    expect(body).toMatchObject({ state: "merged", merge_commit_sha: null, squash_commit_sha: null });
    expect(await branchHead(w, project, "main")).toBe(head);

    const other = await mergeFixture(w);
    await rows(w, sql`UPDATE projects SET merge_method = 'rebase_merge' WHERE id = ${other.project.id}`);
    await commit(w, other.owner, other.project, "main", "Moved", [{ action: "create", file_path: "c.txt", content: "c\n" }]);
    expect(await statusAndBody(await w.as(other.owner).put(mergePath(other.project, other.mr.iid)))).toEqual([406, { message: "Branch cannot be merged" }]);
  });

  it("squashes: one commit on the merge base authored by the author, then the merge commit", async () => {
    const w = await world();
    const { owner, project, base, feature, head, mr } = await mergeFixture(w);
    const second = await commit(w, owner, project, feature, "Second", [{ action: "create", file_path: "z.txt", content: "z\n" }]);
    const res = await w.as(owner).put(mergePath(project, mr.iid), { json: { squash: true, squash_commit_message: "Squashed" } });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ state: "merged", squash: true, sha: second });
    const squash = await commitRow(w, project, body.squash_commit_sha);
    expect(squash.parents).toEqual([base]);
    expect(squash.message).toBe("Squashed");
    expect(squash.tree).toBe((await commitRow(w, project, second)).tree);
    expect((await commitRow(w, project, body.merge_commit_sha)).parents).toEqual([base, body.squash_commit_sha]);
    expect(head).not.toBe(second);
  });

  it("answers 405 for a draft and for a merge request without commits", async () => {
    const w = await world();
    const { owner, project, mr } = await mergeFixture(w, { mr: { title: "Draft: wip" } });
    expect(await statusAndBody(await w.as(owner).put(mergePath(project, mr.iid)))).toEqual([405, { message: "405 Method Not Allowed" }]);
    const same = await createMergeRequest(w, owner, project, { source_branch: "main", target_branch: mr.source_branch, title: "Nothing" });
    expect(await statusAndBody(await w.as(owner).put(mergePath(project, same.iid)))).toEqual([405, { message: "405 Method Not Allowed" }]);
  });

  it("answers 401 to those who may not merge into the target (a developer into protected main)", async () => {
    const w = await world();
    const dev = await w.user();
    const reporter = await w.user();
    const { project, mr } = await mergeFixture(w, { developers: [dev], reporters: [reporter], visibility: "public" });
    expect(await statusAndBody(await w.as(dev).put(mergePath(project, mr.iid)))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(reporter).put(mergePath(project, mr.iid)))).toEqual([401, { message: "401 Unauthorized" }]);
    // Developers may merge once main lets them.
    await rows(w, sql`UPDATE protected_branch_access_levels SET access_level = 30 WHERE protected_branch_id IN (SELECT id FROM protected_branches WHERE project_id = ${project.id})`);
    expect((await w.as(dev).put(mergePath(project, mr.iid))).status).toBe(200);
  });

  it("answers 404 for an unknown merge request", async () => {
    const w = await world();
    const { owner, project } = await mergeFixture(w);
    expect(await statusAndBody(await w.as(owner).put(mergePath(project, 999)))).toEqual([404, { message: "404 Merge Request Not Found" }]);
  });

  it("records merge_when_pipeline_succeeds while the head pipeline runs, and cancels it", async () => {
    const w = await world();
    const { owner, project, feature, head, mr } = await mergeFixture(w);
    // Without a pipeline there is nothing to wait for (GitLab's 405).
    expect((await w.as(owner).put(mergePath(project, mr.iid), { json: { merge_when_pipeline_succeeds: true } })).status).toBe(405);
    await rows(w, sql`INSERT INTO ci_pipelines (iid, project_id, ref, sha, source, status) VALUES (1, ${project.id}, ${feature}, ${head}, 'push', 'running')`);
    const res = await w.as(owner).put(mergePath(project, mr.iid), { json: { merge_when_pipeline_succeeds: true, should_remove_source_branch: true } });
    expect(await res.json()).toMatchObject({ state: "opened", merge_when_pipeline_succeeds: true, merge_user: { id: owner.id }, should_remove_source_branch: true });
    // AutoMergeService#cancel's result is the body (python-gitlab returns it), with Grape's 201.
    const cancelPath = `/projects/${project.id}/merge_requests/${mr.iid}/cancel_merge_when_pipeline_succeeds`;
    expect(await statusAndBody(await w.as(owner).post(cancelPath))).toEqual([201, { status: "success" }]);
    expect(await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).json()).toMatchObject({ merge_when_pipeline_succeeds: false, merge_user: null });
    // Nothing left to cancel: the service's error, still 201.
    expect(await statusAndBody(await w.as(owner).post(cancelPath))).toEqual([
      201,
      { status: "error", message: "Can't cancel the automatic merge", http_status: 406 },
    ]);
  });

  requiresAuthentication((w) => w.anonymous.put(`/projects/1/merge_requests/1/merge`));
  hidesPrivateProject((w, p) => w.as(w.stranger).put(mergePath(p, 1)));
});

describe("GET /projects/:id/merge_requests/:merge_request_iid/merge_ref", () => {
  it("writes the merge to refs/merge-requests/:iid/merge and answers its id, stable while heads stay", async () => {
    const w = await world();
    const { owner, project, base, head, mr } = await mergeFixture(w);
    await commit(w, owner, project, "main", "Moved", [{ action: "create", file_path: "c.txt", content: "c\n" }]);
    const res = await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}/merge_ref`);
    expect(res.status).toBe(200);
    const { commit_id } = (await res.json()) as Json;
    const row = await commitRow(w, project, commit_id);
    expect(row.parents[1]).toBe(head);
    expect(row.parents[0]).not.toBe(base);
    const [ref] = await rows(w, sql`SELECT target FROM git_refs WHERE project_id = ${project.id} AND name = ${`refs/merge-requests/${mr.iid}/merge`}`);
    expect(ref).toEqual({ target: commit_id });
    expect(await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}/merge_ref`)).json()).toEqual({ commit_id });
  });

  it("answers 400 when the merge conflicts", async () => {
    const w = await world();
    const { owner, project, mr } = await mergeFixture(w);
    await commit(w, owner, project, "main", "Conflict", [{ action: "update", file_path: "a.txt", content: "1\nzwei\n3\n4\n5\n6\n7\n8\n" }]);
    expect(await statusAndBody(await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}/merge_ref`))).toEqual([
      400,
      { message: "Merge request is not mergeable" },
    ]);
  });
});
