import type { Key } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { loadSettings } from "../shared/settings/load";
import * as q from "./queries";
import { parseKey, sanitizeKey, validateKey, type KeyErrors, type ParsedKey } from "./ssh";

export type KeyInput = { title: string; key: string; expiresAt: Date | null; usageType?: string };

/** Sanitises, parses and validates a key as GitLab's Key model does, without writing. */
export async function checkKey(db: Executor, input: KeyInput): Promise<{ parsed: ParsedKey | null; errors: KeyErrors; text: string }> {
  const text = sanitizeKey(input.key);
  const parsed = parseKey(text);
  const settings = await loadSettings(db);
  const taken = parsed ? !!(await q.fingerprintTaken(db, parsed.fingerprintSha256)) : false;
  const errors = validateKey({ title: input.title, key: text, expiresAt: input.expiresAt }, parsed, taken, settings, new Date());
  return { parsed, errors, text };
}

const TAKEN: KeyErrors = { fingerprint: ["has already been taken"], fingerprint_sha256: ["has already been taken"] };

/** `Keys::CreateService` (and a new DeployKey): the key row, or the validation errors. */
export async function createKey(
  db: Executor,
  input: KeyInput & { userId: number; type: "DeployKey" | null },
): Promise<{ key: Key } | { errors: KeyErrors }> {
  const { parsed, errors, text } = await checkKey(db, input);
  if (!parsed || Object.keys(errors).length > 0) return { errors };
  const key = await q.insertKey(db, {
    userId: input.userId,
    type: input.type,
    title: input.title,
    key: text,
    algorithm: parsed.algorithm,
    bits: parsed.bits,
    fingerprint: parsed.fingerprint,
    fingerprintSha256: parsed.fingerprintSha256,
    usageType: input.usageType ?? "auth_and_signing",
    expiresAt: input.expiresAt,
  });
  // A concurrent request stored the same key between the check and the insert.
  return key ? { key } : { errors: TAKEN };
}
