import { describe, expect, it } from "vitest";
import { createRef } from "../../functions/shared/git/store/refs";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { commitOn, commitsPath, smallRepo } from "../helpers/commits";

type Json = Record<string, any>;
const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

describe("GET /projects/:id/repository/commits/:sha", () => {
  it("finds a commit by sha, short sha, branch (slashes encoded), tag or HEAD~n, with stats by default", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const [third, second, first] = commits;
    await commitOn(api, project, "feature/x", "On feature", [{ action: "create", file_path: "f", content: "f\n" }], { start_sha: first.id });
    await w.db((db) => createRef(db, project.id, "refs/tags/v1", second.id));
    const get = async (sha: string, query?: Record<string, string>) => (await api.get(`${commitsPath(project)}/${sha}`, { query })).json() as Promise<Json>;
    const full = await get(second.id);
    expect(full).toMatchObject({
      id: second.id,
      title: "Add docs",
      message: "Add docs\n\nWith a body.",
      parent_ids: [first.id],
      stats: { additions: 2, deletions: 0, total: 2 },
      status: null,
      project_id: project.id,
      last_pipeline: null,
    });
    expect(Object.keys(full)).toEqual([
      "id", "short_id", "created_at", "parent_ids", "title", "message", "author_name", "author_email", "authored_date",
      "committer_name", "committer_email", "committed_date", "trailers", "web_url", "stats", "status", "project_id", "last_pipeline",
    ]);
    expect((await get(second.id.slice(0, 8))).id).toBe(second.id);
    expect((await get("main")).id).toBe(third.id);
    expect((await get("v1")).id).toBe(second.id);
    expect((await get("HEAD~2")).id).toBe(first.id);
    expect((await get("feature%2Fx")).parent_ids).toEqual([first.id]);
    const noStats = await get("main", { stats: "false" });
    expect(noStats.stats).toBeUndefined();
    expect(noStats.status).toBeNull();
  });

  it("answers 404 Commit Not Found for what does not resolve, and 400 for a bad stats", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const notFound = [404, { message: "404 Commit Not Found" }];
    expect(await statusAndBody(await api.get(`${commitsPath(project)}/nope`))).toEqual(notFound);
    expect(await statusAndBody(await api.get(`${commitsPath(project)}/${"0".repeat(40)}`))).toEqual(notFound);
    expect(await statusAndBody(await api.get(`${commitsPath(project)}/main~10`))).toEqual(notFound);
    expect(await statusAndBody(await api.get(`${commitsPath(project)}/main`, { query: { stats: "x" } }))).toEqual([400, { error: "stats is invalid" }]);
    const owner = await w.user();
    const empty = await w.project({ owner });
    expect(await statusAndBody(await w.as(owner).get(`${commitsPath(empty)}/main`))).toEqual(notFound);
  });

  it("follows download_code, in at most 6 statements", async () => {
    const w = await world();
    const guest = await w.user();
    const { project, api } = await smallRepo(w, { guests: [guest] });
    const res = await api.get(`${commitsPath(project)}/main`);
    expect(res.status).toBe(200);
    expect(queryCount(res)).toBeLessThanOrEqual(6);
    expect(await statusAndBody(await w.as(guest).get(`${commitsPath(project)}/main`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.get(`${commitsPath(project)}/main`))).toEqual([404, { message: "404 Project Not Found" }]);
    const open = await smallRepo(w, { visibility: "public" });
    expect((await w.anonymous.get(`${commitsPath(open.project)}/main`)).status).toBe(200);
  });
});

describe("GET /projects/:id/repository/commits/:sha/refs", () => {
  async function refsFixture() {
    const w = await world();
    const repo = await smallRepo(w, { visibility: "public" });
    const [third, second, first] = repo.commits;
    await commitOn(repo.api, repo.project, "b-side", "Side", [{ action: "create", file_path: "s", content: "s\n" }], { start_sha: first.id });
    await commitOn(repo.api, repo.project, "a-old", "Old", [{ action: "create", file_path: "o", content: "o\n" }], { start_sha: second.id });
    await w.db(async (db) => {
      await createRef(db, repo.project.id, "refs/tags/v2", third.id);
      await createRef(db, repo.project.id, "refs/tags/v1", first.id);
    });
    return { w, ...repo };
  }

  it("lists the branches, then the tags, that contain the commit, filtered by type", async () => {
    const { w, project, commits } = await refsFixture();
    const [, second, first] = commits;
    const refs = async (sha: string, query?: Record<string, string>) => statusAndBody(await w.anonymous.get(`${commitsPath(project)}/${sha}/refs`, { query }));
    expect(await refs(first.id)).toEqual([
      200,
      [
        { type: "branch", name: "a-old" },
        { type: "branch", name: "b-side" },
        { type: "branch", name: "main" },
        { type: "tag", name: "v1" },
        { type: "tag", name: "v2" },
      ],
    ]);
    expect(await refs(second.id, { type: "branch" })).toEqual([200, [{ type: "branch", name: "a-old" }, { type: "branch", name: "main" }]]);
    expect(await refs("main", { type: "tag" })).toEqual([200, [{ type: "tag", name: "v2" }]]);
    expect(await refs("b-side")).toEqual([200, [{ type: "branch", name: "b-side" }]]);
  });

  it("paginates with totals, and answers GitLab's errors", async () => {
    const { w, project, commits } = await refsFixture();
    const res = await w.anonymous.get(`${commitsPath(project)}/${commits[2].id}/refs`, { query: { per_page: 2, page: 2 } });
    expect(await res.json()).toEqual([{ type: "branch", name: "main" }, { type: "tag", name: "v1" }]);
    expect(res.headers.get("x-total")).toBe("5");
    expect(res.headers.get("x-total-pages")).toBe("3");
    expect(res.headers.get("x-next-page")).toBe("3");
    expect(res.headers.get("x-prev-page")).toBe("1");
    expect(queryCount(res)).toBeLessThanOrEqual(6);
    expect(await statusAndBody(await w.anonymous.get(`${commitsPath(project)}/unknown/refs`))).toEqual([404, { message: "404 Commit Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get(`${commitsPath(project)}/main/refs`, { query: { type: "remote" } }))).toEqual([
      400,
      { error: "type does not have a valid value" },
    ]);
    const hidden = await smallRepo(w);
    expect(await statusAndBody(await w.as(w.stranger).get(`${commitsPath(hidden.project)}/main/refs`))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});
