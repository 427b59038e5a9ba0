// The groups domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). The web front (functions/web) lists a group's subgroups as GET /groups/:id/subgroups does.
export { listGroups } from "./queries";
