import { describe, expect, it } from "vitest";
import { commit, createMergeRequest, mergeFixture, type Json } from "../helpers/api";
import { world } from "../helpers/world";
import { browser } from "./support";
import { signedIn } from "./signed_in";

const mrPath = (project: { fullPath: string }, iid: number) => `/${project.fullPath}/-/merge_requests/${iid}`;

describe("GET /:project/-/merge_requests", () => {
  it("lists the open merge requests, the merged ones on their tab", async () => {
    const w = await world();
    const { project, mr } = await mergeFixture(w, { visibility: "public" });
    const b = browser();
    const open = await b.get(`/${project.fullPath}/-/merge_requests`);
    expect(open.status).toBe(200);
    expect(open.html).toContain(`href="${mrPath(project, mr.iid as number)}"`);
    const merged = await b.get(`/${project.fullPath}/-/merge_requests?state=merged`);
    expect(merged.html).toContain("No merge requests.");
  });

  it("answers 404 for a private project's list to anonymous visitors and outsiders", async () => {
    const w = await world();
    const { project } = await mergeFixture(w, { visibility: "private" });
    expect((await browser().get(`/${project.fullPath}/-/merge_requests`)).status).toBe(404);
    expect((await (await signedIn(await w.user())).get(`/${project.fullPath}/-/merge_requests`)).status).toBe(404);
  });
});

describe("GET /:project/-/merge_requests/:iid", () => {
  it("shows the overview (description, branches, approvals, merge status) and the commits and diffs tabs", async () => {
    const w = await world();
    const { project, head, mr } = await mergeFixture(w, { visibility: "public", mr: { description: "Please **merge**" } });
    const b = browser();
    const page = await b.get(mrPath(project, mr.iid as number));
    expect(page.status).toBe(200);
    expect(page.html).toContain("<strong>merge</strong>");
    expect(page.html).toContain("can be merged");
    expect(page.html).toContain("Approved");
    expect(page.html).not.toContain('action="' + mrPath(project, mr.iid as number) + '/merge"');
    const commits = await b.get(`${mrPath(project, mr.iid as number)}/commits`);
    expect(commits.html).toContain(head.slice(0, 8));
    expect(commits.html).toContain("Change a");
    const diffs = await b.get(`${mrPath(project, mr.iid as number)}/diffs`);
    expect(diffs.html).toContain('<span class="del">-2\n</span>');
    expect(diffs.html).toContain('<span class="add">+TWO\n</span>');
  });

  it("escapes a branch name, a title and a file name (no script runs)", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner, visibility: "public" });
    await commit(w, owner, project, "main", "Initial", [{ action: "create", file_path: "README.md", content: "x\n" }]);
    const branch = `x"><svg/onload=alert(1)>`;
    await commit(w, owner, project, branch, "Evil", [{ action: "create", file_path: `<img src=x onerror=alert(2)>.txt`, content: "y\n" }], { start_branch: "main" });
    const mr = await createMergeRequest(w, owner, project, { source_branch: branch, target_branch: "main", title: "<script>alert(3)</script>" });
    const b = browser();
    for (const path of ["", "/diffs", "/commits"]) {
      const page = await b.get(`${mrPath(project, mr.iid as number)}${path}`);
      expect(page.status).toBe(200);
      expect(page.html).not.toMatch(/<(svg|img|script)[^>]*(onload|onerror|>alert)/i);
    }
    expect((await b.get(`${mrPath(project, mr.iid as number)}/diffs`)).html).toContain("&lt;img src=x onerror=alert(2)&gt;.txt");
  });

  it("answers 404 for a missing merge request and a private project's to outsiders", async () => {
    const w = await world();
    const { project, mr } = await mergeFixture(w, { visibility: "private" });
    expect((await browser().get(mrPath(project, mr.iid as number))).status).toBe(404);
    const outsider = await signedIn(await w.user());
    expect((await outsider.get(mrPath(project, mr.iid as number))).status).toBe(404);
    expect((await outsider.get(`${mrPath(project, mr.iid as number)}/diffs`)).status).toBe(404);
  });
});

describe("POST /:project/-/merge_requests/:iid/merge", () => {
  it("merges through the merge service: the target moves, the merge request is merged", async () => {
    const w = await world();
    const { owner, project, mr } = await mergeFixture(w);
    const b = await signedIn(owner);
    const page = await b.get(mrPath(project, mr.iid as number));
    expect(page.html).toContain(`action="${mrPath(project, mr.iid as number)}/merge"`);
    const res = await b.post(`${mrPath(project, mr.iid as number)}/merge`, { sha: mr.sha as string });
    expect(res.status).toBe(303);
    const after = (await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).json()) as Json;
    expect(after).toMatchObject({ state: "merged", merged_by: { username: owner.username } });
    const main = (await (await w.as(owner).get(`/projects/${project.id}/repository/branches/main`)).json()) as Json;
    expect((main.commit as Json).id).toBe(after.merge_commit_sha);
    expect((await b.get(mrPath(project, mr.iid as number))).html).toContain("state-merged");
  });

  it("refuses a stale head (422 page) and a developer without merge rights (404); nothing merges", async () => {
    const w = await world();
    const reporter = await w.user();
    const { owner, project, mr } = await mergeFixture(w, { reporters: [reporter] });
    const b = await signedIn(owner);
    await b.get(mrPath(project, mr.iid as number));
    const stale = await b.post(`${mrPath(project, mr.iid as number)}/merge`, { sha: "0".repeat(40) });
    expect(stale.status).toBe(422);
    expect(stale.html).toContain("source branch changed");
    const r = await signedIn(reporter);
    const shown = await r.get(mrPath(project, mr.iid as number));
    expect(shown.html).not.toContain("/merge\"");
    expect((await r.post(`${mrPath(project, mr.iid as number)}/merge`, { sha: mr.sha as string })).status).toBe(404);
    expect((await b.post(`${mrPath(project, mr.iid as number)}/merge`, { authenticity_token: null, sha: mr.sha as string })).status).toBe(422);
    expect(await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).json()).toMatchObject({ state: "opened" });
  });
});

describe("POST /:project/-/merge_requests/:iid/notes, /close, /reopen", () => {
  it("comments, closes and reopens through the API's services", async () => {
    const w = await world();
    const { owner, project, mr } = await mergeFixture(w);
    const b = await signedIn(owner);
    await b.get(mrPath(project, mr.iid as number));
    expect((await b.post(`${mrPath(project, mr.iid as number)}/notes`, { "note[note]": "Looks good" })).status).toBe(303);
    const notes = (await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}/notes`)).json()) as Json[];
    expect(notes.filter((n) => !n.system).map((n) => n.body)).toEqual(["Looks good"]);
    expect((await b.post(`${mrPath(project, mr.iid as number)}/close`)).status).toBe(303);
    expect(await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).json()).toMatchObject({ state: "closed" });
    expect((await b.post(`${mrPath(project, mr.iid as number)}/reopen`)).status).toBe(303);
    expect(await (await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).json()).toMatchObject({ state: "opened" });
  });
});
