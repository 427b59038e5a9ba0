import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { unique, world, type TestProject, type TestUser, type World } from "../helpers/world";
import { BASE, worker } from "../helpers/client";
import { PackWriter } from "../../functions/shared/git/pack/pack";
import { FLUSH, pkt } from "../../functions/shared/git/pack/pktline";
import { buildEvent } from "../../functions/shared/webhooks";
import { loadProject } from "../../functions/shared/webhooks/queries";
import { claim, eventually, finish, projectRunner } from "../helpers/ci";
import { branch, commit, type Json } from "../helpers/api";
import { branchHead, commitRow } from "./support";
import { rows } from "../helpers/db";

/**
 * Merge requests from a fork (MergeRequests::CreateService with `target_project_id`,
 * MergeRequest#validate_fork, ProjectPolicy `create_merge_request_from` / `create_merge_request_in`):
 * created on the fork, living in the target, read from the fork's refs, merged into the target.
 */

/** POST /projects/:id/fork as `user`: the fork as the API shows it. */
async function fork(w: World, user: TestUser, project: { id: number }): Promise<TestProject & Json> {
  const res = await w.as(user).post(`/projects/${project.id}/fork`);
  if (res.status !== 201) throw new Error(`fork: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as Json;
  return { ...body, id: body.id, path: body.path, fullPath: body.path_with_namespace, name: body.name, namespaceId: body.namespace.id };
}

/**
 * A public upstream project (README.md and a.txt on `main`, by its owner), a fork of it by `forker`
 * with one commit on a new branch, and the merge request from that branch to upstream's `main`.
 */
async function forkFixture(w: World, opts: { upstreamVisibility?: "public" | "private"; mr?: Json } = {}) {
  const owner = await w.user();
  const forker = await w.user();
  const upstream = await w.project({ owner, visibility: opts.upstreamVisibility ?? "public", ...(opts.upstreamVisibility === "private" ? { reporters: [forker] } : {}) });
  const base = await commit(w, owner, upstream, "main", "Initial commit", [
    { action: "create", file_path: "README.md", content: "# Hello\n" },
    { action: "create", file_path: "a.txt", content: "1\n2\n3\n4\n5\n6\n7\n8\n" },
  ]);
  const forked = await fork(w, forker, upstream);
  const feature = branch("forked");
  const head = await commit(w, forker, forked, feature, "Change a in the fork", [{ action: "update", file_path: "a.txt", content: "1\nTWO\n3\n4\n5\n6\n7\n8\n" }], {
    start_branch: "main",
  });
  return { owner, forker, upstream, fork: forked, base, feature, head };
}

async function openFromFork(w: World, f: Awaited<ReturnType<typeof forkFixture>>, body: Json = {}): Promise<Json> {
  const res = await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, {
    json: { title: "Change a", source_branch: f.feature, target_branch: "main", target_project_id: f.upstream.id, ...body },
  });
  if (res.status !== 201) throw new Error(`create from fork: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

describe("POST /projects/:id/merge_requests with target_project_id (from a fork)", () => {
  requiresAuthentication((w) => w.anonymous.post("/projects/1/merge_requests", { json: { title: "x", source_branch: "a", target_branch: "main", target_project_id: 2 } }));

  it("opens the merge request in the target project, with the fork as source_project_id", async () => {
    const w = await world();
    const f = await forkFixture(w);
    const res = await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, {
      json: { title: "Change a", source_branch: f.feature, target_branch: "main", target_project_id: f.upstream.id, labels: "ignored" },
    });
    expect(res.status).toBe(201);
    const mr = (await res.json()) as Json;
    expect(mr).toMatchObject({
      iid: 1,
      project_id: f.upstream.id,
      source_project_id: f.fork.id,
      target_project_id: f.upstream.id,
      source_branch: f.feature,
      target_branch: "main",
      state: "opened",
      author: { id: f.forker.id },
      // `reference` and `references.relative` are relative to the project the call was made on: the fork.
      reference: `${f.upstream.fullPath}!1`,
      references: { short: "!1", relative: `${f.upstream.fullPath}!1`, full: `${f.upstream.fullPath}!1` },
      web_url: `http://edgeforge.test/${f.upstream.fullPath}/-/merge_requests/1`,
      // Labels need admin_merge_request in the target (IssuableBaseService#filter_params): none for the forker.
      labels: [],
      user: { can_merge: false },
    });
    const [row] = await rows(w, sql`SELECT project_id, source_project_id FROM merge_requests WHERE id = ${mr.id}`);
    expect(row).toEqual({ project_id: f.upstream.id, source_project_id: f.fork.id });
    // The target's iid counter: the next merge request of upstream is !2, the fork has none.
    expect(await rows(w, sql`SELECT project_id, last_value FROM internal_ids WHERE usage = 'merge_requests' AND project_id IN (${f.upstream.id}, ${f.fork.id})`)).toEqual([
      { project_id: f.upstream.id, last_value: 1 },
    ]);
  });

  it("is listed by the target project, not by the fork, and shown with the fork's head", async () => {
    const w = await world();
    const f = await forkFixture(w);
    const mr = await openFromFork(w, f);
    const upstreamList = (await (await w.as(f.owner).get(`/projects/${f.upstream.id}/merge_requests`)).json()) as Json[];
    expect(upstreamList.map((m) => [m.iid, m.source_project_id, m.target_project_id])).toEqual([[1, f.fork.id, f.upstream.id]]);
    const bySource = (await (await w.as(f.owner).get(`/projects/${f.upstream.id}/merge_requests`, { query: { source_project_id: String(f.fork.id) } })).json()) as Json[];
    expect(bySource.map((m) => m.id)).toEqual([mr.id]);
    expect(await (await w.as(f.forker).get(`/projects/${f.fork.id}/merge_requests`)).json()).toEqual([]);
    const shown = (await (await w.as(f.owner).get(`/projects/${f.upstream.id}/merge_requests/1`)).json()) as Json;
    expect(shown).toMatchObject({
      source_project_id: f.fork.id,
      sha: f.head,
      merge_status: "can_be_merged",
      detailed_merge_status: "mergeable",
      changes_count: "1",
      diff_refs: { base_sha: f.base, start_sha: f.base, head_sha: f.head },
      user: { can_merge: true },
    });
  });

  it("allows the same branch name on both sides, and merge requests between two forks of a network", async () => {
    const w = await world();
    const f = await forkFixture(w);
    // MergeRequest#validate_branches refuses the same branch only inside one project.
    const same = await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, {
      json: { title: "main to main", source_branch: "main", target_branch: "main", target_project_id: f.upstream.id },
    });
    expect(same.status).toBe(201);
    // A sibling fork is in the same network (`in_fork_network_of?`).
    const other = await w.user();
    const sibling = await fork(w, other, f.upstream);
    const res = await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, {
      json: { title: "to the sibling", source_branch: f.feature, target_branch: "main", target_project_id: sibling.id },
    });
    expect(res.status).toBe(201);
    expect((await res.json()) as Json).toMatchObject({ iid: 1, project_id: sibling.id, source_project_id: f.fork.id });
    // And the way back: from upstream into a fork the caller may read.
    const back = await w.as(f.owner).post(`/projects/${f.upstream.id}/merge_requests`, {
      json: { title: "upstream to fork", source_branch: "main", target_branch: "main", target_project_id: f.fork.id },
    });
    expect(back.status).toBe(201);
    expect((await back.json()) as Json).toMatchObject({ project_id: f.fork.id, source_project_id: f.upstream.id });
  });

  it("answers 422 for a project outside the fork network (validate_fork)", async () => {
    const w = await world();
    const f = await forkFixture(w);
    const unrelated = await w.project({ developers: [f.forker] });
    const res = await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, {
      json: { title: "x", source_branch: f.feature, target_branch: "main", target_project_id: unrelated.id },
    });
    expect(await statusAndBody(res)).toEqual([422, { message: ["Source project is not a fork of the target project"] }]);
    // An unlinked fork is no longer in the network.
    expect((await w.as(f.forker).delete(`/projects/${f.fork.id}/fork`)).status).toBe(204);
    const unlinked = await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, {
      json: { title: "x", source_branch: f.feature, target_branch: "main", target_project_id: f.upstream.id },
    });
    expect(await statusAndBody(unlinked)).toEqual([422, { message: ["Source project is not a fork of the target project"] }]);
    expect(await rows(w, sql`SELECT count(*)::int AS n FROM merge_requests WHERE project_id IN (${f.upstream.id}, ${unrelated.id})`)).toEqual([{ n: 0 }]);
  });

  it("answers the same 422 for a project linked into the network with its own object pool (Differs from GitLab)", async () => {
    const w = await world();
    const f = await forkFixture(w);
    const linked = await w.project({ owner: f.forker, visibility: "public" });
    await commit(w, f.forker, linked, "topic", "Linked project's own commit", [{ action: "create", file_path: "l.txt", content: "l\n" }]);
    expect((await w.as(f.forker).post(`/projects/${linked.id}/fork/${f.upstream.id}`)).status).toBe(201);
    const res = await w.as(f.forker).post(`/projects/${linked.id}/merge_requests`, {
      json: { title: "x", source_branch: "topic", target_branch: "main", target_project_id: f.upstream.id },
    });
    expect(await statusAndBody(res)).toEqual([422, { message: ["Source project is not a fork of the target project"] }]);
  });

  it("answers 400 for missing parameters and model errors, 409 for an open duplicate from the same fork", async () => {
    const w = await world();
    const f = await forkFixture(w);
    const missing = await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, { json: { target_project_id: f.upstream.id } });
    expect(await statusAndBody(missing)).toEqual([400, { error: "title is missing, source_branch is missing, target_branch is missing" }]);
    const notInt = await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, {
      json: { title: "x", source_branch: f.feature, target_branch: "main", target_project_id: "abc" },
    });
    expect(await statusAndBody(notInt)).toEqual([400, { error: "target_project_id is invalid" }]);
    const bad = await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, {
      json: { title: "", source_branch: "a..b", target_branch: "main", target_project_id: f.upstream.id },
    });
    expect(await statusAndBody(bad)).toEqual([400, { message: { title: ["can't be blank"], source_branch: ["is invalid"] } }]);
    await openFromFork(w, f);
    const again = await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, {
      json: { title: "again", source_branch: f.feature, target_branch: "main", target_project_id: f.upstream.id },
    });
    expect(await statusAndBody(again)).toEqual([409, { message: ["Another open merge request already exists for this source branch: !1"] }]);
    // The same branch name of the upstream project itself is another source: no conflict.
    await commit(w, f.owner, f.upstream, f.feature, "Upstream's own branch", [{ action: "create", file_path: "b.txt", content: "b\n" }], { start_branch: "main" });
    const own = await w.as(f.owner).post(`/projects/${f.upstream.id}/merge_requests`, { json: { title: "own", source_branch: f.feature, target_branch: "main" } });
    expect(own.status).toBe(201);
  });

  it("needs push access to the fork and create_merge_request_in on the target: 403, and 404 for a missing target", async () => {
    const w = await world();
    const f = await forkFixture(w);
    // A reporter of the fork may not create from it (`create_merge_request_from` is for developers).
    const reporter = await w.user();
    await w.addMembers("Project", f.fork.id, { reporters: [reporter] });
    const json = { title: "x", source_branch: f.feature, target_branch: "main", target_project_id: f.upstream.id };
    expect(await statusAndBody(await w.as(reporter).post(`/projects/${f.fork.id}/merge_requests`, { json }))).toEqual([403, { message: "403 Forbidden" }]);
    // A target the caller cannot read is 403 (CreateService raises AccessDeniedError), not 404.
    const hidden = await w.project({ visibility: "private" });
    expect(
      await statusAndBody(await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, { json: { ...json, target_project_id: hidden.id } })),
    ).toEqual([403, { message: "403 Forbidden" }]);
    // `Project.find` of an id that does not exist.
    expect(
      await statusAndBody(await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, { json: { ...json, target_project_id: 2147483000 } })),
    ).toEqual([404, { message: "404 Not found" }]);
    // The target's merge requests are off: no `create_merge_request_in`.
    await rows(w, sql`UPDATE projects SET merge_requests_enabled = false WHERE id = ${f.upstream.id}`);
    expect(await statusAndBody(await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, { json }))).toEqual([403, { message: "403 Forbidden" }]);
    await rows(w, sql`UPDATE projects SET merge_requests_enabled = true, archived = true WHERE id = ${f.upstream.id}`);
    expect(await statusAndBody(await w.as(f.forker).post(`/projects/${f.fork.id}/merge_requests`, { json }))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("lets a non-member who can read the target open one (public_user_access), and a guest of a private target", async () => {
    const w = await world();
    const f = await forkFixture(w, { upstreamVisibility: "private" });
    // The forker is a reporter of the private upstream (to fork it); a guest may open merge requests too.
    await rows(w, sql`UPDATE members SET access_level = 10 WHERE source_type = 'Project' AND source_id = ${f.upstream.id} AND user_id = ${f.forker.id}`);
    const mr = await openFromFork(w, f);
    expect(mr).toMatchObject({ project_id: f.upstream.id, source_project_id: f.fork.id });
  });
});

describe("A merge request from a fork: commits, changes, diffs, versions", () => {
  it("reads the fork's branch through the shared object pool", async () => {
    const w = await world();
    const f = await forkFixture(w);
    await openFromFork(w, f);
    const base = `/projects/${f.upstream.id}/merge_requests/1`;
    const commits = (await (await w.as(f.owner).get(`${base}/commits`)).json()) as Json[];
    expect(commits.map((c) => [c.id, c.title])).toEqual([[f.head, "Change a in the fork"]]);
    const changes = (await (await w.as(f.owner).get(`${base}/changes`)).json()) as Json;
    expect(changes).toMatchObject({ source_project_id: f.fork.id, overflow: false });
    expect(changes.changes).toEqual([
      expect.objectContaining({ old_path: "a.txt", new_path: "a.txt", new_file: false, diff: expect.stringContaining("-2\n+TWO\n") }),
    ]);
    const diffs = (await (await w.as(f.owner).get(`${base}/diffs`)).json()) as Json[];
    expect(diffs.map((d) => d.new_path)).toEqual(["a.txt"]);
    const versions = (await (await w.as(f.owner).get(`${base}/versions`)).json()) as Json[];
    expect(versions).toEqual([expect.objectContaining({ head_commit_sha: f.head, base_commit_sha: f.base, start_commit_sha: f.base, real_size: "1" })]);
  });

  it("sees a push to the fork's branch: new head, new version, a new trial merge", async () => {
    const w = await world();
    const f = await forkFixture(w);
    await openFromFork(w, f);
    const base = `/projects/${f.upstream.id}/merge_requests/1`;
    expect(((await (await w.as(f.owner).get(base)).json()) as Json).sha).toBe(f.head);
    const second = await commit(w, f.forker, f.fork, f.feature, "More in the fork", [{ action: "create", file_path: "c.txt", content: "c\n" }]);
    const shown = (await (await w.as(f.owner).get(base)).json()) as Json;
    expect(shown).toMatchObject({ sha: second, merge_status: "can_be_merged", changes_count: "2", diff_refs: { head_sha: second, base_sha: f.base } });
    const versions = (await (await w.as(f.owner).get(`${base}/versions`)).json()) as Json[];
    expect(versions.map((v) => v.head_commit_sha)).toEqual([second, f.head]);
    // A conflicting change upstream makes the trial merge fail.
    await commit(w, f.owner, f.upstream, "main", "Conflict upstream", [{ action: "update", file_path: "a.txt", content: "1\nzwei\n3\n4\n5\n6\n7\n8\n" }]);
    expect(((await (await w.as(f.owner).get(base)).json()) as Json)).toMatchObject({ merge_status: "cannot_be_merged", has_conflicts: true });
    // Upstream's branch of the same name is not the source.
    await commit(w, f.owner, f.upstream, f.feature, "Upstream's own branch", [{ action: "create", file_path: "u.txt", content: "u\n" }], { start_branch: "main" });
    expect(((await (await w.as(f.owner).get(base)).json()) as Json).sha).toBe(second);
  });
});

describe("PUT /projects/:id/merge_requests/:merge_request_iid/merge (from a fork)", () => {
  it("merges the fork's branch into the target's, and keeps the fork's branch when the merger cannot push to the fork", async () => {
    const w = await world();
    const f = await forkFixture(w);
    await openFromFork(w, f);
    const res = await w.as(f.owner).put(`/projects/${f.upstream.id}/merge_requests/1/merge`, { json: { should_remove_source_branch: true, sha: f.head } });
    expect(res.status).toBe(200);
    const merged = (await res.json()) as Json;
    expect(merged).toMatchObject({ state: "merged", should_remove_source_branch: true, merged_by: { id: f.owner.id } });
    const tip = (await branchHead(w, f.upstream, "main"))!;
    expect(merged.merge_commit_sha).toBe(tip);
    expect((await commitRow(w, f.upstream, tip)).parents).toEqual([f.base, f.head]);
    // `can_remove_source_branch?` needs push_code on the fork, which upstream's owner lacks.
    expect(await branchHead(w, f.fork, f.feature)).toBe(f.head);
    // The fork's own main did not move.
    expect(await branchHead(w, f.fork, "main")).toBe(f.base);
  });

  it("removes the fork's branch when the merger may push to the fork", async () => {
    const w = await world();
    const f = await forkFixture(w);
    const maintainer = await w.user();
    await w.addMembers("Project", f.upstream.id, { maintainers: [maintainer] });
    await w.addMembers("Project", f.fork.id, { developers: [maintainer] });
    await openFromFork(w, f, { remove_source_branch: true });
    const res = await w.as(maintainer).put(`/projects/${f.upstream.id}/merge_requests/1/merge`);
    expect(res.status).toBe(200);
    expect((await res.json()) as Json).toMatchObject({ state: "merged", force_remove_source_branch: true });
    expect(await branchHead(w, f.fork, f.feature)).toBeNull();
    // The removal is the fork's push event, the merge upstream's.
    const events = await rows(w, sql`SELECT project_id, ref, after FROM push_events WHERE project_id IN (${f.upstream.id}, ${f.fork.id}) AND user_id = ${maintainer.id} ORDER BY id`);
    expect(events).toEqual([
      { project_id: f.upstream.id, ref: "refs/heads/main", after: (await branchHead(w, f.upstream, "main"))! },
      { project_id: f.fork.id, ref: `refs/heads/${f.feature}`, after: "0".repeat(40) },
    ]);
  });

  it("needs merge rights in the target: 401 for the fork's owner", async () => {
    const w = await world();
    const f = await forkFixture(w);
    await openFromFork(w, f);
    const res = await w.as(f.forker).put(`/projects/${f.upstream.id}/merge_requests/1/merge`);
    expect(await statusAndBody(res)).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await branchHead(w, f.upstream, "main")).toBe(f.base);
  });

  it("GET …/merge_ref writes the merge of the fork's head into the target's refs/merge-requests/:iid/merge", async () => {
    const w = await world();
    const f = await forkFixture(w);
    await openFromFork(w, f);
    const res = await w.as(f.owner).get(`/projects/${f.upstream.id}/merge_requests/1/merge_ref`);
    expect(res.status).toBe(200);
    const { commit_id } = (await res.json()) as Json;
    expect((await commitRow(w, f.upstream, commit_id)).parents).toEqual([f.base, f.head]);
    const refs = await rows(w, sql`SELECT project_id, target FROM git_refs WHERE name = 'refs/merge-requests/1/merge' AND project_id IN (${f.upstream.id}, ${f.fork.id})`);
    expect(refs).toEqual([{ project_id: f.upstream.id, target: commit_id }]);
  });
});

describe("PUT /projects/:id/merge_requests/:merge_request_iid/rebase (from a fork)", () => {
  it("rebases the fork's branch for whoever may push to it; 403 for the target's owner", async () => {
    const w = await world();
    const f = await forkFixture(w);
    await openFromFork(w, f);
    const upstreamTip = await commit(w, f.owner, f.upstream, "main", "Upstream moves", [{ action: "create", file_path: "up.txt", content: "up\n" }]);
    const path = `/projects/${f.upstream.id}/merge_requests/1/rebase`;
    // Upstream's owner has no push access to the fork (no allow_collaboration here).
    expect(await statusAndBody(await w.as(f.owner).put(path))).toEqual([403, { message: "403 Forbidden - Cannot push to source branch" }]);
    // The forker reads the public upstream and pushes to the fork.
    const res = await w.as(f.forker).put(path);
    expect(await statusAndBody(res)).toEqual([202, { rebase_in_progress: false }]);
    const rebased = (await branchHead(w, f.fork, f.feature))!;
    expect(rebased).not.toBe(f.head);
    expect((await commitRow(w, f.upstream, rebased)).parents).toEqual([upstreamTip]);
    // Upstream has no branch of that name.
    expect(await branchHead(w, f.upstream, f.feature)).toBeNull();
    const shown = (await (await w.as(f.owner).get(`/projects/${f.upstream.id}/merge_requests/1`)).json()) as Json;
    expect(shown).toMatchObject({ sha: rebased, diff_refs: { base_sha: upstreamTip, head_sha: rebased } });
  });
});

describe("DELETE /projects/:id/fork (with merge requests from and to the fork)", () => {
  it("closes the open merge requests between the fork and its network (UnlinkForkService), and only those", async () => {
    const w = await world();
    const f = await forkFixture(w);
    const fromFork = await openFromFork(w, f);
    const toFork = (await (
      await w.as(f.owner).post(`/projects/${f.upstream.id}/merge_requests`, {
        json: { title: "upstream to fork", source_branch: "main", target_branch: f.feature, target_project_id: f.fork.id },
      })
    ).json()) as Json;
    await commit(w, f.owner, f.upstream, "own", "Upstream's own", [{ action: "create", file_path: "o.txt", content: "o\n" }], { start_branch: "main" });
    const own = (await (await w.as(f.owner).post(`/projects/${f.upstream.id}/merge_requests`, { json: { title: "own", source_branch: "own", target_branch: "main" } })).json()) as Json;
    expect((await w.as(f.forker).delete(`/projects/${f.fork.id}/fork`)).status).toBe(204);
    const states = await rows(w, sql`SELECT id, state, closed_by_id FROM merge_requests WHERE id IN (${fromFork.id}, ${toFork.id}, ${own.id}) ORDER BY id`);
    expect(states).toEqual([
      { id: fromFork.id, state: "closed", closed_by_id: f.forker.id },
      { id: toFork.id, state: "closed", closed_by_id: f.forker.id },
      { id: own.id, state: "opened", closed_by_id: null },
    ]);
    const events = await rows(w, sql`SELECT merge_request_id, state, user_id FROM resource_state_events WHERE merge_request_id IN (${fromFork.id}, ${toFork.id}, ${own.id}) ORDER BY merge_request_id`);
    expect(events).toEqual([
      { merge_request_id: fromFork.id, state: "closed", user_id: f.forker.id },
      { merge_request_id: toFork.id, state: "closed", user_id: f.forker.id },
    ]);
    // A second unlink is a no-op (304) and closes nothing more.
    expect((await w.as(f.forker).delete(`/projects/${f.fork.id}/fork`)).status).toBe(304);
  });
});

describe("DELETE /projects/:id (a fork with a merge request into its source)", () => {
  it("closes the merge request from the deleted fork, which then cannot be merged", async () => {
    const w = await world();
    const f = await forkFixture(w);
    const mr = await openFromFork(w, f);
    expect((await w.as(f.forker).delete(`/projects/${f.fork.id}`)).status).toBe(202);
    const shown = (await (await w.as(f.owner).get(`/projects/${f.upstream.id}/merge_requests/${mr.iid}`)).json()) as Json;
    expect(shown).toMatchObject({ state: "closed", closed_by: { id: f.forker.id }, source_project_id: f.fork.id });
    const res = await w.as(f.owner).put(`/projects/${f.upstream.id}/merge_requests/${mr.iid}/merge`);
    expect(res.status).toBe(405);
    expect((await (await w.as(f.owner).get(`/projects/${f.upstream.id}`)).json()) as Json).toMatchObject({ forks_count: 0 });
  });
});

describe("Merge Request Hook payload of a merge request from a fork", () => {
  it("names the fork as `source` and the target as `target`, with the fork's head as `last_commit`", async () => {
    const w = await world();
    const f = await forkFixture(w);
    const mr = await openFromFork(w, f);
    // The single GET runs the mergeability check, which records the head (`sha`).
    expect(((await (await w.as(f.owner).get(`/projects/${f.upstream.id}/merge_requests/${mr.iid}`)).json()) as Json).sha).toBe(f.head);
    const [built] = await w.db(async (db) => {
      const project = (await loadProject(db, f.upstream.id))!;
      return buildEvent(db, project, { kind: "merge_request", projectId: f.upstream.id, id: mr.id, action: "open", userId: f.forker.id }, "http://edgeforge.test");
    });
    const attrs = (built.payload as Json).object_attributes;
    expect(attrs).toMatchObject({
      source_project_id: f.fork.id,
      target_project_id: f.upstream.id,
      source: { id: f.fork.id, path_with_namespace: f.fork.fullPath },
      target: { id: f.upstream.id, path_with_namespace: f.upstream.fullPath },
      last_commit: { id: f.head },
    });
  });
});

describe("GET /projects/:id/merge_requests/:merge_request_iid/pipelines (from a fork)", () => {
  it("lists the fork's pipelines of the source branch, shows the fork's head pipeline, and merging waits for it", async () => {
    const w = await world();
    const owner = await w.user();
    const forker = await w.user();
    const upstream = await w.project({ owner, visibility: "public" });
    await commit(w, owner, upstream, "main", "Add CI [skip ci]", [{ action: "create", file_path: ".gitlab-ci.yml", content: "unit:\n  script: [echo ok]\n" }]);
    const forked = await fork(w, forker, upstream);
    const feature = branch("ci");
    const head = await commit(w, forker, forked, feature, "Change [skip ci]", [{ action: "create", file_path: "x.txt", content: "x\n" }], { start_branch: "main" });
    const created = await w.as(forker).post(`/projects/${forked.id}/pipeline`, { json: { ref: feature } });
    const pipeline = (await created.json()) as Json;
    expect(created.status, JSON.stringify(pipeline)).toBe(201);
    const res = await w.as(forker).post(`/projects/${forked.id}/merge_requests`, {
      json: { title: "CI in the fork", source_branch: feature, target_branch: "main", target_project_id: upstream.id },
    });
    expect(res.status).toBe(201);
    const base = `/projects/${upstream.id}/merge_requests/1`;
    const pipelines = (await (await w.as(owner).get(`${base}/pipelines`)).json()) as Json[];
    expect(pipelines.map((p) => [p.id, p.project_id, p.sha])).toEqual([[pipeline.id, forked.id, head]]);
    const shown = (await (await w.as(owner).get(base)).json()) as Json;
    expect(shown.head_pipeline).toMatchObject({ id: pipeline.id, project_id: forked.id, sha: head });
    // `only_allow_merge_if_pipeline_succeeds`: the fork's pipeline has not succeeded.
    await rows(w, sql`UPDATE projects SET only_allow_merge_if_pipeline_succeeds = true WHERE id = ${upstream.id}`);
    expect((await w.as(owner).put(`${base}/merge`)).status).toBe(405);
    // An upstream pipeline of a branch with the same name is not the merge request's.
    expect(await branchHead(w, upstream, feature)).toBeNull();
  });
});

describe("merge_when_pipeline_succeeds (from a fork)", () => {
  it("merges once the fork's head pipeline succeeds, as the merge user, keeping the fork's branch the merger cannot push to", async () => {
    const w = await world();
    const owner = await w.user();
    const forker = await w.user();
    const upstream = await w.project({ owner, visibility: "public" });
    const base = await commit(w, owner, upstream, "main", "Add CI [skip ci]", [{ action: "create", file_path: ".gitlab-ci.yml", content: "unit:\n  script: [echo ok]\n" }]);
    const forked = await fork(w, forker, upstream);
    const feature = branch("auto");
    const head = await commit(w, forker, forked, feature, "Change [skip ci]", [{ action: "create", file_path: "x.txt", content: "x\n" }], { start_branch: "main" });
    const created = await w.as(forker).post(`/projects/${forked.id}/pipeline`, { json: { ref: feature } });
    expect(created.status).toBe(201);
    const runner = await projectRunner(w.as(forker), forked.id);
    const job = await claim(runner.token);
    const mr = (await (
      await w.as(forker).post(`/projects/${forked.id}/merge_requests`, {
        json: { title: "Auto", source_branch: feature, target_branch: "main", target_project_id: upstream.id },
      })
    ).json()) as Json;
    const url = `/projects/${upstream.id}/merge_requests/${mr.iid}`;
    const waiting = await w.as(owner).put(`${url}/merge`, { json: { merge_when_pipeline_succeeds: true, should_remove_source_branch: true } });
    expect(waiting.status).toBe(200);
    expect((await waiting.json()) as Json).toMatchObject({ state: "opened", merge_when_pipeline_succeeds: true, merge_user: { id: owner.id } });
    expect((await finish(job, "success")).status).toBe(200);
    const merged = await eventually(async () => (await (await w.as(owner).get(url)).json()) as Json, (b) => b.state === "merged");
    expect(merged).toMatchObject({ state: "merged", merged_by: { id: owner.id }, merge_error: null });
    expect((await commitRow(w, upstream, (await branchHead(w, upstream, "main"))!)).parents).toEqual([base, head]);
    expect(await branchHead(w, forked, feature)).toBe(head);
  });
});

describe("allow_collaboration (allow_maintainer_to_push) on merge requests from a fork", () => {
  const basicOf = (u: TestUser) => `Basic ${btoa(`anyone:${u.token}`)}`;
  /** One ref update with an empty pack (the commit is already in the network's pool); the report-status text. */
  async function pushRef(user: TestUser, project: TestProject, ref: string, before: string, after: string) {
    const command = pkt(`${before} ${after} ${ref}\0report-status\n`);
    const writer = new PackWriter();
    const parts = [command, FLUSH, writer.header(0), writer.trailer()];
    const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
      body.set(part, at);
      at += part.length;
    }
    const res = await worker.fetch(
      new Request(`${BASE}/${project.fullPath}.git/git-receive-pack`, {
        method: "POST",
        headers: { Authorization: basicOf(user), "Content-Type": "application/x-git-receive-pack-request" },
        body,
      }),
    );
    return [res.status, new TextDecoder().decode(await res.arrayBuffer())] as const;
  }
  const receivePackAdvert = async (user: TestUser, project: TestProject) => {
    const res = await worker.fetch(new Request(`${BASE}/${project.fullPath}.git/info/refs?service=git-receive-pack`, { headers: { Authorization: basicOf(user) } }));
    return [res.status, res.status === 200 ? "" : await res.text()] as const;
  };
  const commitAs = (w: World, user: TestUser, project: TestProject, branchName: string) =>
    w.as(user).post(`/projects/${project.id}/repository/commits`, {
      json: { branch: branchName, commit_message: "Upstream helps", actions: [{ action: "create", file_path: `${unique("help")}.txt`, content: "h\n" }] },
    });

  it("is stored and shown for a fork's merge request, and lets the target's maintainers push to its source branch only", async () => {
    const w = await world();
    const f = await forkFixture(w);
    const stranger = await w.user();
    // Without it, upstream's owner may not push to the fork.
    expect((await commitAs(w, f.owner, f.fork, f.feature)).status).toBe(403);
    expect(await receivePackAdvert(f.owner, f.fork)).toEqual([403, "You are not allowed to push code to this project."]);

    const mr = await openFromFork(w, f, { allow_collaboration: true });
    expect(mr).toMatchObject({ allow_collaboration: true, allow_maintainer_to_push: true });
    const shown = (await (await w.as(f.owner).get(`/projects/${f.upstream.id}/merge_requests/${mr.iid}`)).json()) as Json;
    expect(shown).toMatchObject({ allow_collaboration: true, allow_maintainer_to_push: true });
    // The keys follow force_remove_source_branch, as MergeRequestBasic exposes them.
    const keys = Object.keys(shown);
    expect(keys.slice(keys.indexOf("force_remove_source_branch") + 1, keys.indexOf("force_remove_source_branch") + 3)).toEqual(["allow_collaboration", "allow_maintainer_to_push"]);

    // The commits API and the files API: the source branch, not the fork's other branches.
    expect((await commitAs(w, f.owner, f.fork, f.feature)).status).toBe(201);
    const file = await w.as(f.owner).post(`/projects/${f.fork.id}/repository/files/${unique("f")}.txt`, { json: { branch: f.feature, content: "x", commit_message: "File" } });
    expect(file.status).toBe(201);
    expect(await statusAndBody(await commitAs(w, f.owner, f.fork, "main"))).toEqual([403, { message: "403 Forbidden - You are not allowed to push into this branch" }]);
    // Someone who may not merge into upstream's main gets nothing.
    expect((await commitAs(w, stranger, f.fork, f.feature)).status).toBe(403);

    // Git over smart HTTP: the source branch moves, another branch of the fork does not.
    expect(await receivePackAdvert(f.owner, f.fork)).toEqual([200, ""]);
    const tip = (await branchHead(w, f.fork, f.feature))!;
    const [status, report] = await pushRef(f.owner, f.fork, `refs/heads/${f.feature}`, tip, f.head);
    expect(status).toBe(200);
    expect(report).toContain(`ok refs/heads/${f.feature}`);
    expect(await branchHead(w, f.fork, f.feature)).toBe(f.head);
    const [, refused] = await pushRef(f.owner, f.fork, "refs/heads/main", f.base, f.head);
    expect(refused).toContain("ng refs/heads/main pre-receive hook declined");
    expect(await branchHead(w, f.fork, "main")).toBe(f.base);
    expect(await receivePackAdvert(stranger, f.fork)).toEqual([403, "You are not allowed to push code to this project."]);

    // The rebase endpoint pushes to the source branch too.
    expect((await w.as(f.owner).put(`/projects/${f.upstream.id}/merge_requests/${mr.iid}/rebase`)).status).toBe(202);

    // The author turns it off: upstream's owner is refused again.
    const off = await w.as(f.forker).put(`/projects/${f.upstream.id}/merge_requests/${mr.iid}`, { json: { allow_maintainer_to_push: false } });
    expect(await off.json()).toMatchObject({ allow_collaboration: false, allow_maintainer_to_push: false });
    expect((await commitAs(w, f.owner, f.fork, f.feature)).status).toBe(403);
    // Who cannot push to the fork cannot allow it: dropped silently (`can_allow_collaboration?`).
    const ignored = await w.as(f.owner).put(`/projects/${f.upstream.id}/merge_requests/${mr.iid}`, { json: { allow_collaboration: true } });
    expect(ignored.status).toBe(200);
    expect(await ignored.json()).toMatchObject({ allow_collaboration: false });
  });

  it("is not shown for a merge request inside one project, and not kept for a private fork or a protected source branch", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner, visibility: "public" });
    await commit(w, owner, project, "main", "Initial commit", [{ action: "create", file_path: "a.txt", content: "a\n" }]);
    await commit(w, owner, project, "topic", "Topic", [{ action: "create", file_path: "b.txt", content: "b\n" }], { start_branch: "main" });
    const same = await w.as(owner).post(`/projects/${project.id}/merge_requests`, { json: { title: "t", source_branch: "topic", target_branch: "main", allow_collaboration: true } });
    expect(same.status).toBe(201);
    const body = (await same.json()) as Json;
    expect(body).not.toHaveProperty("allow_collaboration");
    expect(body).not.toHaveProperty("allow_maintainer_to_push");

    // `collaborative_push_possible?`: the source branch must not be protected in the fork.
    const f = await forkFixture(w);
    expect((await w.as(f.forker).post(`/projects/${f.fork.id}/protected_branches`, { json: { name: f.feature } })).status).toBe(201);
    expect(await openFromFork(w, f, { allow_collaboration: true })).toMatchObject({ allow_collaboration: false });

    // ...and neither project private.
    const g = await forkFixture(w);
    await rows(w, sql`UPDATE projects SET visibility_level = 0 WHERE id = ${g.fork.id}`);
    expect(await openFromFork(w, g, { allow_collaboration: true })).toMatchObject({ allow_collaboration: false });
  });
});
