import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { issues } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { issue } from "../helpers/noteables";
import { createLabel, queryCount } from "../helpers/api";

const counts = (all: number, closed: number, opened: number) => ({ statistics: { counts: { all, closed, opened } } });

describe("GET /projects/:id/issues_statistics", () => {
  it("counts the issues by state with the lists' filters, in one statement", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner, visibility: "public" });
    const a = await issue(w, project, { author: owner });
    await issue(w, project, { author: owner });
    const closed = await issue(w, project);
    await issue(w, project, { confidential: true });
    await w.db((db) => db.update(issues).set({ state: "closed" }).where(eq(issues.id, closed.id)));
    const path = `/projects/${project.id}/issues_statistics`;
    const res = await w.as(owner).get(path);
    expect(await statusAndBody(res.clone())).toEqual([200, counts(4, 1, 3)]);
    expect(queryCount(res)).toBeLessThanOrEqual(3);
    // The confidential issue is not counted for a non-member.
    expect(await statusAndBody(await w.anonymous.get(path))).toEqual([200, counts(3, 1, 2)]);
    expect(await statusAndBody(await w.as(owner).get(path, { query: { author_id: owner.id } }))).toEqual([200, counts(2, 0, 2)]);
    expect(await statusAndBody(await w.as(owner).get(path, { query: { iids: [a.iid] } }))).toEqual([200, counts(1, 0, 1)]);
    const label = await createLabel(w, owner, project);
    await w.as(owner).put(`/projects/${project.id}/issues/${a.iid}`, { json: { labels: label.name } });
    expect(await statusAndBody(await w.as(owner).get(path, { query: { labels: label.name } }))).toEqual([200, counts(1, 0, 1)]);
    expect(await statusAndBody(await w.as(owner).get(path, { query: { "not[labels]": label.name } }))).toEqual([200, counts(3, 1, 2)]);
  });

  it("answers Grape's 400s", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/issues_statistics`, { query: { author_id: "x" } }))).toEqual([
      400,
      { error: "author_id is invalid" },
    ]);
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/issues_statistics`, { query: { author_id: 1, author_username: "a" } }))).toEqual([
      400,
      { error: "author_id, author_username are mutually exclusive" },
    ]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/issues_statistics`));
});

describe("GET /groups/:id/issues_statistics", () => {
  it("counts the issues of the group's projects and subgroups", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ visibility: "private", owners: [owner] });
    const sub = await w.group({ visibility: "private", parent: group });
    await issue(w, await w.project({ group }));
    await issue(w, await w.project({ group: sub }));
    expect(await statusAndBody(await w.as(owner).get(`/groups/${group.id}/issues_statistics`))).toEqual([200, counts(2, 0, 2)]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${group.id}/issues_statistics`))).toEqual([404, { message: "404 Group Not Found" }]);
  });
});

describe("GET /issues_statistics", () => {
  it("counts the caller's own issues by default, and every readable one with scope=all", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ visibility: "public", developers: [author] });
    await issue(w, project, { author });
    await issue(w, project);
    expect(await statusAndBody(await w.as(author).get("/issues_statistics"))).toEqual([200, counts(1, 0, 1)]);
    const all = (await (await w.as(author).get("/issues_statistics", { query: { scope: "all" } })).json()) as { statistics: { counts: { all: number } } };
    expect(all.statistics.counts.all).toBeGreaterThanOrEqual(2);
    expect((await w.anonymous.get("/issues_statistics", { query: { scope: "all" } })).status).toBe(200);
  });

  requiresAuthentication((w) => w.anonymous.get("/issues_statistics"));
});
