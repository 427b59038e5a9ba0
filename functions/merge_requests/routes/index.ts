import { mounted } from "../../kernel/router";
import { diffRoutes } from "./diffs";
import { peopleRoutes } from "./people";
import { rebaseRoutes } from "./rebase";
import { issueRoutes } from "./issue";
import { listRoutes } from "./list";
import { mergeRequestRoutes } from "./merge_request";
import { mergeRoutes } from "./merge";
import { pipelinesRoutes } from "./pipelines";

/** Merge requests (lib/api/merge_requests.rb) and the issue endpoints that list them. */
export const mergeRequestsRoutes = mounted(listRoutes, mergeRequestRoutes, issueRoutes, mergeRoutes, diffRoutes, peopleRoutes, rebaseRoutes, pipelinesRoutes);
