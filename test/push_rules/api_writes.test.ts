// Push rules on the API's other git writes (issue 33): GitLab's pre-receive hook runs on every ref update
// Gitaly makes, so cherry-picks, reverts, merges (squash and merge commits) and rebases pass the rule
// too, each answered as its endpoint answers a PreReceiveError; tag writes and branch deletions through
// the API meet no rule (TagCheck skips `updated_from_web?`; BranchCheck holds only new branches).
import { describe, expect, it } from "vitest";
import { commit, mergeFixture, queryCount, type Json } from "../helpers/api";
import { statusAndBody } from "../helpers/client";
import { world, type World } from "../helpers/world";
import { branchHead } from "../merge_requests/support";

type Fixture = Awaited<ReturnType<typeof mergeFixture>>;

const rule = (w: World, f: Fixture, json: Json) => w.as(f.owner).post(`/projects/${f.project.id}/push_rule`, { json });
const pickPath = (f: Fixture, sha: string, kind: "cherry_pick" | "revert") => `/projects/${f.project.id}/repository/commits/${sha}/${kind}`;
const mergePath = (f: Fixture) => `/projects/${f.project.id}/merge_requests/${f.mr.iid}/merge`;
const rebasePath = (f: Fixture) => `/projects/${f.project.id}/merge_requests/${f.mr.iid}/rebase`;
const mrOf = async (w: World, f: Fixture) => (await (await w.as(f.owner).get(`/projects/${f.project.id}/merge_requests/${f.mr.iid}`)).json()) as Json;

describe("POST /projects/:id/repository/commits/:sha/cherry_pick under a push rule", () => {
  it("refuses a pick whose message breaks the rule with 400 {message} (no error_code), and writes nothing", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    expect((await rule(w, f, { commit_message_regex: "^JIRA-\\d+" })).status).toBe(201);
    const before = await branchHead(w, f.project, "main");
    expect(await statusAndBody(await w.as(f.owner).post(pickPath(f, f.head, "cherry_pick"), { json: { branch: "main" } }))).toEqual([
      400,
      { message: "Commit message does not follow the pattern '^JIRA-\\d+'" },
    ]);
    expect(await branchHead(w, f.project, "main")).toBe(before);
    // A dry run moves no ref: no hook runs on it.
    expect(await statusAndBody(await w.as(f.owner).post(pickPath(f, f.head, "cherry_pick"), { json: { branch: "main", dry_run: true } }))).toEqual([200, { dry_run: "success" }]);
  });

  it("lets a pick through when its commit passes, in the same statements as without a rule", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    // The picked commit's author (the owner) is a user: member_check asks about it after the state read.
    await rule(w, f, { commit_message_regex: "^JIRA-\\d+", member_check: true });
    const res = await w.as(f.owner).post(pickPath(f, f.head, "cherry_pick"), { json: { branch: "main", message: "JIRA-7 pick" } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as Json).message).toBe("JIRA-7 pick");
    // The rule without member_check is read in the state statement: test/commits/statements.test.ts's budget.
    await w.as(f.owner).put(`/projects/${f.project.id}/push_rule`, { json: { member_check: false } });
    const other = await commit(w, f.owner, f.project, f.feature, "JIRA-8 more", [{ action: "create", file_path: "m.txt", content: "m\n" }]);
    const counted = await w.as(f.owner).post(pickPath(f, other, "cherry_pick"), { json: { branch: "main", message: "JIRA-8 pick" } });
    expect(counted.status).toBe(201);
    expect(queryCount(counted)).toBeLessThanOrEqual(4);
  });
});

describe("POST /projects/:id/repository/commits/:sha/revert under a push rule", () => {
  it("refuses a revert whose message holds the forbidden pattern, allows it once the rule lets it pass", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    await rule(w, f, { commit_message_negative_regex: "^Revert" });
    expect(await statusAndBody(await w.as(f.owner).post(pickPath(f, f.base, "revert"), { json: { branch: "main" } }))).toEqual([
      400,
      { message: "Commit message contains the forbidden pattern '^Revert'" },
    ]);
    // 15.4's revert takes no `message`: the rule must change for the revert's own message to pass.
    await w.as(f.owner).put(`/projects/${f.project.id}/push_rule`, { json: { commit_message_negative_regex: "^Fixup" } });
    const res = await w.as(f.owner).post(pickPath(f, f.base, "revert"), { json: { branch: "main" } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as Json).message).toMatch(/^Revert "Initial commit"/);
  });

  it("holds the committer to the writer's verified emails (commit_committer_check)", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    await rule(w, f, { commit_committer_check: true });
    // The test users' primary emails are confirmed: the writer commits as themself.
    expect((await w.as(f.owner).post(pickPath(f, f.base, "revert"), { json: { branch: "main" } })).status).toBe(201);
  });
});

describe("PUT /projects/:id/merge_requests/:merge_request_iid/merge under a push rule", () => {
  it("refuses a merge commit that breaks the rule: 200, still open, merge_error as MergeService words it", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    await rule(w, f, { commit_message_regex: "^JIRA-\\d+" });
    const before = await branchHead(w, f.project, "main");
    const [status, body] = await statusAndBody(await w.as(f.owner).put(mergePath(f)));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      state: "opened",
      merge_error: "Something went wrong during merge pre-receive hook. Commit message does not follow the pattern '^JIRA-\\d+'",
    });
    expect(await branchHead(w, f.project, "main")).toBe(before);
    // The commits the merge makes reachable are not the hook's business: a passing message merges.
    const merged = await w.as(f.owner).put(mergePath(f), { json: { merge_commit_message: "JIRA-9 merge" } });
    expect(merged.status).toBe(200);
    expect(((await merged.json()) as Json).state).toBe("merged");
  });

  it("checks the squash commit's message as well, and the files the merge commit brings to the target", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    await commit(w, f.owner, f.project, f.feature, "Add a tool", [{ action: "create", file_path: "bin/tool.exe", content: "MZ" }]);
    await rule(w, f, { commit_message_negative_regex: "WIP" });
    const squashed = await statusAndBody(await w.as(f.owner).put(mergePath(f), { json: { squash: true, squash_commit_message: "WIP squash" } }));
    expect(squashed[1]).toMatchObject({ state: "opened", merge_error: "Something went wrong during merge pre-receive hook. Commit message contains the forbidden pattern 'WIP'" });
    await w.as(f.owner).put(`/projects/${f.project.id}/push_rule`, { json: { commit_message_negative_regex: "", file_name_regex: "\\.exe$" } });
    const [, body] = await statusAndBody(await w.as(f.owner).put(mergePath(f), { json: { squash: false } }));
    expect(body).toMatchObject({ state: "opened", merge_error: 'Something went wrong during merge pre-receive hook. File name bin/tool.exe was prohibited by the pattern "\\\\.exe$".' });
  });

  it("a fast-forward without squash writes no commit: the rule has nothing to refuse", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    expect((await w.as(f.owner).put(`/projects/${f.project.id}`, { json: { merge_method: "ff" } })).status).toBe(200);
    await rule(w, f, { commit_message_regex: "^JIRA-\\d+" });
    const res = await w.as(f.owner).put(mergePath(f));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).state).toBe("merged");
    expect(await branchHead(w, f.project, "main")).toBe(f.head);
  });

  it("reads the rule with the tips: a merge under a rule stays within the merge's statement budget", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    await commit(w, f.owner, f.project, "main", "Elsewhere", [{ action: "create", file_path: "z.txt", content: "z\n" }]);
    await rule(w, f, { commit_message_regex: "^Merge branch" });
    const res = await w.as(f.owner).put(mergePath(f), { json: { should_remove_source_branch: true } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).state).toBe("merged");
    // test/merge_requests/merge_statements.test.ts: 14 for an unchecked merge.
    expect(queryCount(res)).toBeLessThanOrEqual(14);
  });
});

describe("PUT /projects/:id/merge_requests/:merge_request_iid/rebase under a push rule", () => {
  it("refuses rebased commits that break the rule: the branch stays, merge_error as RebaseService words it", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    await commit(w, f.owner, f.project, "main", "Elsewhere", [{ action: "create", file_path: "c.txt", content: "c\n" }]);
    await rule(w, f, { commit_message_regex: "^JIRA-\\d+" });
    expect(await statusAndBody(await w.as(f.owner).put(rebasePath(f)))).toEqual([202, { rebase_in_progress: false }]);
    expect(await branchHead(w, f.project, f.feature)).toBe(f.head);
    expect((await mrOf(w, f)).merge_error).toBe("The rebase pre-receive hook failed: Commit message does not follow the pattern '^JIRA-\\d+'.");
  });

  it("rebases when the commits pass (member_check: their authors are users)", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    await commit(w, f.owner, f.project, "main", "Elsewhere", [{ action: "create", file_path: "c.txt", content: "c\n" }]);
    await rule(w, f, { member_check: true, commit_message_regex: "^(Change|Elsewhere)" });
    expect((await w.as(f.owner).put(rebasePath(f))).status).toBe(202);
    expect(await branchHead(w, f.project, f.feature)).not.toBe(f.head);
    expect((await mrOf(w, f)).merge_error).toBeNull();
  });
});

describe("POST /projects/:id/repository/tags and DELETE …/tags/:tag_name under a push rule", () => {
  it("creates and deletes tags: GitLab's TagCheck lets the web delete (deny_delete_tag is for git push)", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    await rule(w, f, { deny_delete_tag: true, commit_message_regex: "^JIRA-\\d+" });
    const api = w.as(f.owner);
    expect((await api.post(`/projects/${f.project.id}/repository/tags`, { json: { tag_name: "v1", ref: "main", message: "annotated" } })).status).toBe(201);
    expect((await api.delete(`/projects/${f.project.id}/repository/tags/v1`)).status).toBe(204);
  });
});

describe("DELETE /projects/:id/repository/branches/:branch under a push rule", () => {
  it("deletes a branch whose name the rule would refuse: branch_name_regex holds new branches only", async () => {
    const w = await world();
    const f = await mergeFixture(w);
    await rule(w, f, { branch_name_regex: "^main$" });
    expect((await w.as(f.owner).delete(`/projects/${f.project.id}/repository/branches/${f.feature}`)).status).toBe(204);
    expect(await branchHead(w, f.project, f.feature)).toBeNull();
  });
});
