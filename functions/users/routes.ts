import { router } from "../kernel/router";

export const usersRoutes = router({ readUserScope: true });
