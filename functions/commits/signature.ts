// Which signature a commit carries (Gitaly's `FindCommit` signature type, lib/gitlab/git/commit.rb
// `signature_type`): the `gpgsig` header's armor names PGP, X.509 (`SIGNED MESSAGE`) or SSH. For PGP, the
// issuer's key id is read from the OpenPGP signature packet (RFC 4880 §5.2.3: subpacket 16, issuer; 33,
// issuer fingerprint), which is what GitLab matches against users' GPG keys.
import { fromBase64 } from "../shared/git/pure/bytes";

export type SignatureType = "PGP" | "X509" | "SSH";
export type CommitSignatureInfo = { type: SignatureType; keyid: string | null };

/** The signature of a commit from its extra headers; null for an unsigned commit. */
export function commitSignature(extraHeaders: string[]): CommitSignatureInfo | null {
  const header = extraHeaders.find((h) => h.startsWith("gpgsig ") || h.startsWith("gpgsig-sha256 "));
  if (!header) return null;
  // Continuation lines carry one leading space.
  const text = header.slice(header.indexOf(" ") + 1).split("\n").map((line, i) => (i === 0 ? line : line.slice(1))).join("\n");
  if (text.startsWith("-----BEGIN PGP SIGNATURE-----")) return { type: "PGP", keyid: pgpIssuer(text) };
  if (text.startsWith("-----BEGIN SIGNED MESSAGE-----")) return { type: "X509", keyid: null };
  if (text.startsWith("-----BEGIN SSH SIGNATURE-----")) return { type: "SSH", keyid: null };
  return null;
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("").toUpperCase();

/** The issuer key id (16 upper-case hex digits) of an armored OpenPGP signature; null when unreadable. */
export function pgpIssuer(armored: string): string | null {
  const lines = armored.split("\n").map((l) => l.trim());
  const blank = lines.indexOf("");
  if (blank < 0) return null;
  const body = lines.slice(blank + 1).filter((l) => l && !l.startsWith("=") && !l.startsWith("-----")).join("");
  let packet: Uint8Array;
  try {
    packet = fromBase64(body);
  } catch {
    return null;
  }
  return signaturePacketIssuer(packet);
}

function signaturePacketIssuer(data: Uint8Array): string | null {
  if (data.length < 2 || !(data[0] & 0x80)) return null;
  let at = 1;
  let tag: number;
  if (data[0] & 0x40) {
    // New format: one to five length octets.
    tag = data[0] & 0x3f;
    const first = data[at];
    at += first < 192 ? 1 : first < 224 ? 2 : 5;
  } else {
    tag = (data[0] >> 2) & 0x0f;
    const lengthType = data[0] & 3;
    at += lengthType === 0 ? 1 : lengthType === 1 ? 2 : lengthType === 2 ? 4 : 0;
  }
  if (tag !== 2) return null;
  const version = data[at];
  if (version === 3) return data.length >= at + 15 ? hex(data.subarray(at + 7, at + 15)) : null;
  if (version !== 4 && version !== 5) return null;
  at += 4; // version, signature type, public-key and hash algorithms
  let fingerprintKeyid: string | null = null;
  for (let area = 0; area < 2; area++) {
    if (at + 2 > data.length) return fingerprintKeyid;
    const length = (data[at] << 8) | data[at + 1];
    at += 2;
    const end = Math.min(at + length, data.length);
    while (at < end) {
      let size = data[at];
      if (size < 192) at += 1;
      else if (size < 255) {
        size = ((size - 192) << 8) + data[at + 1] + 192;
        at += 2;
      } else {
        size = ((data[at + 1] << 24) | (data[at + 2] << 16) | (data[at + 3] << 8) | data[at + 4]) >>> 0;
        at += 5;
      }
      const type = data[at] & 0x7f;
      const value = data.subarray(at + 1, at + size);
      if (type === 16 && value.length === 8) return hex(value);
      if (type === 33 && value.length >= 21) fingerprintKeyid = hex(value.subarray(value.length - 8));
      at += size;
    }
    at = end;
  }
  return fingerprintKeyid;
}
