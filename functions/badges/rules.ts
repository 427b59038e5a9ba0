/**
 * Badge URLs (app/models/badge.rb): http(s) URLs whose `%{placeholder}`s are replaced from the project
 * (Gitlab::StringPlaceholderReplacer; an unknown value becomes empty).
 */
export type PlaceholderSource = { fullPath: string; id: number; defaultBranch: string | null; commitSha: string | null };

const PLACEHOLDERS = /%\{(project_path|project_id|default_branch|commit_sha)\}/g;

export function renderUrl(url: string, project: PlaceholderSource | null): string {
  if (!project) return url;
  return url.replace(PLACEHOLDERS, (_, name: string) => {
    const value = { project_path: project.fullPath, project_id: project.id, default_branch: project.defaultBranch, commit_sha: project.commitSha }[name];
    return value === null || value === undefined ? "" : String(value);
  });
}

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
