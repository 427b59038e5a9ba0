// The issues domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). Incidents are issues: alert management opens and closes an incident with
// the issues domain's one writer of issue rows.
export { insertIssue, noEffects, updateIssue } from "./queries";
// The search API (functions/search) finds issues with the lists' own conditions and read rules.
export { searchIssueIds } from "./queries/list";
// The web front (functions/web/issues.tsx) lists, opens, closes and reopens issues with the API's own
// list query, parameter schemas and services, so a form POST does what the endpoint does.
export { listIssueIds } from "./queries/list";
export { CREATE_RULES, CreateIssue, LIST_RULES, ListIssues, UPDATE_RULES, UpdateIssue } from "./params";
export { createIssue as createIssueService, updateIssue as updateIssueService } from "./services";
export { clientIp } from "./rules";
