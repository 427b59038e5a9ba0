// The personal access tokens domain's public face: the one file another domain may import from it (the
// layering rule, .dependency-cruiser.cjs). The web front's token page (functions/web) lists, creates
// and revokes a user's tokens with the API's queries and service.
export { createToken, mayRevoke, tokenErrors } from "./services";
export { findToken, listTokens, revokeToken } from "./queries";
