// The personal access tokens domain's public face: the one file another domain may import from it (the
// layering rule, .dependency-cruiser.cjs). The web front's token page (functions/web) lists, creates
// and revokes a user's tokens with the API's queries and service; resource access tokens
// (functions/resource_access_tokens) rotate their bots' tokens with `rotateToken`.
export { createToken, mayRevoke, rotateToken, tokenErrors } from "./services";
export { findToken, listTokens, revokeToken } from "./queries";
