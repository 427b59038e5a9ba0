import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { createIssue, queryCount, type Json } from "../helpers/api";

describe("GET /projects/:id/issues/:issue_iid/participants", () => {
  it("lists the author, assignees, commenters and mentioned users once each, in GitLab's order", async () => {
    const w = await world();
    const [author, assignee, commenter, mentioned, outsider] = [await w.user(), await w.user(), await w.user(), await w.user(), await w.user()];
    const project = await w.project({ visibility: "private", developers: [author, assignee, commenter, mentioned] });
    const issue = await createIssue(w, author, project, { description: `cc @${mentioned.username} @${outsider.username}`, assignee_ids: [assignee.id] });
    const path = `/projects/${project.id}/issues/${issue.iid}`;
    expect((await w.as(commenter).post(`${path}/notes`, { json: { body: `agreed @${author.username}` } })).status).toBe(201);

    const res = await w.as(author).get(`${path}/participants`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    // The outsider cannot read the private project, so is not a participant.
    expect(body.map((u) => u.username)).toEqual([author.username, assignee.username, commenter.username, mentioned.username]);
    expect(body[0]).toEqual({
      id: author.id,
      username: author.username,
      name: author.name,
      state: "active",
      avatar_url: expect.any(String),
      web_url: `http://edgeforge.test/${author.username}`,
    });
    expect(res.headers.get("x-total")).toBe("4");
  });

  it("paginates with offset headers and a flat statement count", async () => {
    const w = await world();
    const author = await w.user();
    const assignees = [await w.user(), await w.user()];
    const project = await w.project({ visibility: "public", developers: [author, ...assignees] });
    const issue = await createIssue(w, author, project, { assignee_ids: assignees.map((u) => u.id) });
    const path = `/projects/${project.id}/issues/${issue.iid}/participants`;
    const first = await w.as(author).get(path, { query: { per_page: 2 } });
    expect((await first.json()) as Json[]).toHaveLength(2);
    expect([first.headers.get("x-total"), first.headers.get("x-next-page")]).toEqual(["3", "2"]);
    const one = await w.as(author).get(path, { query: { per_page: 1 } });
    const hundred = await w.as(author).get(path, { query: { per_page: 100 } });
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
    // Anonymous callers read a public project's participants.
    expect((await w.anonymous.get(path)).status).toBe(200);
  });

  it("answers 404 for a confidential issue the caller may not read", async () => {
    const w = await world();
    const author = await w.user();
    const guest = await w.user();
    const project = await w.project({ visibility: "private", developers: [author], guests: [guest] });
    const issue = await createIssue(w, author, project, { confidential: true });
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/issues/${issue.iid}/participants`))).toEqual([
      404,
      { message: "404 Issue Not Found" },
    ]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/issues/1/participants`));
});
