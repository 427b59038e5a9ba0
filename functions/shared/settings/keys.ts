import type { Settings, SettingName } from "../../entities/settings_catalog";

/**
 * The SSH key rules the application settings set: which key types are allowed, and from which size.
 */

/** Gitlab::SSHPublicKey.supported_sizes. */
export const KEY_SIZES = {
  rsa: [1024, 2048, 3072, 4096],
  dsa: [1024, 2048, 3072],
  ecdsa: [256, 384, 521],
  ed25519: [256],
  ecdsa_sk: [256],
  ed25519_sk: [256],
} as const;
export type KeyKind = keyof typeof KEY_SIZES;

/** `key_restriction_for(type)`: the minimum size of a key type, 0 for any, -1 when forbidden. */
export function keyRestriction(settings: Settings, kind: KeyKind): number {
  return Number(settings[`${kind}_key_restriction` as SettingName] ?? 0);
}

/** `allowed_key_types`: the types that are not forbidden, in GitLab's order. */
export function allowedKeyTypes(settings: Settings): KeyKind[] {
  return (Object.keys(KEY_SIZES) as KeyKind[]).filter((kind) => keyRestriction(settings, kind) !== -1);
}

/** `to_sentence(last_word_connector: ', or ', two_words_connector: ' or ')`. */
export function exclusiveSentence(words: (string | number)[]): string {
  const list = words.map(String);
  if (list.length <= 1) return list.join("");
  if (list.length === 2) return `${list[0]} or ${list[1]}`;
  return `${list.slice(0, -1).join(", ")}, or ${list[list.length - 1]}`;
}
