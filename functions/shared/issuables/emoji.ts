import { gemoji } from "gemoji";

/**
 * Emoji names for award emoji. GitLab 15.4 validates a name with TanukiEmoji (the `gitlab/emoji_name`
 * validator of app/models/award_emoji.rb): gemoji's alpha codes plus the Emojione names of GitLab's
 * picker. The gemoji package (GitHub's list, maintained) supplies the first; the picker names gemoji
 * lacks are listed below. AwardEmojis::BaseService#normalize_name turns aliases into the name GitLab
 * stores (`+1` → `thumbsup`): the ALIASES table.
 *
 * Differs from GitLab: skin-tone variants (`thumbsup_tone1`) and group custom emoji are not accepted.
 */
const GITLAB_PICKER_NAMES = `
person_frowning person_with_pouting_face swimsuit tanuki slight_smile slight_frown upside_down money_mouth
nerd rolling_eyes hugging zipper_mouth head_bandage thermometer_face fingers_crossed call_me face_palm clown
cowboy left_facing_fist right_facing_fist
`;

/** Aliases (gemoji's second names) and the canonical name they award. */
const ALIASES: Record<string, string> = {
  "+1": "thumbsup",
  "-1": "thumbsdown",
  satisfied: "laughing",
  hooray: "tada",
  shit: "hankey",
  poop: "hankey",
  punch: "facepunch",
  raised_hand: "hand",
  running: "runner",
  honeybee: "bee",
  knife: "hocho",
  boat: "sailboat",
  red_car: "car",
  telephone: "phone",
  flipper: "dolphin",
  lantern: "izakaya_lantern",
  "e-mail": "email",
  pencil: "memo",
};

const CANONICAL = new Set([...gemoji.flatMap((entry) => entry.names), ...GITLAB_PICKER_NAMES.split(/\s+/).filter(Boolean)]);

/**
 * The canonical emoji name for `name` (aliases resolved), or null when it names no known emoji
 * (`Name is not a valid emoji name`).
 */
export function emojiName(name: string): string | null {
  const alias = Object.prototype.hasOwnProperty.call(ALIASES, name) ? ALIASES[name] : undefined;
  if (alias && CANONICAL.has(alias)) return alias;
  return CANONICAL.has(name) ? name : null;
}

/** Awards that count as votes on issues and merge requests (AwardEmoji::UPVOTE_NAME / DOWNVOTE_NAME). */
export const UPVOTE_NAME = "thumbsup";
export const DOWNVOTE_NAME = "thumbsdown";

/**
 * A note body made only of one emoji (`:thumbsup:`, optionally followed by one whitespace), as
 * Note#contains_emoji_only? matched it: the emoji's canonical name, else null.
 */
export function emojiOnlyName(body: string): string | null {
  const match = /^:([a-z0-9_+\-]+):\s?$/.exec(body);
  return match ? emojiName(match[1]) : null;
}
