import { router } from "../kernel/router";

export const membersRoutes = router();
