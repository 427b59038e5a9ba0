import sshpk from "sshpk";
import type { Settings } from "../entities/settings_catalog";
import { allowedKeyTypes, exclusiveSentence, keyRestriction, type KeyKind } from "../shared/settings/keys";

/** Gitlab::SSHPublicKey.supported_algorithms: what the `key` format validation accepts as a prefix. */
const ALGORITHMS = [
  "ssh-rsa",
  "ssh-dss",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "ssh-ed25519",
  "sk-ecdsa-sha2-nistp256@openssh.com",
  "sk-ssh-ed25519@openssh.com",
];

export type ParsedKey = {
  /** `<algorithm> <base64> [comment]`, one line, single spaces. */
  text: string;
  algorithm: KeyKind;
  bits: number;
  /** MD5, hex pairs joined by colons. */
  fingerprint: string;
  /** SHA256, base64 without padding and without the `SHA256:` prefix (as GitLab stores it). */
  fingerprintSha256: string;
};

/** `Gitlab::SSHPublicKey.sanitize`: trims, and joins a key pasted over several lines. */
export function sanitizeKey(value: string): string {
  return value.trim().replace(/\s+/g, " ");
}

/** Parses an OpenSSH public key line with sshpk; null when it is not a valid key (no fingerprint). */
export function parseKey(text: string): ParsedKey | null {
  let key: sshpk.Key;
  try {
    key = sshpk.parseKey(text, "ssh");
  } catch {
    return null;
  }
  const algorithm = kindOf(key.type);
  if (!algorithm) return null;
  return {
    text,
    algorithm,
    bits: key.size,
    fingerprint: key.fingerprint("md5").toString("hex"),
    fingerprintSha256: key.fingerprint("sha256").toString("base64").replace(/^SHA256:/, "").replace(/=+$/, ""),
  };
}

function kindOf(type: string): KeyKind | null {
  if (type === "rsa" || type === "dsa" || type === "ecdsa" || type === "ed25519") return type;
  return null;
}

/** Rails' errors of a new key, in the order GitLab's Key model adds them. */
export type KeyErrors = Record<string, string[]>;

/**
 * The validations of app/models/key.rb: title and key presence and length, the algorithm prefix, the
 * fingerprints (valid key, unique), the instance's key restrictions, and expiry (on create).
 */
export function validateKey(
  input: { title: string; key: string; expiresAt: Date | null },
  parsed: ParsedKey | null,
  taken: boolean,
  settings: Settings,
  now: Date,
): KeyErrors {
  const errors: KeyErrors = {};
  const add = (attr: string, msg: string) => (errors[attr] ??= []).push(msg);
  if (input.title.trim() === "") add("title", "can't be blank");
  else if (input.title.length > 255) add("title", "is too long (maximum is 255 characters)");
  if (input.key === "") add("key", "can't be blank");
  else if (input.key.length > 5000) add("key", "is too long (maximum is 5000 characters)");
  if (input.key !== "" && !ALGORITHMS.some((a) => input.key.startsWith(a))) add("key", "is invalid");
  if (!parsed) {
    add("fingerprint", "cannot be generated");
    add("fingerprint_sha256", "cannot be generated");
  } else if (taken) {
    add("fingerprint", "has already been taken");
    add("fingerprint_sha256", "has already been taken");
  }
  if (parsed) {
    const restriction = keyRestriction(settings, parsed.algorithm);
    if (restriction === -1) add("key", forbiddenTypeMessage(settings));
    else if (parsed.bits < restriction) add("key", `must be at least ${restriction} bits`);
  }
  if (input.expiresAt && input.expiresAt.getTime() < now.getTime()) add("key", "has expired");
  return errors;
}

function forbiddenTypeMessage(settings: Settings): string {
  const types = allowedKeyTypes(settings).map((t) => t.toUpperCase());
  return `type is forbidden. Must be ${exclusiveSentence(types)}`;
}
