import type { z } from "zod";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { findGroup, findProject } from "../../kernel/lookup";
import { readParams } from "../../kernel/params";
import { router } from "../../kernel/router";
import { issuesStatistics, IssuesStatistics as IssuesStatisticsEntity } from "../../entities/issues";
import { AllIssuesStatistics, IssuesStatistics, LIST_RULES } from "../params";
import * as q from "../queries";

/**
 * `issues_statistics` (lib/api/issues.rb, Gitlab::IssuablesCountForState): the counts of the issues a list
 * with the same filters would show, by state, in one statement. The filters are the lists' own
 * (`listCondition`); `state` is not a parameter, every state is counted.
 */
export const statisticsRoutes = router();

async function statistics(c: Ctx, owner: q.IssueOwner, params: z.output<typeof IssuesStatistics>) {
  const counts = await q.issueStatistics(c.var.db(), owner, params, c.var.actor, new Date());
  return c.json(issuesStatistics(counts));
}

/** GET /issues_statistics (lib/api/issues.rb): `scope` defaults to `created_by_me`; `scope=all` works anonymously. */
statisticsRoutes.get("/issues_statistics", { params: AllIssuesStatistics, response: IssuesStatisticsEntity }, async (c) => {
  const params = await readParams(c, AllIssuesStatistics, LIST_RULES);
  if (params.scope !== "all") requireUser(c);
  return statistics(c, { kind: "all" }, params);
});

/** GET /groups/:id/issues_statistics (lib/api/issues.rb): the group's and its subgroups' projects. */
statisticsRoutes.get("/groups/:id/issues_statistics", { params: IssuesStatistics, response: IssuesStatisticsEntity }, async (c) => {
  const params = await readParams(c, IssuesStatistics, LIST_RULES);
  const group = await findGroup(c, c.req.param("id"));
  return statistics(c, { kind: "group", groupId: group.id }, params);
});

/** GET /projects/:id/issues_statistics (lib/api/issues.rb) */
statisticsRoutes.get("/projects/:id/issues_statistics", { params: IssuesStatistics, response: IssuesStatisticsEntity }, async (c) => {
  const params = await readParams(c, IssuesStatistics, LIST_RULES);
  const project = await findProject(c, c.req.param("id"));
  return statistics(c, { kind: "project", projectId: project.id }, params);
});
