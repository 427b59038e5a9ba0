// The SAML group links' public face: the users API (a user created or changed with a SAML identity) and
// the custom attributes API (a user's `saml_groups`) run the user's SAML group sync.
export { syncSamlUser } from "./services";
export { SAML_GROUPS_ATTRIBUTE } from "./queries";
