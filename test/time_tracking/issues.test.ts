import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { issueRow, systemNotes, timelogsOf } from "./support";
import { makeIssue } from "../helpers/noteables";

const path = (projectId: number, iid: number, endpoint: string) => `/projects/${projectId}/issues/${iid}/${endpoint}`;

async function reporterSetup() {
  const w = await world();
  const reporter = await w.user();
  const project = await w.project({ visibility: "private", reporters: [reporter] });
  const issue = await makeIssue(w, project);
  return { w, reporter, project, issue, as: w.as(reporter) };
}

describe("POST /projects/:id/issues/:issue_iid/time_estimate", () => {
  it("sets the estimate from a human duration: 200, the time stats, the column and a system note", async () => {
    const { w, project, issue, as } = await reporterSetup();
    const res = await as.post(path(project.id, issue.iid, "time_estimate"), { json: { duration: "3h30m" } });
    expect(await statusAndBody(res)).toEqual([
      200,
      { time_estimate: 12600, total_time_spent: 0, human_time_estimate: "3h 30m", human_total_time_spent: null },
    ]);
    expect(Number(res.headers.get("x-query-count"))).toBeLessThanOrEqual(4);
    expect((await issueRow(w, issue.id)).timeEstimate).toBe(12600);
    expect(await systemNotes(w, "Issue", issue.id)).toEqual(["changed time estimate to 3h 30m"]);
  });

  it("reads GitLab's units: 8-hour days, 5-day weeks, 4-week months, a bare number in hours", async () => {
    const { project, issue, as } = await reporterSetup();
    const cases: [string, number, string][] = [
      ["1w", 144000, "1w"],
      ["3w1h", 435600, "3w 1h"],
      ["1mo 2w 3d 4h 5m 6s", 965106, "1mo 2w 3d 4h 5m 6s"],
      ["2", 7200, "2h"],
      ["1d", 28800, "1d"],
      ["10h", 36000, "1d 2h"],
      ["-1h", -3600, "-1h"],
    ];
    for (const [duration, seconds, human] of cases) {
      const res = await as.post(path(project.id, issue.iid, "time_estimate"), { form: { duration } });
      const body = (await res.json()) as Record<string, unknown>;
      expect([duration, res.status, body.time_estimate, body.human_time_estimate]).toEqual([duration, 200, seconds, human]);
    }
  });

  it("writes no note and keeps updated_at when the estimate does not change", async () => {
    const { w, project, issue, as } = await reporterSetup();
    await as.post(path(project.id, issue.iid, "time_estimate"), { json: { duration: "1w" } });
    const before = await issueRow(w, issue.id);
    const res = await as.post(path(project.id, issue.iid, "time_estimate"), { json: { duration: "5d" } });
    expect(res.status).toBe(200);
    expect((await issueRow(w, issue.id)).updatedAt).toEqual(before.updatedAt);
    expect(await systemNotes(w, "Issue", issue.id)).toEqual(["changed time estimate to 1w"]);
  });

  it("answers 400 for a duration GitLab cannot read, and keeps the estimate", async () => {
    const { w, project, issue, as } = await reporterSetup();
    await as.post(path(project.id, issue.iid, "time_estimate"), { json: { duration: "1w" } });
    for (const duration of ["foo", "0", ""]) {
      const res = await as.post(path(project.id, issue.iid, "time_estimate"), { json: { duration } });
      expect(await statusAndBody(res)).toEqual([400, { message: { time_estimate: ["has an invalid format"] } }]);
    }
    expect((await issueRow(w, issue.id)).timeEstimate).toBe(144000);
  });

  it("answers 400 with Grape's messages for missing or invalid parameters", async () => {
    const { project, issue, as } = await reporterSetup();
    expect(await statusAndBody(await as.post(path(project.id, issue.iid, "time_estimate")))).toEqual([400, { error: "duration is missing" }]);
    expect(await statusAndBody(await as.post(`/projects/${project.id}/issues/abc/time_estimate`))).toEqual([
      400,
      { error: "issue_iid is invalid, duration is missing" },
    ]);
  });

  it("answers 404 for an unknown issue and for a confidential issue the guest may not read", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ visibility: "private", guests: [guest] });
    const secret = await makeIssue(w, project, { confidential: true });
    const res = await w.as(guest).post(path(project.id, secret.iid, "time_estimate"), { json: { duration: "1h" } });
    expect(await statusAndBody(res)).toEqual([404, { message: "404 Issue Not Found" }]);
    const missing = await w.as(guest).post(path(project.id, 999, "time_estimate"), { json: { duration: "1h" } });
    expect(await statusAndBody(missing)).toEqual([404, { message: "404 Issue Not Found" }]);
  });

  it("answers 403 for a public project's non-member and for a reporter of an archived project", async () => {
    const w = await world();
    const reporter = await w.user();
    const open = await w.project({ visibility: "public" });
    const issue = await makeIssue(w, open);
    const res = await w.as(w.stranger).post(path(open.id, issue.iid, "time_estimate"), { json: { duration: "1h" } });
    expect(await statusAndBody(res)).toEqual([403, { message: "403 Forbidden" }]);
    const archived = await w.project({ visibility: "private", archived: true, reporters: [reporter] });
    const old = await makeIssue(w, archived);
    const res2 = await w.as(reporter).post(path(archived.id, old.iid, "time_estimate"), { json: { duration: "1h" } });
    expect(await statusAndBody(res2)).toEqual([403, { message: "403 Forbidden" }]);
  });

  forbidsRoles(["guest"], async (w, project, user) => {
    const issue = await makeIssue(w, project, { author: user });
    return w.as(user).post(path(project.id, issue.iid, "time_estimate"), { json: { duration: "1h" } });
  });
  hidesPrivateProject(async (w, project) => w.as(w.stranger).post(path(project.id, 1, "time_estimate"), { json: { duration: "1h" } }));
  requiresAuthentication(async (w) => w.anonymous.post(path(1, 1, "time_estimate"), { json: { duration: "1h" } }));
});

describe("POST /projects/:id/issues/:issue_iid/reset_time_estimate", () => {
  it("resets the estimate to 0 seconds: 200 and the note 'removed time estimate'", async () => {
    const { w, project, issue, as } = await reporterSetup();
    await as.post(path(project.id, issue.iid, "time_estimate"), { json: { duration: "2d" } });
    const res = await as.post(path(project.id, issue.iid, "reset_time_estimate"));
    expect(await statusAndBody(res)).toEqual([
      200,
      { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
    ]);
    expect((await issueRow(w, issue.id)).timeEstimate).toBe(0);
    expect(await systemNotes(w, "Issue", issue.id)).toEqual(["changed time estimate to 2d", "removed time estimate"]);
  });

  forbidsRoles(["guest"], async (w, project, user) => {
    const issue = await makeIssue(w, project);
    return w.as(user).post(path(project.id, issue.iid, "reset_time_estimate"));
  });
  requiresAuthentication(async (w) => w.anonymous.post(path(1, 1, "reset_time_estimate")));
});

describe("POST /projects/:id/issues/:issue_iid/add_spent_time", () => {
  it("adds spent time: 201, a timelog with its summary, the total, the note and a new updated_at", async () => {
    const { w, reporter, project, issue, as } = await reporterSetup();
    const before = await issueRow(w, issue.id);
    const res = await as.post(path(project.id, issue.iid, "add_spent_time"), { json: { duration: "2h", summary: "review" } });
    expect(await statusAndBody(res)).toEqual([
      201,
      { time_estimate: 0, total_time_spent: 7200, human_time_estimate: null, human_total_time_spent: "2h" },
    ]);
    expect(Number(res.headers.get("x-query-count"))).toBeLessThanOrEqual(4);
    const row = await issueRow(w, issue.id);
    expect(row.totalTimeSpent).toBe(7200);
    expect(row.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    const logs = await timelogsOf(w, "issueId", issue.id);
    expect(logs.map((l) => [l.timeSpent, l.userId, l.summary])).toEqual([[7200, reporter.id, "review"]]);
    expect(await systemNotes(w, "Issue", issue.id)).toEqual(["added 2h of time spent"]);
  });

  it("subtracts a negative duration, down to exactly zero", async () => {
    const { w, project, issue, as } = await reporterSetup();
    await as.post(path(project.id, issue.iid, "add_spent_time"), { json: { duration: "2h" } });
    const res = await as.post(path(project.id, issue.iid, "add_spent_time"), { json: { duration: "-1h" } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as Record<string, unknown>).total_time_spent).toBe(3600);
    const res2 = await as.post(path(project.id, issue.iid, "add_spent_time"), { json: { duration: "-60m" } });
    expect(((await res2.json()) as Record<string, unknown>).total_time_spent).toBe(0);
    expect((await timelogsOf(w, "issueId", issue.id)).map((l) => l.timeSpent)).toEqual([7200, -3600, -3600]);
    expect(await systemNotes(w, "Issue", issue.id)).toEqual([
      "added 2h of time spent",
      "subtracted 1h of time spent",
      "subtracted 1h of time spent",
    ]);
  });

  it("refuses to subtract more than was spent: 400 with GitLab's base error, nothing written", async () => {
    const { w, project, issue, as } = await reporterSetup();
    await as.post(path(project.id, issue.iid, "add_spent_time"), { json: { duration: "2h" } });
    const before = await issueRow(w, issue.id);
    const res = await as.post(path(project.id, issue.iid, "add_spent_time"), { json: { duration: "-1w" } });
    expect(await statusAndBody(res)).toEqual([400, { message: { base: ["Time to subtract exceeds the total time spent"] } }]);
    const after = await issueRow(w, issue.id);
    expect([after.totalTimeSpent, after.updatedAt]).toEqual([7200, before.updatedAt]);
    expect(await timelogsOf(w, "issueId", issue.id)).toHaveLength(1);
    expect(await systemNotes(w, "Issue", issue.id)).toHaveLength(1);
  });

  it("answers 400 for an unreadable duration or a summary over 255 characters", async () => {
    const { w, project, issue, as } = await reporterSetup();
    for (const json of [{ duration: "soon" }, { duration: "1h", summary: "x".repeat(256) }]) {
      const res = await as.post(path(project.id, issue.iid, "add_spent_time"), { json });
      expect(await statusAndBody(res)).toEqual([400, { message: { timelogs: ["is invalid"] } }]);
    }
    expect(await statusAndBody(await as.post(path(project.id, issue.iid, "add_spent_time")))).toEqual([400, { error: "duration is missing" }]);
    expect(await timelogsOf(w, "issueId", issue.id)).toHaveLength(0);
  });

  forbidsRoles(["guest"], async (w, project, user) => {
    const issue = await makeIssue(w, project, { assignee: user });
    return w.as(user).post(path(project.id, issue.iid, "add_spent_time"), { json: { duration: "1h" } });
  });
  hidesPrivateProject(async (w, project) => w.as(w.stranger).post(path(project.id, 1, "add_spent_time"), { json: { duration: "1h" } }));
  requiresAuthentication(async (w) => w.anonymous.post(path(1, 1, "add_spent_time"), { json: { duration: "1h" } }));
});

describe("POST /projects/:id/issues/:issue_iid/reset_spent_time", () => {
  it("resets the total with a timelog of minus the total: 200 and the note 'removed time spent'", async () => {
    const { w, reporter, project, issue, as } = await reporterSetup();
    await as.post(path(project.id, issue.iid, "add_spent_time"), { json: { duration: "1d" } });
    await as.post(path(project.id, issue.iid, "time_estimate"), { json: { duration: "2d" } });
    const res = await as.post(path(project.id, issue.iid, "reset_spent_time"));
    expect(await statusAndBody(res)).toEqual([
      200,
      { time_estimate: 57600, total_time_spent: 0, human_time_estimate: "2d", human_total_time_spent: null },
    ]);
    expect((await issueRow(w, issue.id)).totalTimeSpent).toBe(0);
    expect((await timelogsOf(w, "issueId", issue.id)).map((l) => [l.timeSpent, l.userId])).toEqual([
      [28800, reporter.id],
      [-28800, reporter.id],
    ]);
    expect((await systemNotes(w, "Issue", issue.id)).at(-1)).toBe("removed time spent");
  });

  forbidsRoles(["guest"], async (w, project, user) => {
    const issue = await makeIssue(w, project);
    return w.as(user).post(path(project.id, issue.iid, "reset_spent_time"));
  });
  requiresAuthentication(async (w) => w.anonymous.post(path(1, 1, "reset_spent_time")));
});

describe("GET /projects/:id/issues/:issue_iid/time_stats", () => {
  it("returns the time stats in three statements (token, project, issue), to a guest and anonymously on a public project", async () => {
    const w = await world();
    const reporter = await w.user();
    const guest = await w.user();
    const project = await w.project({ visibility: "public", reporters: [reporter], guests: [guest] });
    const issue = await makeIssue(w, project);
    await w.as(reporter).post(path(project.id, issue.iid, "time_estimate"), { json: { duration: "1h" } });
    await w.as(reporter).post(path(project.id, issue.iid, "add_spent_time"), { json: { duration: "30m" } });
    const expected = { time_estimate: 3600, total_time_spent: 1800, human_time_estimate: "1h", human_total_time_spent: "30m" };
    for (const client of [w.as(guest), w.anonymous]) {
      const res = await client.get(path(project.id, issue.iid, "time_stats"));
      expect(await statusAndBody(res)).toEqual([200, expected]);
      expect(Number(res.headers.get("x-query-count"))).toBeLessThanOrEqual(3);
    }
  });

  it("answers 404 for a confidential issue read anonymously and for an unknown issue", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const secret = await makeIssue(w, project, { confidential: true });
    expect(await statusAndBody(await w.anonymous.get(path(project.id, secret.iid, "time_stats")))).toEqual([
      404,
      { message: "404 Issue Not Found" },
    ]);
    expect(await statusAndBody(await w.anonymous.get(path(project.id, 77, "time_stats")))).toEqual([404, { message: "404 Issue Not Found" }]);
  });

  hidesPrivateProject(async (w, project) => w.as(w.stranger).get(path(project.id, 1, "time_stats")));
});
