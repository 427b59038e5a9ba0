// The merge requests domain's public face: the one file another domain may import from it (the layering
// rule, .dependency-cruiser.cjs). The search API (functions/search) finds merge requests with the lists'
// own conditions and read rules.
export { searchMergeRequests } from "./queries";
// The web front (functions/web/merge_requests.tsx) reads, closes, reopens and merges merge requests
// with the API's own queries and services, so a form POST does what the endpoint does.
export { listMergeRequests, mergeRequestByIid, mergeRequestById } from "./queries";
export { LIST_RULES as MR_LIST_RULES, ListProjectMergeRequests } from "./params";
export { mergeMergeRequest } from "./merge_service";
export { updateMergeRequest } from "./services";
export { afterMergeHooks, refreshMergeRequest } from "./merging";
export { headPipelineRow } from "./pipeline_queries";
export { latestVersion } from "./version_queries";
export { limitDiffs, versionCommits, versionDiffs } from "./versions";
// A deployment's merge requests (functions/deployments) are listed as GET /projects/:id/merge_requests
// lists them (MergeRequestsFinder with `deployment_id`), restricted to the iids the deployment shipped.
export { respond as respondMergeRequestList } from "./routes/list";
