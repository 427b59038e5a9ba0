import { router } from "../../kernel/router";
import { groupRoutes } from "./group";
import { shareRoutes } from "./share";
import { transferRoutes } from "./transfer";

/** The groups resource (lib/api/groups.rb): lists and one group, sharing with groups, transfer. */
export const groupsRoutes = router();
groupsRoutes.route("/", groupRoutes);
groupsRoutes.route("/", shareRoutes);
groupsRoutes.route("/", transferRoutes);
