import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { awardEmoji, issues, labelLinks, notes, projects, todos, userAgentDetails } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { createIssue, team } from "../helpers/api";

describe("DELETE /projects/:id/issues/:issue_iid", () => {
  it("lets the owner delete the issue and everything hanging on it", async () => {
    const w = await world();
    const t = await team(w);
    const issue = await createIssue(w, t.owner, t.project, {
      labels: "doomed",
      assignee_ids: [t.reporter.id],
      description: `@${t.guest.username}`,
    });
    await w.db((db) => db.insert(awardEmoji).values({ name: "thumbsup", userId: t.guest.id, awardableType: "Issue", awardableId: issue.id }));
    const res = await w.as(t.owner).delete(`/projects/${t.project.id}/issues/${issue.iid}`, { headers: { "User-Agent": "x" } });
    expect(await statusAndBody(res)).toEqual([204, ""]);
    expect(await w.db((db) => db.select().from(issues).where(eq(issues.id, issue.id)))).toEqual([]);
    for (const [table, type, column] of [
      [labelLinks, labelLinks.targetType, labelLinks.targetId],
      [notes, notes.noteableType, notes.noteableId],
      [todos, todos.targetType, todos.targetId],
      [awardEmoji, awardEmoji.awardableType, awardEmoji.awardableId],
      [userAgentDetails, userAgentDetails.subjectType, userAgentDetails.subjectId],
    ] as const) {
      const left = await w.db((db) => db.select().from(table).where(and(eq(type, "Issue"), eq(column, issue.id))));
      expect(left).toEqual([]);
    }
    const [project] = await w.db((db) => db.select({ n: projects.openIssuesCount }).from(projects).where(eq(projects.id, t.project.id)));
    expect(project.n).toBe(0);
    expect(await statusAndBody(await w.as(t.owner).get(`/projects/${t.project.id}/issues/${issue.iid}`))).toEqual([404, { message: "404 Issue Not Found" }]);
  });

  it("answers 403 below owner, 404 Issue Not Found for a missing or unreadable issue", async () => {
    const w = await world();
    const t = await team(w);
    const maintainer = await w.user();
    await w.addMembers("Project", t.project.id, { maintainers: [maintainer] });
    const issue = await createIssue(w, t.guest, t.project);
    for (const user of [maintainer, t.reporter, t.guest]) {
      expect(await statusAndBody(await w.as(user).delete(`/projects/${t.project.id}/issues/${issue.iid}`))).toEqual([403, { message: "403 Forbidden" }]);
    }
    expect(await statusAndBody(await w.as(t.owner).delete(`/projects/${t.project.id}/issues/77`))).toEqual([404, { message: "404 Issue Not Found" }]);
    const secret = await createIssue(w, t.owner, t.project, { confidential: true });
    expect(await statusAndBody(await w.as(t.guest).delete(`/projects/${t.project.id}/issues/${secret.iid}`))).toEqual([
      404,
      { message: "404 Issue Not Found" },
    ]);
  });

  it("answers 412 when If-Unmodified-Since is older than the issue", async () => {
    const w = await world();
    const t = await team(w);
    const issue = await createIssue(w, t.owner, t.project);
    const res = await w.as(t.owner).delete(`/projects/${t.project.id}/issues/${issue.iid}`, { headers: { "If-Unmodified-Since": "Wed, 01 Jan 2020 00:00:00 GMT" } });
    expect(await statusAndBody(res)).toEqual([412, { message: "412 Precondition Failed" }]);
  });

  requiresAuthentication((w) => w.anonymous.delete(`/projects/1/issues/1`));
  hidesPrivateProject((w, p) => w.as(w.stranger).delete(`/projects/${p.id}/issues/1`));
});
