import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject } from "../helpers/shared";
import { world, type TestProject, type TestUser, type World } from "../helpers/world";
import { insertIssue } from "../helpers/noteables";
import { queryCount, type Json } from "../helpers/api";
import { rows } from "../helpers/db";

async function link(w: World, user: TestUser, project: TestProject, iid: number, target: { project: TestProject | string; iid: number }, linkType?: string) {
  const targetProject = typeof target.project === "string" ? target.project : target.project.id;
  return w.as(user).post(`/projects/${project.id}/issues/${iid}/links`, {
    json: { target_project_id: targetProject, target_issue_iid: target.iid, ...(linkType ? { link_type: linkType } : {}) },
  });
}

describe("POST /projects/:id/issues/:issue_iid/links", () => {
  it("relates two issues, answers 201 with both issues and writes a system note on each", async () => {
    const w = await world();
    const dev = await w.user();
    const group = await w.group({ developers: [dev] });
    const project = await w.project({ group });
    const other = await w.project({ group });
    const a = await insertIssue(w, project, { title: "A" });
    const b = await insertIssue(w, other, { title: "B" });
    const res = await link(w, dev, project, a.iid, { project: other.fullPath, iid: b.iid });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ source_issue: { id: a.id, title: "A" }, target_issue: { id: b.id, title: "B" }, link_type: "relates_to" });
    expect(Object.keys(body)).toEqual(["source_issue", "target_issue", "link_type"]);
    expect(await rows(w, sql`SELECT source_id, target_id, link_type FROM issue_links WHERE source_id IN (${a.id}, ${b.id})`)).toEqual([
      { source_id: a.id, target_id: b.id, link_type: "relates_to" },
    ]);
    const notes = await rows(w, sql`SELECT noteable_id, note FROM notes WHERE noteable_type = 'Issue' AND noteable_id IN (${a.id}, ${b.id}) ORDER BY noteable_id`);
    expect(notes).toEqual([
      { noteable_id: a.id, note: `marked this issue as related to ${other.path}#${b.iid}` },
      { noteable_id: b.id, note: `marked this issue as related to ${project.path}#${a.iid}` },
    ]);
  });

  it("stores is_blocked_by as blocks from the target", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const a = await insertIssue(w, project);
    const b = await insertIssue(w, project);
    const res = await link(w, dev, project, a.iid, { project, iid: b.iid }, "is_blocked_by");
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ source_issue: { id: b.id }, target_issue: { id: a.id }, link_type: "blocks" });
    const notes = await rows(w, sql`SELECT noteable_id, note FROM notes WHERE noteable_type = 'Issue' AND noteable_id IN (${a.id}, ${b.id}) ORDER BY noteable_id`);
    expect(notes).toEqual([
      { noteable_id: a.id, note: `marked this issue as blocked by #${b.iid}` },
      { noteable_id: b.id, note: `marked this issue as blocking #${a.iid}` },
    ]);
  });

  it("answers 409 when the issues are already linked, either way", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const a = await insertIssue(w, project);
    const b = await insertIssue(w, project);
    expect((await link(w, dev, project, a.iid, { project, iid: b.iid })).status).toBe(201);
    expect(await statusAndBody(await link(w, dev, project, b.iid, { project, iid: a.iid }, "blocks"))).toEqual([409, { message: "Issue(s) already assigned" }]);
  });

  it("answers 404 for a missing or unreadable target, 422 for the issue itself, 400 for a bad link_type", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const secret = await w.project({ visibility: "private" });
    const a = await insertIssue(w, project);
    const hidden = await insertIssue(w, secret);
    expect(await statusAndBody(await link(w, dev, project, a.iid, { project, iid: 99 }))).toEqual([404, { message: "404 Issue Not Found" }]);
    expect(await statusAndBody(await link(w, dev, project, a.iid, { project: secret, iid: hidden.iid }))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await link(w, dev, project, a.iid, { project, iid: a.iid }))).toEqual([
      422,
      { message: `#${a.iid} cannot be added: cannot be related to itself` },
    ]);
    expect(await statusAndBody(await link(w, dev, project, a.iid, { project, iid: a.iid }, "duplicates"))).toEqual([
      400,
      { error: "link_type does not have a valid value" },
    ]);
    const missing = await w.as(dev).post(`/projects/${project.id}/issues/${a.iid}/links`, { json: {} });
    expect(await statusAndBody(missing)).toEqual([400, { error: "target_project_id is missing, target_issue_iid is missing" }]);
  });

  it("answers 404 No matching issue when the caller may not link in the target project", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const open = await w.project({ visibility: "public" });
    const a = await insertIssue(w, project);
    const b = await insertIssue(w, open);
    expect(await statusAndBody(await link(w, dev, project, a.iid, { project: open, iid: b.iid }))).toEqual([
      404,
      { message: "No matching issue found. Make sure that you are adding a valid issue URL." },
    ]);
    expect(await rows(w, sql`SELECT 1 FROM issue_links WHERE source_id = ${a.id}`)).toEqual([]);
  });

  it("answers 401 without credentials", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.post(`/projects/1/issues/1/links`, { json: { target_project_id: 1, target_issue_iid: 1 } }))).toEqual([
      401,
      { message: "401 Unauthorized" },
    ]);
  });
});

describe("GET /projects/:id/issues/:issue_iid/links", () => {
  it("lists linked issues the caller may read, in link order, from this issue's side", async () => {
    const w = await world();
    const dev = await w.user();
    const reader = await w.user();
    const group = await w.group({ developers: [dev] });
    const project = await w.project({ group, reporters: [reader] });
    const other = await w.project({ group });
    const a = await insertIssue(w, project, { title: "A" });
    const b = await insertIssue(w, project, { title: "B" });
    const c = await insertIssue(w, project, { title: "C" });
    const hidden = await insertIssue(w, other, { title: "hidden" });
    await link(w, dev, project, a.iid, { project, iid: b.iid }, "blocks");
    await link(w, dev, project, c.iid, { project, iid: a.iid }, "blocks");
    await link(w, dev, project, a.iid, { project: other, iid: hidden.iid });

    const res = await w.as(dev).get(`/projects/${project.id}/issues/${a.iid}/links`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBeNull();
    const body = (await res.json()) as Json[];
    expect(body.map((i) => [i.title, i.link_type])).toEqual([
      ["B", "blocks"],
      ["C", "is_blocked_by"],
      ["hidden", "relates_to"],
    ]);
    expect(body[0]).toMatchObject({ issue_link_id: expect.any(Number), link_created_at: expect.any(String), link_updated_at: expect.any(String) });
    expect(body[0]).not.toHaveProperty("subscribed");
    expect(body[2].references.relative).toBe(`${other.path}#${hidden.iid}`);

    // The other direction: B sees A as blocking it.
    const fromB = (await (await w.as(dev).get(`/projects/${project.id}/issues/${b.iid}/links`)).json()) as Json[];
    expect(fromB.map((i) => [i.title, i.link_type])).toEqual([["A", "is_blocked_by"]]);

    // A reporter of this project only: the issue in the private sibling project is filtered out.
    const theirs = (await (await w.as(reader).get(`/projects/${project.id}/issues/${a.iid}/links`)).json()) as Json[];
    expect(theirs.map((i) => i.title)).toEqual(["B", "C"]);
  });

  it("filters confidential linked issues and keeps the statement count flat", async () => {
    const w = await world();
    const dev = await w.user();
    const guest = await w.user();
    const project = await w.project({ visibility: "public", developers: [dev], guests: [guest] });
    const a = await insertIssue(w, project);
    const secret = await insertIssue(w, project, { confidential: true, title: "secret" });
    const plain = await insertIssue(w, project, { title: "plain" });
    await link(w, dev, project, a.iid, { project, iid: secret.iid });
    const few = await w.as(dev).get(`/projects/${project.id}/issues/${a.iid}/links`);
    await link(w, dev, project, a.iid, { project, iid: plain.iid });
    const more = await w.as(dev).get(`/projects/${project.id}/issues/${a.iid}/links`);
    expect(queryCount(few)).toBe(queryCount(more));
    expect(queryCount(more)).toBeLessThanOrEqual(6);
    const asGuest = (await (await w.as(guest).get(`/projects/${project.id}/issues/${a.iid}/links`)).json()) as Json[];
    expect(asGuest.map((i) => i.title)).toEqual(["plain"]);
  });

  it("answers 401 without credentials, even on a public project", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const a = await insertIssue(w, project);
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/issues/${a.iid}/links`))).toEqual([401, { message: "401 Unauthorized" }]);
  });

  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/issues/1/links`));
});

describe("GET /projects/:id/issues/:issue_iid/links/:issue_link_id", () => {
  it("answers the link from either issue, 404 for links of other issues", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const a = await insertIssue(w, project);
    const b = await insertIssue(w, project);
    const c = await insertIssue(w, project);
    await link(w, dev, project, a.iid, { project, iid: b.iid }, "blocks");
    const [{ id }] = await rows(w, sql`SELECT id FROM issue_links WHERE source_id = ${a.id}`);
    for (const iid of [a.iid, b.iid]) {
      const res = await w.as(dev).get(`/projects/${project.id}/issues/${iid}/links/${id}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ source_issue: { id: a.id }, target_issue: { id: b.id }, link_type: "blocks" });
    }
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/issues/${c.iid}/links/${id}`))).toEqual([404, { message: "404 Not found" }]);
  });

  it("answers 404 when the other issue is confidential to the caller", async () => {
    const w = await world();
    const dev = await w.user();
    const guest = await w.user();
    const project = await w.project({ developers: [dev], guests: [guest] });
    const a = await insertIssue(w, project);
    const secret = await insertIssue(w, project, { confidential: true });
    await link(w, dev, project, a.iid, { project, iid: secret.iid });
    const [{ id }] = await rows(w, sql`SELECT id FROM issue_links WHERE source_id = ${a.id}`);
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/issues/${a.iid}/links/${id}`))).toEqual([404, { message: "404 Issue Not Found" }]);
  });
});

describe("DELETE /projects/:id/issues/:issue_iid/links/:issue_link_id", () => {
  it("removes the relation for both issues and answers 200 with the link", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const a = await insertIssue(w, project);
    const b = await insertIssue(w, project);
    await link(w, dev, project, a.iid, { project, iid: b.iid });
    const [{ id }] = await rows(w, sql`SELECT id FROM issue_links WHERE source_id = ${a.id}`);
    const res = await w.as(dev).delete(`/projects/${project.id}/issues/${b.iid}/links/${id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ source_issue: { id: a.id }, target_issue: { id: b.id }, link_type: "relates_to" });
    expect(await rows(w, sql`SELECT 1 FROM issue_links WHERE id = ${id}`)).toEqual([]);
    for (const iid of [a.iid, b.iid]) expect(await (await w.as(dev).get(`/projects/${project.id}/issues/${iid}/links`)).json()).toEqual([]);
    const notes = await rows(w, sql`SELECT noteable_id, note FROM notes WHERE noteable_type = 'Issue' AND noteable_id IN (${a.id}, ${b.id})
      AND note LIKE 'removed%' ORDER BY noteable_id`);
    expect(notes).toEqual([
      { noteable_id: a.id, note: `removed the relation with #${b.iid}` },
      { noteable_id: b.id, note: `removed the relation with #${a.iid}` },
    ]);
    expect(await statusAndBody(await w.as(dev).delete(`/projects/${project.id}/issues/${a.iid}/links/${id}`))).toEqual([404, { message: "404 Not found" }]);
  });

  it("answers 404 No Issue Link found when the caller may not link issues of the other project", async () => {
    const w = await world();
    const dev = await w.user();
    const outsider = await w.user();
    const project = await w.project({ visibility: "public", developers: [dev] });
    const other = await w.project({ visibility: "public", developers: [dev, outsider] });
    const a = await insertIssue(w, project);
    const b = await insertIssue(w, other);
    await link(w, dev, project, a.iid, { project: other, iid: b.iid });
    const [{ id }] = await rows(w, sql`SELECT id FROM issue_links WHERE source_id = ${a.id}`);
    expect(await statusAndBody(await w.as(outsider).delete(`/projects/${other.id}/issues/${b.iid}/links/${id}`))).toEqual([
      404,
      { message: "No Issue Link found" },
    ]);
    expect(await rows(w, sql`SELECT 1 FROM issue_links WHERE id = ${id}`)).toEqual([{ "?column?": 1 }]);
  });
});

describe("DELETE /projects/:id/issues/:issue_iid/links/:issue_link_id racing a delete of the linked issue", () => {
  it("answers 200 with both issues or 404, never 500, and leaves no note for a link it did not remove", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const api = w.as(owner);
    for (let round = 0; round < 8; round++) {
      const a = await insertIssue(w, project, { title: `A${round}` });
      const b = await insertIssue(w, project, { title: `B${round}` });
      const created = await link(w, owner, project, a.iid, { project: project.id.toString(), iid: b.iid });
      expect(created.status).toBe(201);
      const [{ id }] = await rows(w, sql`SELECT id FROM issue_links WHERE source_id = ${a.id}`);
      const [unlink, remove] = await Promise.all([
        api.delete(`/projects/${project.id}/issues/${a.iid}/links/${id}`),
        api.delete(`/projects/${project.id}/issues/${b.iid}`),
      ]);
      expect(remove.status).toBe(204);
      if (unlink.status === 200) {
        expect((await unlink.json()) as Json).toMatchObject({ source_issue: { id: a.id }, target_issue: { id: b.id } });
      } else {
        // The link went with the issue before the lookup ("404 Not found", GitLab's find_by!), or between
        // the lookup and the delete (IssueLinks::DestroyService's "No Issue Link found").
        const [status, body] = await statusAndBody(unlink);
        expect(status).toBe(404);
        expect(["404 Not found", "No Issue Link found"]).toContain((body as Json).message);
        const notes = await rows(w, sql`SELECT note FROM notes WHERE noteable_type = 'Issue' AND noteable_id = ${a.id} AND note LIKE 'removed the relation%'`);
        expect(notes).toEqual([]);
      }
    }
  });
});
