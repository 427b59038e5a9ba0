// The issues domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). Incidents are issues: alert management opens and closes an incident with
// the issues domain's one writer of issue rows.
export { insertIssue, noEffects, updateIssue } from "./queries";
// The search API (functions/search) finds issues with the lists' own conditions and read rules.
export { searchIssueIds } from "./queries/list";
