import { requireUser } from "../kernel/auth";
import { router } from "../kernel/router";
import { UserCounts, userCounts } from "../entities/user_counts";
import * as q from "./queries";

/** The signed-in user's counts (lib/api/user_counts.rb). */
export const userCountsRoutes = router({ readUserScope: true });

/** GET /user_counts: `unauthorized!` without a user. */
userCountsRoutes.get("/user_counts", { response: UserCounts }, async (c) => {
  const actor = requireUser(c);
  return c.json(userCounts(await q.userCounts(c.var.db(), actor.user.id)));
});
