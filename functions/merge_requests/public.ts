// The merge requests domain's public face: the one file another domain may import from it (the layering
// rule, .dependency-cruiser.cjs). The search API (functions/search) finds merge requests with the lists'
// own conditions and read rules.
export { searchMergeRequests } from "./queries";
