import { describe, expect, it } from "vitest";
import { userAgentDetails } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world, type World, type TestIssue } from "../helpers/world";
import { makeIssue } from "../helpers/noteables";

const path = (projectId: number, iid: number | string) => `/projects/${projectId}/issues/${iid}/user_agent_detail`;

async function recordAgent(w: World, issue: TestIssue, userAgent: string, ipAddress: string) {
  await w.db((db) => db.insert(userAgentDetails).values({ subjectType: "Issue", subjectId: issue.id, userAgent, ipAddress }));
}

describe("GET /projects/:id/issues/:issue_iid/user_agent_detail", () => {
  it("returns the user agent, IP and spam-check flag to an administrator", async () => {
    const w = await world();
    const project = await w.project({ visibility: "private" });
    const issue = await makeIssue(w, project);
    await recordAgent(w, issue, "gitbeaker/43", "203.0.113.7");
    const res = await w.root.get(path(project.id, issue.iid));
    expect(await statusAndBody(res)).toEqual([200, { user_agent: "gitbeaker/43", ip_address: "203.0.113.7", akismet_submitted: false }]);
    expect(Number(res.headers.get("x-query-count"))).toBeLessThanOrEqual(4);
  });

  it("returns what POST /projects/:id/issues recorded from the request", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ visibility: "private", owner });
    const created = await w.as(owner).post(`/projects/${project.id}/issues`, {
      json: { title: "From a script" },
      headers: { "User-Agent": "python-gitlab/3.9.0", "CF-Connecting-IP": "192.0.2.44" },
    });
    expect(created.status).toBe(201);
    const { iid } = (await created.json()) as { iid: number };
    expect(await statusAndBody(await w.root.get(path(project.id, iid)))).toEqual([
      200,
      { user_agent: "python-gitlab/3.9.0", ip_address: "192.0.2.44", akismet_submitted: false },
    ]);
  });

  it("answers 404 UserAgentDetail Not Found when nothing was recorded", async () => {
    const w = await world();
    const project = await w.project({ visibility: "private" });
    const issue = await makeIssue(w, project);
    expect(await statusAndBody(await w.root.get(path(project.id, issue.iid)))).toEqual([404, { message: "404 UserAgentDetail Not Found" }]);
  });

  it("answers 404 for an unknown project or issue, looked up after the admin check", async () => {
    const w = await world();
    const project = await w.project({ visibility: "private" });
    expect(await statusAndBody(await w.root.get(path(project.id, 9999)))).toEqual([404, { message: "404 Issue Not Found" }]);
    expect(await statusAndBody(await w.root.get(path(2147483000, 1)))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(path(2147483000, 1)))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("answers 403 to everyone but administrators, the project owner included", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ visibility: "public", owner });
    const issue = await makeIssue(w, project, { author: owner });
    await recordAgent(w, issue, "curl/8", "198.51.100.1");
    for (const user of [owner, w.stranger]) {
      expect(await statusAndBody(await w.as(user).get(path(project.id, issue.iid)))).toEqual([403, { message: "403 Forbidden" }]);
    }
  });

  it("answers 400 for an iid that is not an integer", async () => {
    const w = await world();
    expect(await statusAndBody(await w.root.get(path(1, "abc")))).toEqual([400, { error: "issue_iid is invalid" }]);
  });

  requiresAuthentication(async (w) => w.anonymous.get(path(1, 1)));
});
