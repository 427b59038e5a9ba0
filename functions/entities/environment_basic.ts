import * as z from "zod";
import type { Environment } from "../../db/schema";
import { isoTime } from "../kernel/present";

/** API::Entities::EnvironmentBasic: its own file, as a deployment embeds it and an environment embeds its last deployment. */
export const EnvironmentBasic = z
  .object({ id: z.int(), name: z.string(), slug: z.string(), external_url: z.string().nullable(), created_at: z.string().nullable(), updated_at: z.string().nullable() })
  .meta({ id: "EnvironmentBasic" });
export function environmentBasic(env: Environment): z.output<typeof EnvironmentBasic> {
  return {
    id: env.id,
    name: env.name,
    slug: env.slug,
    external_url: env.externalUrl,
    created_at: isoTime(env.createdAt),
    updated_at: isoTime(env.updatedAt),
  };
}
