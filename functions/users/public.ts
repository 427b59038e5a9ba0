// The users domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). The search API (functions/search) lists users as UsersFinder does.
export { listUsers } from "./queries";
