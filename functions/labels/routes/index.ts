import { router } from "../../kernel/router";
import { groupLabelRoutes } from "./group";
import { labelSubscriptionRoutes } from "../subscriptions";
import { projectLabelRoutes } from "./project";

/** Project labels (lib/api/labels.rb), group labels (lib/api/group_labels.rb) and their subscriptions (lib/api/subscriptions.rb). */
export const labelsRoutes = router();
labelsRoutes.route("/", labelSubscriptionRoutes);
labelsRoutes.route("/", projectLabelRoutes);
labelsRoutes.route("/", groupLabelRoutes);
