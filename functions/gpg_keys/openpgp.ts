import { readKey } from "openpgp";

/**
 * What GitLab reads from a key with GPGME (lib/gitlab/gpg.rb, `fingerprints_from_key`,
 * `primary_keyids_from_key`): the primary key's fingerprint and 16-hex-digit key id, upper-case as
 * GpgKey's readers return them. OpenPGP.js parses the armored block (packets, checksums); null when
 * it is not one public key it can read, which GitLab also reports as missing fingerprint and key id.
 */
export async function primaryKeyOf(armored: string): Promise<{ fingerprint: string; keyid: string } | null> {
  try {
    const key = await readKey({ armoredKey: armored });
    if (key.isPrivate()) return null;
    return { fingerprint: key.getFingerprint().toUpperCase(), keyid: key.getKeyID().toHex().toUpperCase() };
  } catch {
    return null;
  }
}
