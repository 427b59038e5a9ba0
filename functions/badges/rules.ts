import { PLACEHOLDERS } from "../entities/badges";

/**
 * Badge URLs (app/models/badge.rb): http(s) URLs whose `%{placeholder}`s the presenter replaces from the
 * project (`renderUrl` in entities/badges).
 */
/** `validates :link_url, :image_url, url: { protocols: %w(http https) }` (AddressableUrlValidator). */
export function urlErrors(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url.replace(PLACEHOLDERS, "x"));
  } catch {
    return ["must be a valid URL"];
  }
  if (!["http:", "https:"].includes(parsed.protocol)) return ["is blocked: Only allowed schemes are http, https"];
  return [];
}

export function badgeErrors(v: { linkUrl?: string; imageUrl?: string }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (v.linkUrl !== undefined && urlErrors(v.linkUrl).length) errors.link_url = urlErrors(v.linkUrl);
  if (v.imageUrl !== undefined && urlErrors(v.imageUrl).length) errors.image_url = urlErrors(v.imageUrl);
  return errors;
}
