import type { AwardEmoji } from "../../db/schema";
import type { NoteUser } from "./notes";
import { isoTime, type PresentContext } from "../kernel/present";
import { userBasic } from "./users";

export type AwardRow = AwardEmoji & { user: NoteUser };

/** API::Entities::AwardEmoji (lib/api/entities/award_emoji.rb). */
export function awardEmoji(row: AwardRow, ctx: PresentContext) {
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
