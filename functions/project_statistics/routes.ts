import { authorize } from "../kernel/abilities";
import { findProject } from "../kernel/lookup";
import { router } from "../kernel/router";
import { ProjectDailyStatistics, projectDailyStatistics } from "../entities/statistics";
import * as q from "./queries";

/** Project fetch statistics (lib/api/project_statistics.rb): reporters and up (`daily_statistics`). */
export const projectStatisticsRoutes = router();

/**
 * GET /projects/:id/statistics: git fetches per day over the last 30 days. Each `git fetch` or clone
 * over HTTP counts once (functions/git_http: the upload-pack `fetch` command).
 */
projectStatisticsRoutes.get("/projects/:id/statistics", { response: ProjectDailyStatistics }, async (c) => {
  const project = await findProject(c, c.req.param("id"));
  authorize(c, "daily_statistics", project);
  return c.json(projectDailyStatistics(await q.fetchDays(c.var.db(), project.id)));
});
