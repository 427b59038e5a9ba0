import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { makeMergeRequest, mergeRequestRow, systemNotes, timelogsOf } from "./support";

const path = (projectId: number, iid: number, endpoint: string) => `/projects/${projectId}/merge_requests/${iid}/${endpoint}`;

async function developerSetup() {
  const w = await world();
  const developer = await w.user();
  const project = await w.project({ visibility: "private", developers: [developer] });
  const mr = await makeMergeRequest(w, project);
  return { w, developer, project, mr, as: w.as(developer) };
}

describe("POST /projects/:id/merge_requests/:merge_request_iid/time_estimate", () => {
  it("sets the estimate: 200, the column and a system note on the merge request", async () => {
    const { w, project, mr, as } = await developerSetup();
    const res = await as.post(path(project.id, mr.iid, "time_estimate"), { json: { duration: "1w 2d" } });
    expect(await statusAndBody(res)).toEqual([
      200,
      { time_estimate: 201600, total_time_spent: 0, human_time_estimate: "1w 2d", human_total_time_spent: null },
    ]);
    expect((await mergeRequestRow(w, mr.id)).timeEstimate).toBe(201600);
    expect(await systemNotes(w, "MergeRequest", mr.id)).toEqual(["changed time estimate to 1w 2d"]);
  });

  it("answers 400 for a bad duration and 404 for an unknown merge request", async () => {
    const { project, mr, as } = await developerSetup();
    const bad = await as.post(path(project.id, mr.iid, "time_estimate"), { json: { duration: "later" } });
    expect(await statusAndBody(bad)).toEqual([400, { message: { time_estimate: ["has an invalid format"] } }]);
    const missing = await as.post(path(project.id, 404, "time_estimate"), { json: { duration: "1h" } });
    expect(await statusAndBody(missing)).toEqual([404, { message: "404 Merge Request Not Found" }]);
    expect(await statusAndBody(await as.post(path(project.id, mr.iid, "time_estimate")))).toEqual([
      400,
      { error: "duration is missing" },
    ]);
  });

  // admin_merge_request is developer and up.
  forbidsRoles(["guest", "reporter"], async (w, project, user) => {
    const mr = await makeMergeRequest(w, project, { author: user });
    return w.as(user).post(path(project.id, mr.iid, "time_estimate"), { json: { duration: "1h" } });
  });
  hidesPrivateProject(async (w, project) => w.as(w.stranger).post(path(project.id, 1, "time_estimate"), { json: { duration: "1h" } }));
  requiresAuthentication(async (w) => w.anonymous.post(path(1, 1, "time_estimate"), { json: { duration: "1h" } }));
});

describe("POST /projects/:id/merge_requests/:merge_request_iid/reset_time_estimate", () => {
  it("resets the estimate to 0", async () => {
    const { w, project, mr, as } = await developerSetup();
    await as.post(path(project.id, mr.iid, "time_estimate"), { json: { duration: "3h" } });
    const res = await as.post(path(project.id, mr.iid, "reset_time_estimate"));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Record<string, unknown>).time_estimate).toBe(0);
    expect((await mergeRequestRow(w, mr.id)).timeEstimate).toBe(0);
  });

  forbidsRoles(["reporter"], async (w, project, user) => {
    const mr = await makeMergeRequest(w, project);
    return w.as(user).post(path(project.id, mr.iid, "reset_time_estimate"));
  });
});

describe("POST /projects/:id/merge_requests/:merge_request_iid/add_spent_time", () => {
  it("adds and subtracts spent time: 201, timelogs on the merge request, the total", async () => {
    const { w, developer, project, mr, as } = await developerSetup();
    const res = await as.post(path(project.id, mr.iid, "add_spent_time"), { json: { duration: "1h30m", summary: "pairing" } });
    expect(await statusAndBody(res)).toEqual([
      201,
      { time_estimate: 0, total_time_spent: 5400, human_time_estimate: null, human_total_time_spent: "1h 30m" },
    ]);
    const exceeds = await as.post(path(project.id, mr.iid, "add_spent_time"), { json: { duration: "-2h" } });
    expect(await statusAndBody(exceeds)).toEqual([400, { message: { base: ["Time to subtract exceeds the total time spent"] } }]);
    expect((await mergeRequestRow(w, mr.id)).totalTimeSpent).toBe(5400);
    expect((await timelogsOf(w, "mergeRequestId", mr.id)).map((l) => [l.timeSpent, l.userId, l.summary, l.issueId])).toEqual([
      [5400, developer.id, "pairing", null],
    ]);
  });

  forbidsRoles(["reporter"], async (w, project, user) => {
    const mr = await makeMergeRequest(w, project);
    return w.as(user).post(path(project.id, mr.iid, "add_spent_time"), { json: { duration: "1h" } });
  });
});

describe("POST /projects/:id/merge_requests/:merge_request_iid/reset_spent_time", () => {
  it("resets the spent total", async () => {
    const { w, project, mr, as } = await developerSetup();
    await as.post(path(project.id, mr.iid, "add_spent_time"), { json: { duration: "4h" } });
    const res = await as.post(path(project.id, mr.iid, "reset_spent_time"));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Record<string, unknown>).total_time_spent).toBe(0);
    expect((await timelogsOf(w, "mergeRequestId", mr.id)).map((l) => l.timeSpent)).toEqual([14400, -14400]);
    expect(await systemNotes(w, "MergeRequest", mr.id)).toEqual(["added 4h of time spent", "removed time spent"]);
  });
});

describe("GET /projects/:id/merge_requests/:merge_request_iid/time_stats", () => {
  it("returns the time stats to a reporter, and hides them from a guest of a private project", async () => {
    const w = await world();
    const developer = await w.user();
    const reporter = await w.user();
    const guest = await w.user();
    const project = await w.project({ visibility: "private", developers: [developer], reporters: [reporter], guests: [guest] });
    const mr = await makeMergeRequest(w, project);
    await w.as(developer).post(path(project.id, mr.iid, "time_estimate"), { json: { duration: "1mo" } });
    const res = await w.as(reporter).get(path(project.id, mr.iid, "time_stats"));
    expect(await statusAndBody(res)).toEqual([
      200,
      { time_estimate: 576000, total_time_spent: 0, human_time_estimate: "1mo", human_total_time_spent: null },
    ]);
    // GitLab gives guests of private projects no read_merge_request.
    const hidden = await w.as(guest).get(path(project.id, mr.iid, "time_stats"));
    expect(await statusAndBody(hidden)).toEqual([404, { message: "404 Merge Request Not Found" }]);
  });

  hidesPrivateProject(async (w, project) => w.as(w.stranger).get(path(project.id, 1, "time_stats")));
});
