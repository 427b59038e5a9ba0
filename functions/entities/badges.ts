import type { Badge } from "../../db/schema";
import type { PresentContext } from "../kernel/present";
import { renderUrl, type PlaceholderSource } from "../badges/rules";

type BadgeContext = PresentContext & { placeholders: PlaceholderSource | null };

/** API::Entities::BasicBadgeDetails: the URLs as given and as rendered for the project. */
export function basicBadgeDetails(badge: Pick<Badge, "name" | "linkUrl" | "imageUrl">, ctx: BadgeContext) {
  return {
    name: badge.name,
    link_url: badge.linkUrl,
    image_url: badge.imageUrl,
    rendered_link_url: renderUrl(badge.linkUrl, ctx.placeholders),
    rendered_image_url: renderUrl(badge.imageUrl, ctx.placeholders),
  };
}

/** API::Entities::Badge */
export function badge(row: Badge, ctx: BadgeContext) {
  return { ...basicBadgeDetails(row, ctx), id: row.id, kind: row.type === "ProjectBadge" ? "project" : "group" };
}
