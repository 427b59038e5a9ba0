// Password digests live in shared/passwords.ts: approving a merge request checks them too
// (`require_password_to_approve`), and domains import only shared code and other domains' entities.
export { hashPassword, randomPassword, verifyPassword } from "../shared/passwords";
