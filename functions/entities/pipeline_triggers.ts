import * as z from "zod";
import type { CiTrigger, User } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";
import { UserBasic, userBasic } from "./users";

/** A pipeline trigger with its owner (null once the owner is gone). */
export type TriggerRow = CiTrigger & { owner: User | null };

/** Ci::Trigger::TRIGGER_TOKEN_PREFIX */
export const TRIGGER_TOKEN_PREFIX = "glptt-";

/** Ci::Trigger#short_token: the first four characters after the prefix. */
export const shortToken = (token: string) => token.slice(token.startsWith(TRIGGER_TOKEN_PREFIX) ? TRIGGER_TOKEN_PREFIX.length : 0).slice(0, 4);

/**
 * API::Entities::Trigger through Ci::TriggerPresenter: the whole token only for whoever may
 * `admin_trigger` (the trigger's owner, or anyone for a legacy trigger without an owner).
 */
export const Trigger = z
  .object({
    id: z.int(),
    token: z.string(),
    description: z.string().nullable(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    last_used: z.string().nullable(),
    owner: UserBasic.nullable(),
  })
  .meta({ id: "Trigger" });
export function trigger(row: TriggerRow, ctx: PresentContext & { viewerId: number | null }): z.output<typeof Trigger> {
  const full = row.ownerId === null || row.ownerId === ctx.viewerId;
  return {
    id: row.id,
    token: full ? row.token : shortToken(row.token),
    description: row.description,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    last_used: isoTime(row.lastUsed),
    owner: row.owner ? userBasic(row.owner, ctx) : null,
  };
}
