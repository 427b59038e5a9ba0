import { describe, expect, it } from "vitest";
import { createRef } from "../../functions/shared/git/store/refs";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { commitOn, commitsPath, smallRepo } from "../helpers/commits";

type Json = Record<string, any>;
const ids = (body: unknown) => (body as Json[]).map((c) => c.id);
const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

describe("GET /projects/:id/repository/commits", () => {
  it("lists the default branch newest first with GitLab's Commit entity", async () => {
    const w = await world();
    const { owner, project, api, commits } = await smallRepo(w);
    const res = await api.get(commitsPath(project));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(ids(body)).toEqual(commits.map((c) => c.id));
    const [third, second] = commits;
    expect(Object.keys(body[1])).toEqual([
      "id", "short_id", "created_at", "parent_ids", "title", "message", "author_name", "author_email", "authored_date",
      "committer_name", "committer_email", "committed_date", "trailers", "web_url",
    ]);
    expect(body[1]).toEqual({
      id: second.id,
      short_id: second.id.slice(0, 8),
      created_at: body[1].committed_date,
      parent_ids: [commits[2].id],
      title: "Add docs",
      message: "Add docs\n\nWith a body.",
      author_name: owner.name,
      author_email: owner.email,
      authored_date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000\+00:00$/),
      committer_name: owner.name,
      committer_email: owner.email,
      committed_date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000\+00:00$/),
      trailers: {},
      web_url: `http://edgeforge.test/${project.fullPath}/-/commit/${second.id}`,
    });
    expect(body[0].parent_ids).toEqual([second.id]);
    expect(body[0].id).toBe(third.id);
  });

  it("takes a branch, a tag, a sha, HEAD and ranges as ref_name; unknown revisions list nothing", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const [third, second, first] = commits;
    await commitOn(api, project, "feature", "On feature", [{ action: "create", file_path: "f.txt", content: "f\n" }], { start_sha: second.id });
    await w.db((db) => createRef(db, project.id, "refs/tags/v1", first.id));
    const list = async (ref_name: string) => ids(await (await api.get(commitsPath(project), { query: { ref_name } })).json());
    const feature = await list("feature");
    expect(feature.slice(1)).toEqual([second.id, first.id]);
    expect(await list("v1")).toEqual([first.id]);
    expect(await list(second.id)).toEqual([second.id, first.id]);
    expect(await list(second.id.slice(0, 7))).toEqual([second.id, first.id]);
    expect(await list("HEAD")).toEqual([third.id, second.id, first.id]);
    expect(await list("main~1")).toEqual([second.id, first.id]);
    expect(await list("v1..main")).toEqual([third.id, second.id]);
    expect(new Set(await list("main...feature"))).toEqual(new Set([feature[0], third.id]));
    // `ref_name=` (blank) is the default branch, as `params[:ref_name].presence`.
    expect(await list("")).toEqual([third.id, second.id, first.id]);
    expect(await list(" ")).toEqual([third.id, second.id, first.id]);
    expect(await statusAndBody(await api.get(commitsPath(project), { query: { ref_name: "does-not-exist" } }))).toEqual([200, []]);
    expect(await statusAndBody(await api.get(commitsPath(project), { query: { ref_name: "nope..main" } }))).toEqual([200, []]);
  });

  it("filters by path (files and directories, leading slash ignored), all, since and until", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const [third, second, first] = commits;
    const list = async (query: Record<string, string | boolean>) => ids(await (await api.get(commitsPath(project), { query })).json());
    expect(await list({ path: "README.md" })).toEqual([third.id, first.id]);
    expect(await list({ path: "docs" })).toEqual([second.id]);
    expect(await list({ path: "/docs/a.md" })).toEqual([second.id]);
    expect(await list({ path: "nothing/here" })).toEqual([]);
    const side = await commitOn(api, project, "side", "Side work", [{ action: "create", file_path: "s.txt", content: "s\n" }], { start_sha: first.id });
    // `--all --reverse`: every ref (the order under equal dates is git's; oracle.test.ts compares it).
    expect(new Set(await list({ all: true }))).toEqual(new Set([first.id, second.id, third.id, side.id]));
    // since/until are inclusive; all these commits were made within a few seconds of now.
    const now = Date.now();
    expect(await list({ since: new Date(now + 3_600_000).toISOString() })).toEqual([]);
    expect(await list({ until: new Date(now - 3_600_000).toISOString() })).toEqual([]);
    expect(await list({ since: new Date(now - 3_600_000).toISOString(), until: new Date(now + 3_600_000).toISOString() })).toEqual([third.id, second.id, first.id]);
    const exact = ((await (await api.get(commitsPath(project))).json()) as Json[])[0].committed_date;
    expect(await list({ since: exact, until: exact })).toContain(third.id);
  });

  it("adds stats with with_stats and trailers with trailers=true", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const body = (await (await api.get(commitsPath(project), { query: { with_stats: true } })).json()) as Json[];
    expect(body.map((c) => c.stats)).toEqual([
      { additions: 1, deletions: 0, total: 1 },
      { additions: 2, deletions: 0, total: 2 },
      { additions: 1, deletions: 0, total: 1 },
    ]);
    expect(Object.keys(body[0]).slice(-2)).toEqual(["web_url", "stats"]);
    const plain = (await (await api.get(commitsPath(project))).json()) as Json[];
    expect(plain[0].stats).toBeUndefined();
    await commitOn(api, project, "main", "Fix\n\nBody text.\n\nSigned-off-by: A <a@example.com>\nReviewed-by: B <b@example.com>\n", [
      { action: "create", file_path: "t.txt", content: "t\n" },
    ]);
    const [withTrailers] = (await (await api.get(commitsPath(project), { query: { trailers: true, per_page: 1 } })).json()) as Json[];
    expect(withTrailers.trailers).toEqual({ "Signed-off-by": "A <a@example.com>", "Reviewed-by": "B <b@example.com>" });
    const [without] = (await (await api.get(commitsPath(project), { query: { per_page: 1 } })).json()) as Json[];
    expect(without.trailers).toEqual({});
    expect(commits).toHaveLength(3);
  });

  it("answers [] for an empty repository", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    expect(await statusAndBody(await w.as(owner).get(commitsPath(project)))).toEqual([200, []]);
    expect(await statusAndBody(await w.as(owner).get(commitsPath(project), { query: { all: true } }))).toEqual([200, []]);
  });

  it("refuses bad parameters with GitLab's bodies", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const get = async (query: Record<string, string>) => statusAndBody(await api.get(commitsPath(project), { query }));
    expect(await get({ ref_name: "-main" })).toEqual([400, { message: "ref_name is invalid" }]);
    expect(await get({ ref_name: "main branch" })).toEqual([400, { message: "ref_name is invalid" }]);
    expect(await get({ order: "invalid" })).toEqual([400, { error: "order does not have a valid value" }]);
    expect(await get({ since: "invalid-date" })).toEqual([400, { error: "since is invalid" }]);
    expect(await get({ with_stats: "maybe" })).toEqual([400, { error: "with_stats is invalid" }]);
    expect(await get({ page: "0" })).toEqual([400, { error: "page does not have a valid value" }]);
    expect(await get({ per_page: "a" })).toEqual([400, { error: "per_page is invalid" }]);
  });

  it("paginates without totals: a full page advertises a next page, a short one does not", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const first = await api.get(commitsPath(project), { query: { per_page: 2, ref_name: "main" } });
    expect(ids(await first.json())).toEqual(commits.slice(0, 2).map((c) => c.id));
    expect(first.headers.get("x-page")).toBe("1");
    expect(first.headers.get("x-per-page")).toBe("2");
    expect(first.headers.get("x-next-page")).toBe("2");
    expect(first.headers.get("x-prev-page")).toBe("");
    expect(first.headers.get("x-total")).toBeNull();
    expect(first.headers.get("x-total-pages")).toBeNull();
    const base = `http://edgeforge.test/api/v4/projects/${project.id}/repository/commits`;
    expect(first.headers.get("link")).toBe(
      `<${base}?per_page=2&ref_name=main&page=2>; rel="next", <${base}?per_page=2&ref_name=main&page=1>; rel="first"`,
    );
    const second = await api.get(commitsPath(project), { query: { per_page: 2, page: 2 } });
    expect(ids(await second.json())).toEqual([commits[2].id]);
    expect(second.headers.get("x-next-page")).toBe("");
    expect(second.headers.get("x-prev-page")).toBe("1");
    expect(second.headers.get("link")).not.toContain('rel="last"');
    // Exactly full: GitLab pretends one more commit exists, so the next page is advertised and empty.
    const full = await api.get(commitsPath(project), { query: { per_page: 3 } });
    expect(full.headers.get("x-next-page")).toBe("2");
    expect(await statusAndBody(await api.get(commitsPath(project), { query: { per_page: 3, page: 2 } }))).toEqual([200, []]);
  });

  it("runs as many SQL statements for per_page=1 as for per_page=100, at most 6", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const one = await api.get(commitsPath(project), { query: { per_page: 1 } });
    const hundred = await api.get(commitsPath(project), { query: { per_page: 100 } });
    expect(one.status).toBe(200);
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
    const stats = await api.get(commitsPath(project), { query: { per_page: 100, with_stats: true, path: "README.md" } });
    expect(queryCount(stats)).toBeLessThanOrEqual(6);
  });

  it("needs download_code: anonymous on public projects, reporters on private ones; others 404 or 403", async () => {
    const w = await world();
    const guest = await w.user();
    const reporter = await w.user();
    const { project: privateProject } = await smallRepo(w, { guests: [guest], reporters: [reporter] });
    const { project: publicProject } = await smallRepo(w, { visibility: "public" });
    expect((await w.anonymous.get(commitsPath(publicProject))).status).toBe(200);
    expect(await statusAndBody(await w.anonymous.get(commitsPath(privateProject)))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(commitsPath(privateProject)))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(guest).get(commitsPath(privateProject)))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.as(reporter).get(commitsPath(privateProject))).status).toBe(200);
    expect((await w.root.get(commitsPath(privateProject))).status).toBe(200);
  });
});
