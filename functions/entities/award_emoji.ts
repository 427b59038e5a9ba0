import * as z from "zod";
import type { AwardEmoji as AwardEmojiModel } from "../../db/schema";
import type { NoteUser } from "./notes";
import { isoTime, type PresentContext } from "../kernel/present";
import { UserBasic, userBasic } from "./users";

export type AwardRow = AwardEmojiModel & { user: NoteUser };

/** API::Entities::AwardEmoji (lib/api/entities/award_emoji.rb). */
export const AwardEmoji = z
  .object({
    id: z.int(),
    name: z.string(),
    user: UserBasic,
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    awardable_id: z.int(),
    awardable_type: z.string(),
  })
  .meta({ id: "AwardEmoji" });
export function awardEmoji(row: AwardRow, ctx: PresentContext): z.output<typeof AwardEmoji> {
  return {
    id: row.id,
    name: row.name,
    user: userBasic(row.user, ctx),
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    awardable_id: row.awardableId,
    awardable_type: row.awardableType,
  };
}
