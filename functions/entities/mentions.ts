/**
 * `@mentions` in issuable and note texts (User.reference_pattern): pure text functions, with the presenters
 * because an issue's `subscribed` counts the caller's mention; writers use them to notify and subscribe.
 */

const MENTION = /(?<![\w@.+-])@([a-zA-Z0-9_][a-zA-Z0-9_.-]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])/g;
const LEADING_MENTIONS = /^\s*(?:@[a-zA-Z0-9_][a-zA-Z0-9_.-]*\s*,?\s*)+/;

/** Usernames `@mentioned` in a text (User.reference_pattern), lower-cased and unique, code blocks ignored. */
export function mentionedUsernames(text: string | null | undefined): string[] {
  if (!text) return [];
  const prose = text.replace(/```[\s\S]*?```/g, " ").replace(/`[^`]*`/g, " ");
  return [...new Set([...prose.matchAll(MENTION)].map((m) => m[1].toLowerCase()))];
}

/** Usernames addressed at the very start of a text (`@alice @bob please look`): `directly_addressed`. */
export function directlyAddressedUsernames(text: string | null | undefined): string[] {
  if (!text) return [];
  const lead = LEADING_MENTIONS.exec(text);
  return lead ? mentionedUsernames(lead[0]) : [];
}
