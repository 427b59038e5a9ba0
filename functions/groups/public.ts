// The groups domain's public face: a group import creates its groups as POST /groups does
// (Groups::CreateService, which GitLab's group import calls for the group and each subgroup).
export { createGroup } from "./services";
export { creationFacts } from "./queries";
export { canCreateGroup, canCreateSubgroup, hasErrors, rubyHash, validateGroup } from "./rules";
