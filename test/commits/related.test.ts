import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type TestProject, type TestUser, type World } from "../helpers/world";
import { commitOn, commitsPath, smallRepo } from "../helpers/commits";

type Json = Record<string, any>;

/** A merge request through the API; its first diff version is recorded by the single GET (RefreshService). */
async function openMergeRequest(w: World, user: TestUser, project: TestProject, source: string, title: string) {
  const api = w.as(user);
  const res = await api.post(`/projects/${project.id}/merge_requests`, { json: { source_branch: source, target_branch: "main", title } });
  const mr = (await res.json()) as Json;
  expect(res.status).toBe(201);
  expect((await api.get(`/projects/${project.id}/merge_requests/${mr.iid}`)).status).toBe(200);
  return mr;
}

describe("GET /projects/:id/repository/commits/:sha/sequence", () => {
  it("counts the commits the commit reaches, and along first parents with first_parent", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const [third, second, first] = commits;
    const seq = async (sha: string, query?: Record<string, string>) => statusAndBody(await api.get(`${commitsPath(project)}/${sha}/sequence`, { query }));
    expect(await seq(first.id)).toEqual([200, { count: 1 }]);
    expect(await seq(second.id)).toEqual([200, { count: 2 }]);
    expect(await seq("main")).toEqual([200, { count: 3 }]);
    // A merge commit: main (3 commits) + a side branch of 2 commits from the first commit.
    await commitOn(api, project, "side", "Side 1", [{ action: "create", file_path: "s1", content: "1\n" }], { start_sha: first.id });
    await commitOn(api, project, "side", "Side 2", [{ action: "create", file_path: "s2", content: "2\n" }]);
    const mr = (await (await api.post(`/projects/${project.id}/merge_requests`, { json: { source_branch: "side", target_branch: "main", title: "Side" } })).json()) as Json;
    const merged = (await (await api.put(`/projects/${project.id}/merge_requests/${mr.iid}/merge`)).json()) as Json;
    expect(merged.state).toBe("merged");
    expect(await seq("main")).toEqual([200, { count: 6 }]);
    expect(await seq("main", { first_parent: "true" })).toEqual([200, { count: 4 }]);
    expect(await seq(third.id, { first_parent: "false" })).toEqual([200, { count: 3 }]);
  });

  it("answers 400 for a bad first_parent and 404 Commit Not Found for an unknown revision", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    expect(await statusAndBody(await api.get(`${commitsPath(project)}/main/sequence`, { query: { first_parent: "maybe" } }))).toEqual([400, { error: "first_parent is invalid" }]);
    expect(await statusAndBody(await api.get(`${commitsPath(project)}/nope/sequence`))).toEqual([404, { message: "404 Commit Not Found" }]);
    expect(await statusAndBody(await api.get(`${commitsPath(project)}/${"a".repeat(40)}/sequence`))).toEqual([404, { message: "404 Commit Not Found" }]);
  });

  it("follows download_code: 404 for strangers of a private project, 403 for guests, 200 anonymously on a public one", async () => {
    const w = await world();
    const guest = await w.user();
    const stranger = await w.user();
    const { project } = await smallRepo(w, { guests: [guest] });
    const path = `${commitsPath(project)}/main/sequence`;
    expect(await statusAndBody(await w.anonymous.get(path))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(stranger).get(path))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(guest).get(path))).toEqual([403, { message: "403 Forbidden" }]);
    const open = await smallRepo(w, { visibility: "public" });
    expect(await statusAndBody(await w.anonymous.get(`${commitsPath(open.project)}/main/sequence`))).toEqual([200, { count: 3 }]);
  });
});

describe("GET /projects/:id/repository/commits/:sha/merge_requests", () => {
  async function fixture(opts: { visibility?: "private" | "public"; reporters?: TestUser[]; guests?: TestUser[] } = {}) {
    const w = await world();
    const repo = await smallRepo(w, opts);
    const [third] = repo.commits;
    const a1 = await commitOn(repo.api, repo.project, "a", "A1", [{ action: "create", file_path: "a1", content: "1\n" }], { start_sha: third.id });
    const a2 = await commitOn(repo.api, repo.project, "a", "A2", [{ action: "create", file_path: "a2", content: "2\n" }]);
    // b starts from a1: a1 is in both merge requests, a2 only in a's, b1 only in b's.
    const b1 = await commitOn(repo.api, repo.project, "b", "B1", [{ action: "create", file_path: "b1", content: "1\n" }], { start_sha: a1.id });
    const mrA = await openMergeRequest(w, repo.owner, repo.project, "a", "A");
    const mrB = await openMergeRequest(w, repo.owner, repo.project, "b", "B");
    return { w, ...repo, a1, a2, b1, mrA, mrB };
  }
  const listPath = (project: { id: number }, sha: string) => `${commitsPath(project)}/${sha}/merge_requests`;

  it("lists the merge requests whose commits contain the commit, newest first, as MergeRequestBasic", async () => {
    const { project, api, commits, a1, a2, b1, mrA, mrB } = await fixture();
    const iids = async (sha: string) => ((await (await api.get(listPath(project, sha))).json()) as Json[]).map((mr) => mr.iid);
    expect(await iids(a1.id)).toEqual([mrB.iid, mrA.iid]);
    expect(await iids(a2.id)).toEqual([mrA.iid]);
    expect(await iids("b")).toEqual([mrB.iid]);
    expect(await iids(b1.id.slice(0, 10))).toEqual([mrB.iid]);
    // A commit of the target branch is in neither.
    expect(await iids(commits[0].id)).toEqual([]);
    const [body] = (await (await api.get(listPath(project, a2.id))).json()) as Json[];
    expect(body).toMatchObject({ id: mrA.id, iid: mrA.iid, project_id: project.id, title: "A", source_branch: "a", target_branch: "main", references: { short: `!${mrA.iid}` } });
    expect(body).not.toHaveProperty("subscribed");
  });

  it("finds a merged merge request by its merge commit", async () => {
    const { project, api, mrA } = await fixture();
    const merged = (await (await api.put(`/projects/${project.id}/merge_requests/${mrA.iid}/merge`)).json()) as Json;
    expect(merged.state).toBe("merged");
    const list = (await (await api.get(listPath(project, merged.merge_commit_sha))).json()) as Json[];
    expect(list.map((mr) => mr.iid)).toEqual([mrA.iid]);
  });

  it("paginates with totals", async () => {
    const { project, api, a1, mrA, mrB } = await fixture();
    const res = await api.get(listPath(project, a1.id), { query: { per_page: "1", page: "2" } });
    expect(((await res.json()) as Json[]).map((mr) => mr.iid)).toEqual([mrA.iid]);
    expect(res.headers.get("x-total")).toBe("2");
    expect(res.headers.get("x-total-pages")).toBe("2");
    expect(res.headers.get("x-prev-page")).toBe("1");
    expect(res.headers.get("x-next-page")).toBe("");
    expect(mrB.iid).toBeGreaterThan(mrA.iid);
    expect(await statusAndBody(await api.get(listPath(project, a1.id), { query: { per_page: "0" } }))).toEqual([400, { error: "per_page does not have a valid value" }]);
  });

  it("answers 404 Commit Not Found for an unknown commit", async () => {
    const { project, api } = await fixture();
    expect(await statusAndBody(await api.get(listPath(project, "nope")))).toEqual([404, { message: "404 Commit Not Found" }]);
  });

  it("needs download_code and read_merge_request", async () => {
    const w0 = await world();
    const guest = await w0.user();
    const reporter = await w0.user();
    const { w, project, a1 } = await fixture({ guests: [guest], reporters: [reporter] });
    const path = listPath(project, a1.id);
    expect(await statusAndBody(await w.anonymous.get(path))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(await w.user()).get(path))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(guest).get(path))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.as(reporter).get(path)).status).toBe(200);
    const open = await fixture({ visibility: "public" });
    expect((await open.w.anonymous.get(listPath(open.project, open.a1.id))).status).toBe(200);
  });
});
