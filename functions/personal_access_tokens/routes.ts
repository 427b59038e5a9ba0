import { router } from "../kernel/router";

export const personalAccessTokensRoutes = router();
