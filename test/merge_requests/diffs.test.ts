import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type World } from "../helpers/world";
import { commit, createMergeRequest, mergeFixture, type Json } from "../helpers/api";

const mrPath = (project: { id: number }, iid: number | string, rest: string) => `/projects/${project.id}/merge_requests/${iid}/${rest}`;

/** mergeFixture plus a second commit on the source branch that adds a file. */
async function twoCommits(w: World, opts: Parameters<typeof mergeFixture>[1] = {}) {
  const f = await mergeFixture(w, opts);
  const second = await commit(w, f.owner, f.project, f.feature, "Add b", [{ action: "create", file_path: "b.txt", content: "b\n" }]);
  return { ...f, second };
}

/** The read rules every sub-resource shares: `find_merge_request_with_access`. */
function readRules(rest: string) {
  it("answers 404 Project Not Found to a stranger and to anonymous callers of a private project", async () => {
    const w = await world();
    const { project, mr } = await mergeFixture(w);
    expect(await statusAndBody(await w.as(w.stranger).get(mrPath(project, mr.iid, rest)))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get(mrPath(project, mr.iid, rest)))).toEqual([404, { message: "404 Project Not Found" }]);
  });

  // `find_merge_request_with_access`: found in the visible project, then `authorize!` (403).
  it("answers 403 to a guest (not the author), 404 Merge Request Not Found for a missing iid; a reporter reads", async () => {
    const w = await world();
    const guest = await w.user();
    const reporter = await w.user();
    const { project, mr } = await mergeFixture(w, { guests: [guest], reporters: [reporter] });
    expect(await statusAndBody(await w.as(guest).get(mrPath(project, mr.iid, rest)))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(reporter).get(mrPath(project, 9999, rest)))).toEqual([404, { message: "404 Merge Request Not Found" }]);
    expect((await w.as(reporter).get(mrPath(project, mr.iid, rest))).status).toBe(200);
  });

  it("lets anonymous callers read a public project's merge request", async () => {
    const w = await world();
    const { project, mr } = await mergeFixture(w, { visibility: "public" });
    expect((await w.anonymous.get(mrPath(project, mr.iid, rest))).status).toBe(200);
  });

  it("answers 400 for an iid that is not an integer", async () => {
    const w = await world();
    const { owner, project } = await mergeFixture(w);
    expect(await statusAndBody(await w.as(owner).get(mrPath(project, "abc", rest)))).toEqual([400, { error: "merge_request_iid is invalid" }]);
  });
}

describe("GET /projects/:id/merge_requests/:merge_request_iid/commits", () => {
  it("lists the source branch's commits, newest first, as Commit entities", async () => {
    const w = await world();
    const { owner, project, head, second, mr } = await twoCommits(w);
    const res = await w.as(owner).get(mrPath(project, mr.iid, "commits"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("2");
    const body = (await res.json()) as Json[];
    expect(body.map((c) => c.id)).toEqual([second, head]);
    expect(body[1]).toMatchObject({
      id: head,
      short_id: head.slice(0, 8),
      title: "Change a",
      message: "Change a\n\nThe body.",
      parent_ids: [expect.any(String)],
      author_name: expect.any(String),
      trailers: {},
      web_url: expect.stringContaining(`/${project.fullPath}/-/commit/${head}`),
    });
  });

  it("paginates", async () => {
    const w = await world();
    const { owner, project, head, mr } = await twoCommits(w);
    const res = await w.as(owner).get(mrPath(project, mr.iid, "commits?per_page=1&page=2"));
    expect(res.headers.get("x-total")).toBe("2");
    expect(res.headers.get("x-total-pages")).toBe("2");
    expect(res.headers.get("x-prev-page")).toBe("1");
    expect(((await res.json()) as Json[]).map((c) => c.id)).toEqual([head]);
  });

  it("is empty while the source branch does not exist", async () => {
    const w = await world();
    const { owner, project } = await mergeFixture(w);
    const mr = await createMergeRequest(w, owner, project, { source_branch: "nowhere", target_branch: "main" });
    expect(await statusAndBody(await w.as(owner).get(mrPath(project, mr.iid, "commits")))).toEqual([200, []]);
  });

  it("answers 400 for a bad per_page", async () => {
    const w = await world();
    const { owner, project, mr } = await mergeFixture(w);
    expect(await statusAndBody(await w.as(owner).get(mrPath(project, mr.iid, "commits?per_page=0")))).toEqual([400, { error: "per_page does not have a valid value" }]);
  });

  readRules("commits");
});

describe("GET /projects/:id/merge_requests/:merge_request_iid/changes", () => {
  it("shows the merge request with its changes against the merge base", async () => {
    const w = await world();
    const { owner, project, mr, base, second } = await twoCommits(w);
    // The target moving on does not show up in the changes (they start at the merge base).
    await commit(w, owner, project, "main", "Elsewhere", [{ action: "create", file_path: "c.txt", content: "c\n" }]);
    const res = await w.as(owner).get(mrPath(project, mr.iid, "changes"));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ id: mr.id, iid: mr.iid, title: "Change a", changes_count: "2", overflow: false, diff_refs: { base_sha: base, head_sha: second } });
    expect(body.changes).toEqual([
      {
        diff: "@@ -1,5 +1,5 @@\n 1\n-2\n+TWO\n 3\n 4\n 5\n",
        new_path: "a.txt",
        old_path: "a.txt",
        a_mode: "100644",
        b_mode: "100644",
        new_file: false,
        renamed_file: false,
        deleted_file: false,
      },
      { diff: "@@ -0,0 +1 @@\n+b\n", new_path: "b.txt", old_path: "b.txt", a_mode: "0", b_mode: "100644", new_file: true, renamed_file: false, deleted_file: false },
    ]);
  });

  it("takes access_raw_diffs and answers 400 when it is not a boolean", async () => {
    const w = await world();
    const { owner, project, mr } = await mergeFixture(w);
    const raw = (await (await w.as(owner).get(mrPath(project, mr.iid, "changes?access_raw_diffs=true"))).json()) as Json;
    expect(raw.changes).toHaveLength(1);
    expect(await statusAndBody(await w.as(owner).get(mrPath(project, mr.iid, "changes?access_raw_diffs=maybe")))).toEqual([400, { error: "access_raw_diffs is invalid" }]);
  });

  readRules("changes");
});

describe("GET /projects/:id/merge_requests/:merge_request_iid/diffs", () => {
  it("lists the diffs a page at a time", async () => {
    const w = await world();
    const { owner, project, mr } = await twoCommits(w);
    const all = await w.as(owner).get(mrPath(project, mr.iid, "diffs"));
    expect(all.headers.get("x-total")).toBe("2");
    expect(((await all.json()) as Json[]).map((d) => d.new_path)).toEqual(["a.txt", "b.txt"]);
    const second = await w.as(owner).get(mrPath(project, mr.iid, "diffs?page=2&per_page=1"));
    expect(second.headers.get("x-total-pages")).toBe("2");
    expect(await second.json()).toEqual([
      { diff: "@@ -0,0 +1 @@\n+b\n", new_path: "b.txt", old_path: "b.txt", a_mode: "0", b_mode: "100644", new_file: true, renamed_file: false, deleted_file: false },
    ]);
  });

  it("answers 400 for a bad page", async () => {
    const w = await world();
    const { owner, project, mr } = await mergeFixture(w);
    expect(await statusAndBody(await w.as(owner).get(mrPath(project, mr.iid, "diffs?page=x")))).toEqual([400, { error: "page is invalid" }]);
  });

  readRules("diffs");
});


/** A merge request seen at its first head, then pushed to: two versions. */
async function twoVersions(w: World) {
  const f = await mergeFixture(w);
  expect((await w.as(f.owner).get(mrPath(f.project, f.mr.iid, "commits"))).status).toBe(200);
  const second = await commit(w, f.owner, f.project, f.feature, "Add b", [{ action: "create", file_path: "b.txt", content: "b\n" }]);
  return { ...f, second };
}

describe("GET /projects/:id/merge_requests/:merge_request_iid/versions", () => {
  it("lists the versions newest first, one per source head", async () => {
    const w = await world();
    const { owner, project, mr, base, head, second } = await twoVersions(w);
    const res = await w.as(owner).get(mrPath(project, mr.iid, "versions"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("2");
    const body = (await res.json()) as Json[];
    expect(body).toEqual([
      { id: expect.any(Number), head_commit_sha: second, base_commit_sha: base, start_commit_sha: base, created_at: expect.any(String), merge_request_id: mr.id, state: "collected", real_size: "2" },
      { id: expect.any(Number), head_commit_sha: head, base_commit_sha: base, start_commit_sha: base, created_at: expect.any(String), merge_request_id: mr.id, state: "collected", real_size: "1" },
    ]);
    expect(body[0].id).toBeGreaterThan(body[1].id);
    const page = await w.as(owner).get(mrPath(project, mr.iid, "versions?per_page=1&page=2"));
    expect(((await page.json()) as Json[]).map((v) => v.head_commit_sha)).toEqual([head]);
  });

  it("answers 400 for a bad per_page", async () => {
    const w = await world();
    const { owner, project, mr } = await mergeFixture(w);
    expect(await statusAndBody(await w.as(owner).get(mrPath(project, mr.iid, "versions?per_page=x")))).toEqual([400, { error: "per_page is invalid" }]);
  });

  readRules("versions");
});

describe("GET /projects/:id/merge_requests/:merge_request_iid/versions/:version_id", () => {
  it("shows a version with its own commits and diffs", async () => {
    const w = await world();
    const { owner, project, mr, head } = await twoVersions(w);
    const versions = (await (await w.as(owner).get(mrPath(project, mr.iid, "versions"))).json()) as Json[];
    const first = versions[1];
    const res = await w.as(owner).get(mrPath(project, mr.iid, `versions/${first.id}`));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ ...first });
    expect(body.commits.map((c: Json) => c.id)).toEqual([head]);
    expect(body.commits[0]).toMatchObject({ title: "Change a", short_id: head.slice(0, 8) });
    expect(body.diffs.map((d: Json) => d.new_path)).toEqual(["a.txt"]);
    const newest = (await (await w.as(owner).get(mrPath(project, mr.iid, `versions/${versions[0].id}`))).json()) as Json;
    expect(newest.commits).toHaveLength(2);
    expect(newest.diffs.map((d: Json) => d.new_path)).toEqual(["a.txt", "b.txt"]);
  });

  it("answers 404 Not found for another merge request's version and 400 for a bad id", async () => {
    const w = await world();
    const { owner, project, mr } = await twoVersions(w);
    const other = await mergeFixture(w);
    const versions = (await (await w.as(other.owner).get(mrPath(other.project, other.mr.iid, "versions"))).json()) as Json[];
    expect(await statusAndBody(await w.as(owner).get(mrPath(project, mr.iid, `versions/${versions[0].id}`)))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(owner).get(mrPath(project, mr.iid, "versions/abc")))).toEqual([400, { error: "version_id is invalid" }]);
  });

  it("hides the version from callers who cannot read the merge request", async () => {
    const w = await world();
    const guest = await w.user();
    const { project, mr } = await mergeFixture(w, { guests: [guest] });
    expect(await statusAndBody(await w.as(guest).get(mrPath(project, mr.iid, "versions/1")))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.get(mrPath(project, mr.iid, "versions/1")))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});
