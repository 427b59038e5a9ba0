import { router } from "../kernel/router";

export const projectsRoutes = router();
