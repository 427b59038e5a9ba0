import * as z from "zod";
import type { Badge } from "../../db/schema";
import type { PresentContext } from "../kernel/present";

/** What the placeholders of a badge URL read (a group badge shown without a project has none). */
export type PlaceholderSource = { fullPath: string; id: number; defaultBranch: string | null; commitSha: string | null };

/** The placeholders a badge URL may hold (Badge::PLACEHOLDERS). */
export const PLACEHOLDERS = /%\{(project_path|project_id|default_branch|commit_sha)\}/g;

/** Gitlab::StringPlaceholderReplacer: each placeholder replaced from the project; an unknown value becomes empty. */
export function renderUrl(url: string, project: PlaceholderSource | null): string {
  if (!project) return url;
  return url.replace(PLACEHOLDERS, (_, name: string) => {
    const value = { project_path: project.fullPath, project_id: project.id, default_branch: project.defaultBranch, commit_sha: project.commitSha }[name];
    return value === null || value === undefined ? "" : String(value);
  });
}

type BadgeContext = PresentContext & { placeholders: PlaceholderSource | null };

/** API::Entities::BasicBadgeDetails: the URLs as given and as rendered for the project. */
export const BasicBadgeDetails = z
  .object({ name: z.string().nullable(), link_url: z.string(), image_url: z.string(), rendered_link_url: z.string(), rendered_image_url: z.string() })
  .meta({ id: "BasicBadgeDetails" });
export function basicBadgeDetails(badge: Pick<Badge, "name" | "linkUrl" | "imageUrl">, ctx: BadgeContext): z.output<typeof BasicBadgeDetails> {
  return {
    name: badge.name,
    link_url: badge.linkUrl,
    image_url: badge.imageUrl,
    rendered_link_url: renderUrl(badge.linkUrl, ctx.placeholders),
    rendered_image_url: renderUrl(badge.imageUrl, ctx.placeholders),
  };
}

/** API::Entities::Badge */
export const BadgeEntity = BasicBadgeDetails.extend({ id: z.int(), kind: z.enum(["project", "group"]) }).meta({ id: "Badge" });
export function badge(row: Badge, ctx: BadgeContext): z.output<typeof BadgeEntity> {
  return { ...basicBadgeDetails(row, ctx), id: row.id, kind: row.type === "ProjectBadge" ? "project" : "group" };
}
