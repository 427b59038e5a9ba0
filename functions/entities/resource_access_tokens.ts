import * as z from "zod";
import type { PersonalAccessToken } from "../../db/schema";
import type { PresentContext } from "../kernel/present";
import { personalAccessToken, PersonalAccessTokenEntity } from "./personal_access_tokens";

export type ResourceAccessTokenRow = PersonalAccessToken & { accessLevel: number };

/** API::Entities::ResourceAccessToken (lib/api/entities/resource_access_token.rb): the bot's access level in the resource. */
export const ResourceAccessToken = PersonalAccessTokenEntity.extend({ access_level: z.int() }).meta({ id: "ResourceAccessToken" });
export function resourceAccessToken(token: ResourceAccessTokenRow, ctx: PresentContext): z.output<typeof ResourceAccessToken> {
  return { ...personalAccessToken(token, ctx), access_level: token.accessLevel };
}

/** API::Entities::ResourceAccessTokenWithToken: the token value, shown once at creation. */
export const ResourceAccessTokenWithToken = ResourceAccessToken.extend({ token: z.string() }).meta({ id: "ResourceAccessTokenWithToken" });
export function resourceAccessTokenWithToken(token: ResourceAccessTokenRow & { token: string }, ctx: PresentContext): z.output<typeof ResourceAccessTokenWithToken> {
  return { ...resourceAccessToken(token, ctx), token: token.token };
}
