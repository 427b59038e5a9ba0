import type { GpgKey } from "../../db/schema";
import type { Executor } from "../kernel/db";
import * as q from "./queries";

const KEY_PREFIX = "-----BEGIN PGP PUBLIC KEY BLOCK-----";
const KEY_SUFFIX = "-----END PGP PUBLIC KEY BLOCK-----";
/** GpgKey's `format:` (one block, nothing before or after; Ruby's `\Z` allows a final newline). */
const KEY_FORMAT = new RegExp(`^${KEY_PREFIX}(?:(?!${KEY_PREFIX})(?!${KEY_SUFFIX})[\\s\\S])+${KEY_SUFFIX}\\n?$`);
const FORMAT_MESSAGE = `is invalid. A valid public GPG key begins with '${KEY_PREFIX}' and ends with '${KEY_SUFFIX}'`;

/**
 * GpgKeys::CreateService with GpgKey's validations, in GitLab's order: `key` (presence, uniqueness,
 * format); then, only when `key` has no error, `fingerprint` and `primary_keyid` (presence,
 * uniqueness), both extracted from the key before validation.
 */
export async function createGpgKey(db: Executor, userId: number, raw: string): Promise<{ key: GpgKey } | { errors: Record<string, string[]> }> {
  // `GpgKey#key=`: stored stripped.
  const key = raw.trim();
  // The key reader is imported on first use: only this request evaluates it.
  const primary = KEY_FORMAT.test(key) ? await (await import("./openpgp")).primaryKeyOf(key) : null;
  const taken = key === "" ? { key: false, fingerprint: false, keyid: false } : await q.takenBy(db, key, primary?.fingerprint ?? null, primary?.keyid ?? null);
  const keyErrors = [
    ...(key === "" ? ["can't be blank"] : []),
    ...(taken.key ? ["has already been taken"] : []),
    ...(KEY_FORMAT.test(key) ? [] : [FORMAT_MESSAGE]),
  ];
  if (keyErrors.length > 0) return { errors: { key: keyErrors } };
  const errors: Record<string, string[]> = {};
  if (!primary) {
    errors.fingerprint = ["can't be blank"];
    errors.primary_keyid = ["can't be blank"];
    return { errors };
  }
  if (taken.fingerprint) errors.fingerprint = ["has already been taken"];
  if (taken.keyid) errors.primary_keyid = ["has already been taken"];
  if (Object.keys(errors).length > 0) return { errors };
  const row = await q.insertKey(db, { userId, key, fingerprint: primary.fingerprint, primaryKeyid: primary.keyid });
  if (!row) return { errors: { fingerprint: ["has already been taken"], primary_keyid: ["has already been taken"] } };
  return { key: row };
}
