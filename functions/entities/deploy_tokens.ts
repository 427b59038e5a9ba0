import * as z from "zod";
import type { DeployToken as DeployTokenModel } from "../../db/schema";
import { isoTime } from "../kernel/present";

/** API::Entities::DeployToken (lib/api/entities/deploy_token.rb, GitLab 15.4). */
export const DeployToken = z
  .object({
    id: z.int(),
    name: z.string(),
    username: z.string(),
    expires_at: z.string().nullable(),
    scopes: z.array(z.string()),
    revoked: z.boolean(),
    expired: z.boolean(),
  })
  .meta({ id: "DeployToken" });
export function deployToken(row: DeployTokenModel, ctx: { now: Date }): z.output<typeof DeployToken> {
  return {
    id: row.id,
    name: row.name,
    username: row.username,
    expires_at: isoTime(row.expiresAt),
    scopes: row.scopes,
    revoked: row.revoked,
    expired: row.expiresAt !== null && row.expiresAt <= ctx.now,
  };
}

/** API::Entities::DeployTokenWithToken: the plaintext, shown once at creation. */
export const DeployTokenWithToken = DeployToken.extend({ token: z.string() }).meta({ id: "DeployTokenWithToken" });
export function deployTokenWithToken(row: DeployTokenModel & { token: string }, ctx: { now: Date }): z.output<typeof DeployTokenWithToken> {
  return { ...deployToken(row, ctx), token: row.token };
}
