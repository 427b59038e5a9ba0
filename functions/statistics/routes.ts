import { requireAdmin } from "../kernel/auth";
import { router } from "../kernel/router";
import { ApplicationStatistics, applicationStatistics } from "../entities/statistics";
import * as q from "./queries";

/** Instance statistics (lib/api/statistics.rb): administrators only. */
export const statisticsRoutes = router();

/** GET /application/statistics: approximate above 10,000 rows, as GitLab's (see queries.ts). */
statisticsRoutes.get("/application/statistics", { response: ApplicationStatistics }, async (c) => {
  requireAdmin(c);
  return c.json(applicationStatistics(await q.instanceCounts(c.var.db())));
});
