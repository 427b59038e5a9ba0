import { router } from "../../kernel/router";
import { groupLabelRoutes } from "./group";
import { projectLabelRoutes } from "./project";

/** Project labels (lib/api/labels.rb) and group labels (lib/api/group_labels.rb). */
export const labelsRoutes = router();
labelsRoutes.route("/", projectLabelRoutes);
labelsRoutes.route("/", groupLabelRoutes);
