import * as z from "zod";
import { requireAdmin } from "../kernel/auth";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { UserActivity, userActivity } from "../entities/user_counts";
import * as q from "./queries";

/** Users' last activity days (lib/api/users.rb, `GET /user/activities`): administrators only. */
export const userActivitiesRoutes = router({ readUserScope: true });

const ListActivities = z.object({ from: p.datetime().optional(), ...pageParams.shape });

/** GET /user/activities: active users seen on or after `from` (default six months ago), oldest activity first. */
userActivitiesRoutes.get("/user/activities", { params: ListActivities, paginated: true, response: [UserActivity] }, async (c) => {
  const params = await readParams(c, ListActivities);
  requireAdmin(c);
  const from = params.from ?? new Date(new Date().setUTCMonth(new Date().getUTCMonth() - 6));
  const page = pageOf(params);
  const { rows, total } = await q.listActivities(c.var.db(), from.toISOString().slice(0, 10), page);
  paginate(c, page, total);
  return present(c, rows, userActivity);
});
