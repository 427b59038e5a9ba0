import { router } from "../../kernel/router";
import { diffRoutes } from "./diffs";
import { peopleRoutes } from "./people";
import { rebaseRoutes } from "./rebase";
import { issueRoutes } from "./issue";
import { listRoutes } from "./list";
import { mergeRequestRoutes } from "./merge_request";
import { mergeRoutes } from "./merge";
import { pipelinesRoutes } from "./pipelines";

/** Merge requests (lib/api/merge_requests.rb) and the issue endpoints that list them. */
export const mergeRequestsRoutes = router();
mergeRequestsRoutes.route("/", listRoutes);
mergeRequestsRoutes.route("/", mergeRequestRoutes);
mergeRequestsRoutes.route("/", issueRoutes);
mergeRequestsRoutes.route("/", mergeRoutes);
mergeRequestsRoutes.route("/", diffRoutes);
mergeRequestsRoutes.route("/", peopleRoutes);
mergeRequestsRoutes.route("/", rebaseRoutes);
mergeRequestsRoutes.route("/", pipelinesRoutes);
