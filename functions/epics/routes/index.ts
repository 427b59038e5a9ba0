import { router } from "../../kernel/router";
import { epicRoutes } from "./epics";
import { epicLinkRoutes } from "./links";

/** Group epics (ee/lib/api/epics.rb) and their child epics (ee/lib/api/epic_links.rb). */
export const epicsRoutes = router();
epicsRoutes.route("/", epicLinkRoutes);
epicsRoutes.route("/", epicRoutes);
