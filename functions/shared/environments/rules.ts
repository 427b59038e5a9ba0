/**
 * Environment names, slugs and tiers (app/models/environment.rb, lib/gitlab/slug/environment.rb,
 * lib/gitlab/regex.rb `environment_name_regex`).
 */
export const NAME = /^[a-zA-Z0-9_/${}. \-]+$/;
export const NAME_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";
export const TIERS = ["production", "staging", "testing", "development", "other"] as const;

export function nameErrors(name: string): string[] {
  const errors: string[] = [];
  if (name.trim() === "") errors.push("can't be blank");
  if ([...name].length > 255) errors.push("is too long (maximum is 255 characters)");
  if (!NAME.test(name) || name.startsWith("/") || name.endsWith("/")) errors.push(NAME_MESSAGE);
  return errors;
}

export function externalUrlErrors(url: string | null): string[] {
  if (url === null || url === "") return [];
  const errors: string[] = [];
  if ([...url].length > 255) errors.push("is too long (maximum is 255 characters)");
  let ok = false;
  try {
    ok = ["http:", "https:"].includes(new URL(url).protocol);
  } catch {
    ok = false;
  }
  if (!ok) errors.push("is blocked: Only allowed schemes are http, https");
  return errors;
}

/** `Environment#guess_tier` from the name. */
export function guessTier(name: string): (typeof TIERS)[number] {
  if (/(dev|review|trunk)/i.test(name)) return "development";
  if (/(test|tst|int|ac(ce|)pt|qa|qc|control|quality)/i.test(name)) return "testing";
  if (/(st(a|)g|mod(e|)l|pre|demo|non)/i.test(name)) return "staging";
  if (/(pr(o|)d|live)/i.test(name)) return "production";
  return "other";
}

/** Gitlab::Slug::Environment: DNS-safe, at most 24 characters, with a digest suffix when altered. */
export async function environmentSlug(name: string): Promise<string> {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, "-");
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`;
  slug = slug.replace(/-+/g, "-");
  if (slug.length > 24 || slug !== name) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(name));
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    return `${slug.slice(0, 17)}-${BigInt(`0x${hex}`).toString(36).slice(-6)}`;
  }
  return slug.replace(/-$/, "");
}

/** Environment#set_environment_type: the folder of a name with `/`, else null. */
export function environmentType(name: string): string | null {
  const parts = name.split("/");
  return parts.length > 1 ? parts[0] : null;
}
