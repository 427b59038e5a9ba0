import type { User } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";
import { userBasic } from "../users/entities";

export type StarrerRow = { starredSince: Date | string; user: User };

/** API::Entities::UserStarsProject (lib/api/entities/user_stars_project.rb). */
export function userStarsProject(row: StarrerRow, ctx: PresentContext) {
  return {
    starred_since: isoTime(row.starredSince),
    user: userBasic(row.user, ctx),
  };
}
