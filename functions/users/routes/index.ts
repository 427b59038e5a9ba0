import { router } from "../../kernel/router";
import { adminRoutes } from "./admin";
import { readRoutes } from "./read";
import { stateRoutes } from "./states";

/** The users resource (lib/api/users.rb): `read_user` tokens may use its GET endpoints. */
export const usersRoutes = router({ readUserScope: true });
usersRoutes.route("/", readRoutes);
usersRoutes.route("/", adminRoutes);
usersRoutes.route("/", stateRoutes);
