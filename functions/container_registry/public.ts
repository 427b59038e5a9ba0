// What other domains use of the container registry: the cleanup policy `PUT /projects/:id` sets.
export { checkExpirationPolicy, writeExpirationPolicy, type PolicyAttributes } from "./cleanup";
