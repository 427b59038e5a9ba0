import * as z from "zod";
import { authorize } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { validation } from "../kernel/errors";
import { findIssue, findProjectMergeRequest } from "../shared/issuables/find";
import { findProject } from "../kernel/lookup";
import { p, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { parseDuration, timeStats, IssuableTimeStats } from "../entities/time_tracking";
import * as services from "./services";

/**
 * Time tracking of issues and merge requests (lib/api/time_tracking_endpoints.rb, included by
 * lib/api/issues.rb and lib/api/merge_requests.rb): the same five endpoints under both collections.
 * Statuses as GitLab's: the mutators answer 200, except `add_spent_time` (201).
 */
export const timeTrackingRoutes = router();

type Kind = {
  collection: "issues" | "merge_requests";
  key: "issue_iid" | "merge_request_iid";
  type: "Issue" | "MergeRequest";
  admin: "admin_issue" | "admin_merge_request";
};

const KINDS: Kind[] = [
  { collection: "issues", key: "issue_iid", type: "Issue", admin: "admin_issue" },
  { collection: "merge_requests", key: "merge_request_iid", type: "MergeRequest", admin: "admin_merge_request" },
];

const SUMMARY_MAX = 255;

/** Grape declares `requires :<issuable>_iid, type: Integer` before the other parameters. */
function schemas(kind: Kind) {
  const iid = { [kind.key]: p.int() } as Record<string, ReturnType<typeof p.int>>;
  return {
    iidOnly: z.object(iid),
    duration: z.object({ ...iid, duration: p.string() }),
    spent: z.object({ ...iid, duration: p.string(), summary: p.string().optional() }),
  };
}

/** `load_issuable`: the project, then the issue or merge request inside it (`find_project_merge_request`: 404 when unreadable). */
async function loadIssuable(c: Ctx, kind: Kind) {
  const project = await findProject(c, c.req.param("id")!);
  const iid = c.req.param(kind.key)!;
  const issuable = kind.type === "Issue" ? await findIssue(c, project, iid) : await findProjectMergeRequest(c, project, iid);
  return { project, issuable, target: { type: kind.type, id: issuable.id, projectId: project.id } };
}

for (const kind of KINDS) {
  const base = `/projects/:id/${kind.collection}/:${kind.key}`;
  const params = schemas(kind);

  /** POST /projects/:id/(issues|merge_requests)/:iid/time_estimate (lib/api/time_tracking_endpoints.rb) */
  timeTrackingRoutes.post(`${base}/time_estimate`, { params: params.duration, response: IssuableTimeStats, status: 200 }, async (c) => {
    const input = await readParamsWithPath(c, params.duration);
    const { project, target } = await loadIssuable(c, kind);
    authorize(c, kind.admin, project);
    const seconds = parseDuration(input.duration);
    // The estimate becomes nil and fails `validates :time_estimate, numericality: { message: 'has an invalid format' }`.
    if (seconds === null) throw validation({ time_estimate: ["has an invalid format"] });
    const result = await services.setTimeEstimate(c.var.db(), target, c.var.actor!.user.id, seconds);
    return present(c, result, timeStats);
  });

  /** POST /projects/:id/(issues|merge_requests)/:iid/reset_time_estimate (lib/api/time_tracking_endpoints.rb) */
  timeTrackingRoutes.post(`${base}/reset_time_estimate`, { params: params.iidOnly, response: IssuableTimeStats, status: 200 }, async (c) => {
    await readParamsWithPath(c, params.iidOnly);
    const { project, target } = await loadIssuable(c, kind);
    authorize(c, kind.admin, project);
    const result = await services.setTimeEstimate(c.var.db(), target, c.var.actor!.user.id, 0);
    return present(c, result, timeStats);
  });

  /** POST /projects/:id/(issues|merge_requests)/:iid/add_spent_time (lib/api/time_tracking_endpoints.rb) */
  timeTrackingRoutes.post(`${base}/add_spent_time`, { params: params.spent, response: IssuableTimeStats }, async (c) => {
    const input = await readParamsWithPath(c, params.spent);
    const { project, issuable, target } = await loadIssuable(c, kind);
    authorize(c, kind.admin, project);
    const seconds = parseDuration(input.duration);
    const summary = input.summary ?? null;
    // A nil duration or a long summary makes the new timelog invalid (`validates :time_spent, presence`,
    // `validates :summary, length: { maximum: 255 }`), which the issuable reports as `timelogs is invalid`.
    if (seconds === null || (summary !== null && summary.length > SUMMARY_MAX)) throw validation({ timelogs: ["is invalid"] });
    // `spend_time` ignores a zero duration (a fraction of a second, once truncated).
    const result =
      seconds === 0
        ? { timeEstimate: issuable.timeEstimate, totalTimeSpent: issuable.totalTimeSpent }
        : await services.addSpentTime(c.var.db(), target, c.var.actor!.user.id, seconds, summary);
    return present(c, result, timeStats, undefined, 201);
  });

  /** POST /projects/:id/(issues|merge_requests)/:iid/reset_spent_time (lib/api/time_tracking_endpoints.rb) */
  timeTrackingRoutes.post(`${base}/reset_spent_time`, { params: params.iidOnly, response: IssuableTimeStats, status: 200 }, async (c) => {
    await readParamsWithPath(c, params.iidOnly);
    const { project, target } = await loadIssuable(c, kind);
    authorize(c, kind.admin, project);
    const result = await services.resetSpentTime(c.var.db(), target, c.var.actor!.user.id);
    return present(c, result, timeStats);
  });

  /** GET /projects/:id/(issues|merge_requests)/:iid/time_stats (lib/api/time_tracking_endpoints.rb) */
  timeTrackingRoutes.get(`${base}/time_stats`, { params: params.iidOnly, response: IssuableTimeStats }, async (c) => {
    await readParamsWithPath(c, params.iidOnly);
    const { issuable } = await loadIssuable(c, kind);
    return present(c, issuable, timeStats);
  });
}
