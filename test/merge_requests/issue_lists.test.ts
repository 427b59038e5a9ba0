import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { createMergeRequest, queryCount, type Json } from "../helpers/api";
import { insertIssue } from "../helpers/noteables";
import { rows } from "../helpers/db";

describe("GET /projects/:id/issues/:issue_iid/related_merge_requests", () => {
  it("lists readable merge requests referencing the issue: this project's first, with the full entity", async () => {
    const w = await world();
    const dev = await w.user();
    const group = await w.group({ developers: [dev] });
    const project = await w.project({ group });
    const sibling = await w.project({ group });
    const secret = await w.project({ group: await w.group({ developers: [dev] }) });
    const issue = await insertIssue(w, project);
    const ref = `${project.fullPath}#${issue.iid}`;
    const elsewhere = await createMergeRequest(w, dev, sibling, { description: `Related to ${ref}` });
    const here = await createMergeRequest(w, dev, project, { description: `Closes #${issue.iid}` });
    const hidden = await createMergeRequest(w, dev, secret, { description: `Also ${ref}` });
    await createMergeRequest(w, dev, project, { description: "Unrelated" });
    const res = await w.as(dev).get(`/projects/${project.id}/issues/${issue.iid}/related_merge_requests`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("3");
    const body = (await res.json()) as Json[];
    expect(body.map((m) => m.id)).toEqual([here.id, elsewhere.id, hidden.id]);
    expect(body[0]).toHaveProperty("user");
    expect(body[0]).not.toHaveProperty("subscribed");
    expect(body[1].references.relative).toBe(`${sibling.path}!1`);

    // Someone who reads the issue's project but not the other projects sees only what they may read.
    const reader = await w.user();
    await w.addMembers("Project", project.id, { reporters: [reader] });
    const theirs = (await (await w.as(reader).get(`/projects/${project.id}/issues/${issue.iid}/related_merge_requests`)).json()) as Json[];
    expect(theirs.map((m) => m.id)).toEqual([here.id]);
  });

  it("keeps the statement count flat and paginates", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const issue = await insertIssue(w, project);
    for (let i = 0; i < 3; i++) await createMergeRequest(w, dev, project, { description: `See #${issue.iid}` });
    const one = await w.as(dev).get(`/projects/${project.id}/issues/${issue.iid}/related_merge_requests`, { query: { per_page: 1 } });
    const all = await w.as(dev).get(`/projects/${project.id}/issues/${issue.iid}/related_merge_requests`, { query: { per_page: 100 } });
    expect(one.headers.get("x-next-page")).toBe("2");
    expect(((await all.json()) as Json[]).map((m) => m.iid)).toEqual([1, 2, 3]);
    expect(queryCount(one)).toBe(queryCount(all));
    expect(queryCount(all)).toBeLessThanOrEqual(6);
  });

  it("answers 404 for a confidential issue the caller may not read", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ visibility: "public", guests: [guest] });
    const issue = await insertIssue(w, project, { confidential: true });
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/issues/${issue.iid}/related_merge_requests`))).toEqual([
      404,
      { message: "404 Issue Not Found" },
    ]);
  });

  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/issues/1/related_merge_requests`));
});

describe("GET /projects/:id/issues/:issue_iid/closed_by", () => {
  it("lists this project's merge requests closing the issue, newest first", async () => {
    const w = await world();
    const dev = await w.user();
    const group = await w.group({ developers: [dev] });
    const project = await w.project({ group });
    const sibling = await w.project({ group });
    const issue = await insertIssue(w, project);
    const first = await createMergeRequest(w, dev, project, { description: `Fixes #${issue.iid}` });
    const second = await createMergeRequest(w, dev, project, { title: `Resolve #${issue.iid}` });
    await createMergeRequest(w, dev, project, { description: `Mentions #${issue.iid}` });
    await createMergeRequest(w, dev, sibling, { description: `Closes ${project.fullPath}#${issue.iid}` });
    const res = await w.as(dev).get(`/projects/${project.id}/issues/${issue.iid}/closed_by`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((m) => m.id)).toEqual([second.id, first.id]);
    expect(body[0]).not.toHaveProperty("user");
    expect(res.headers.get("x-total")).toBe("2");
    const closing = await rows(w, sql`SELECT count(*)::int AS n FROM merge_requests_closing_issues WHERE issue_id = ${issue.id}`);
    expect(closing).toEqual([{ n: 3 }]);
  });

  it("keeps the statement count flat", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const issue = await insertIssue(w, project);
    for (let i = 0; i < 2; i++) await createMergeRequest(w, dev, project, { description: `Closes #${issue.iid}` });
    const one = await w.as(dev).get(`/projects/${project.id}/issues/${issue.iid}/closed_by`, { query: { per_page: 1 } });
    const all = await w.as(dev).get(`/projects/${project.id}/issues/${issue.iid}/closed_by`, { query: { per_page: 100 } });
    expect(queryCount(one)).toBe(queryCount(all));
    expect(queryCount(all)).toBeLessThanOrEqual(6);
  });

  it("answers 404 for a missing issue", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/issues/5/closed_by`))).toEqual([404, { message: "404 Issue Not Found" }]);
  });
});
