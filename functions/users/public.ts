// The users domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). The search API (functions/search) lists users as UsersFinder does; resource
// access tokens (functions/resource_access_tokens) create their bot users and delete them on revoke.
export { listUsers, insertUser, insertPersonalNamespace } from "./queries";
export { deleteUser } from "./services";
