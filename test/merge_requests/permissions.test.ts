import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { createMergeRequest, type Json } from "../helpers/api";
import { insertIssue } from "../helpers/noteables";

/**
 * ProjectPolicy: `read_merge_request` comes with `public_access` (public projects, internal ones for
 * signed-in users) and with reporter access, not with the guest rule; so the guest of a private
 * project reads none of its merge requests, anywhere they show.
 */
describe("merge requests of a private project for its guests", () => {
  it("are not listed, not shown, not commented on, and absent from GET /merge_requests?scope=all", async () => {
    const w = await world();
    const dev = await w.user();
    const guest = await w.user();
    const reporter = await w.user();
    const project = await w.project({ visibility: "private", developers: [dev], guests: [guest], reporters: [reporter] });
    const mr = await createMergeRequest(w, dev, project);
    const base = `/projects/${project.id}/merge_requests`;

    expect(await statusAndBody(await w.as(guest).get(base))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(guest).get(`${base}/${mr.iid}`))).toEqual([404, { message: "404 Merge Request Not Found" }]);
    expect((await w.as(guest).get(`${base}/${mr.iid}/notes`)).status).toBe(404);
    expect((await w.as(guest).post(`${base}/${mr.iid}/notes`, { json: { body: "hello" } })).status).toBe(404);
    const all = (await (await w.as(guest).get("/merge_requests", { query: { scope: "all", per_page: 100 } })).json()) as Json[];
    expect(all.map((m) => m.id)).not.toContain(mr.id);

    // Reporters read them.
    expect((await w.as(reporter).get(`${base}/${mr.iid}`)).status).toBe(200);
    const asReporter = (await (await w.as(reporter).get("/merge_requests", { query: { scope: "all", per_page: 100 } })).json()) as Json[];
    expect(asReporter.map((m) => m.id)).toContain(mr.id);
  });

  it("except the guest's own: an author reads and updates the merge request they wrote", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ visibility: "private", developers: [author] });
    const mr = await createMergeRequest(w, author, project);
    await w.db((db) => db.execute(sql`UPDATE members SET access_level = 10 WHERE source_type = 'Project' AND source_id = ${project.id} AND user_id = ${author.id}`));
    expect((await w.as(author).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).status).toBe(200);
    expect((await w.as(author).get(`/projects/${project.id}/merge_requests/${mr.iid}/notes`)).status).toBe(200);
  });

  it("are readable by the guests of a public project", async () => {
    const w = await world();
    const dev = await w.user();
    const guest = await w.user();
    const project = await w.project({ visibility: "public", developers: [dev], guests: [guest] });
    const mr = await createMergeRequest(w, dev, project);
    expect((await w.as(guest).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).status).toBe(200);
    expect((await w.as(guest).get(`/projects/${project.id}/merge_requests`)).status).toBe(200);
  });
});

describe("POST /projects/:id/issues/:issue_iid/links (admin_issue_link)", () => {
  it("needs reporter access: a guest gets GitLab's not-linkable 404 and nothing is linked", async () => {
    const w = await world();
    const guest = await w.user();
    const reporter = await w.user();
    const project = await w.project({ visibility: "private", guests: [guest], reporters: [reporter] });
    const a = await insertIssue(w, project);
    const b = await insertIssue(w, project);
    const body = { target_project_id: project.id, target_issue_iid: b.iid };
    expect(await statusAndBody(await w.as(guest).post(`/projects/${project.id}/issues/${a.iid}/links`, { json: body }))).toEqual([
      404,
      { message: "No matching issue found. Make sure that you are adding a valid issue URL." },
    ]);
    expect((await w.as(reporter).post(`/projects/${project.id}/issues/${a.iid}/links`, { json: body })).status).toBe(201);
  });
});
