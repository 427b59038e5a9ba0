import { router } from "../../kernel/router";
import { groupMilestoneRoutes } from "./group";
import { projectMilestoneRoutes } from "./project";

/** Project milestones (lib/api/milestones.rb) and group milestones (lib/api/group_milestones.rb). */
export const milestonesRoutes = router();
milestonesRoutes.route("/", projectMilestoneRoutes);
milestonesRoutes.route("/", groupMilestoneRoutes);
