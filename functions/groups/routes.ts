import { router } from "../kernel/router";

export const groupsRoutes = router();
