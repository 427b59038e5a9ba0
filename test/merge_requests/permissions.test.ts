import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { createMergeRequest, type Json } from "../helpers/api";
import { insertIssue } from "../helpers/noteables";

/**
 * ProjectPolicy: `read_merge_request` comes with `public_access` (public projects, internal ones for
 * signed-in users) and with reporter access, not with the guest rule; so the guest of a private
 * project reads none of its merge requests, anywhere they show. The project is visible to them, so
 * what they get depends on how the endpoint finds the merge request (lib/api/helpers.rb):
 * `find_merge_request_with_access` finds it, then `authorize!`s (403); `find_project_merge_request`
 * and `find_noteable` go through a finder that hides it (404). The list authorizes on the project (403).
 */
describe("merge requests of a private project for its guests", () => {
  it("are not listed, 403 where GitLab finds then authorizes, 404 where a finder hides them", async () => {
    const w = await world();
    const dev = await w.user();
    const guest = await w.user();
    const reporter = await w.user();
    const project = await w.project({ visibility: "private", developers: [dev], guests: [guest], reporters: [reporter] });
    const mr = await createMergeRequest(w, dev, project);
    const base = `/projects/${project.id}/merge_requests`;
    const forbidden = [403, { message: "403 Forbidden" }];
    const hidden = [404, { message: "404 Merge Request Not Found" }];

    expect(await statusAndBody(await w.as(guest).get(base))).toEqual(forbidden);
    // `find_merge_request_with_access`: the single GET and its sub-resources, update, approvals,
    // subscriptions, to-dos.
    for (const path of ["", "/changes", "/commits", "/diffs", "/versions", "/participants", "/closes_issues", "/pipelines", "/approvals", "/approval_state"])
      expect([path, ...(await statusAndBody(await w.as(guest).get(`${base}/${mr.iid}${path}`)))]).toEqual([path, ...forbidden]);
    expect(await statusAndBody(await w.as(guest).put(`${base}/${mr.iid}`, { json: { title: "Mine now" } }))).toEqual(forbidden);
    expect(await statusAndBody(await w.as(guest).post(`${base}/${mr.iid}/subscribe`))).toEqual(forbidden);
    expect(await statusAndBody(await w.as(guest).post(`${base}/${mr.iid}/todo`))).toEqual(forbidden);
    // A merge request that does not exist is still 404.
    expect(await statusAndBody(await w.as(guest).get(`${base}/${mr.iid + 100}`))).toEqual(hidden);
    // `find_project_merge_request` (merge, merge_ref, rebase, delete, time tracking) and
    // `find_noteable` (notes, resource events): 404.
    expect(await statusAndBody(await w.as(guest).put(`${base}/${mr.iid}/merge`))).toEqual(hidden);
    expect(await statusAndBody(await w.as(guest).get(`${base}/${mr.iid}/merge_ref`))).toEqual(hidden);
    expect(await statusAndBody(await w.as(guest).put(`${base}/${mr.iid}/rebase`))).toEqual(hidden);
    expect(await statusAndBody(await w.as(guest).get(`${base}/${mr.iid}/time_stats`))).toEqual(hidden);
    expect(await statusAndBody(await w.as(guest).get(`${base}/${mr.iid}/resource_label_events`))).toEqual(hidden);
    expect(await statusAndBody(await w.as(guest).delete(`${base}/${mr.iid}`))).toEqual(hidden);
    expect((await w.as(guest).get(`${base}/${mr.iid}/notes`)).status).toBe(404);
    expect((await w.as(guest).post(`${base}/${mr.iid}/notes`, { json: { body: "hello" } })).status).toBe(404);
    const all = (await (await w.as(guest).get("/merge_requests", { query: { scope: "all", per_page: 100 } })).json()) as Json[];
    expect(all.map((m) => m.id)).not.toContain(mr.id);

    // Who cannot see the project gets the project's 404 first.
    expect(await statusAndBody(await w.as(w.stranger).get(`${base}/${mr.iid}`))).toEqual([404, { message: "404 Project Not Found" }]);

    // Reporters read them.
    expect((await w.as(reporter).get(`${base}/${mr.iid}`)).status).toBe(200);
    const asReporter = (await (await w.as(reporter).get("/merge_requests", { query: { scope: "all", per_page: 100 } })).json()) as Json[];
    expect(asReporter.map((m) => m.id)).toContain(mr.id);
  });

  it("are 403 in a project whose merge requests are turned off (found, then `read_merge_request` fails)", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ visibility: "public", developers: [dev] });
    const mr = await createMergeRequest(w, dev, project);
    await w.db((db) => db.execute(sql`UPDATE projects SET merge_requests_enabled = false WHERE id = ${project.id}`));
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/merge_requests/${mr.iid}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.as(dev).get(`/projects/${project.id}/merge_requests/${mr.iid}/notes`)).status).toBe(404);
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
