// The groups domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). A group import creates its groups as POST /groups does (Groups::CreateService,
// which GitLab's group import calls for the group and each subgroup); the web front (functions/web) lists
// a group's subgroups as GET /groups/:id/subgroups does.
export { createGroup } from "./services";
export { creationFacts, listGroups } from "./queries";
export { canCreateGroup, canCreateSubgroup, hasErrors, rubyHash, validateGroup } from "./rules";
