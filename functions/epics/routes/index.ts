import { router } from "../../kernel/router";
import { epicRoutes } from "./epics";
import { epicIssueRoutes } from "./issues";
import { epicLinkRoutes } from "./links";

/** Group epics (ee/lib/api/epics.rb), their child epics (epic_links.rb) and their issues (epic_issues.rb). */
export const epicsRoutes = router();
epicsRoutes.route("/", epicLinkRoutes);
epicsRoutes.route("/", epicIssueRoutes);
epicsRoutes.route("/", epicRoutes);
