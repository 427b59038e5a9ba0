import { router } from "../../kernel/router";
import { epicRoutes } from "./epics";
import { epicEventRoutes } from "./events";
import { epicIssueRoutes } from "./issues";
import { epicLinkRoutes } from "./links";

/** Group epics (ee/lib/api/epics.rb), their child epics (epic_links.rb), their issues (epic_issues.rb) and resource events. */
export const epicsRoutes = router();
epicsRoutes.route("/", epicEventRoutes);
epicsRoutes.route("/", epicLinkRoutes);
epicsRoutes.route("/", epicIssueRoutes);
epicsRoutes.route("/", epicRoutes);
