import { Buffer } from "node:buffer";
import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto";

/**
 * A user-provided certificate and key (PagesDomain's validations: `validate_certificate`,
 * `validate_matching_key`, `validate_intermediates` not done). Parsed with node:crypto's X509Certificate,
 * which workerd provides under `nodejs_compat`. Errors are GitLab's model messages, per attribute.
 */
export type ParsedCertificate = { subject: string; notBefore: Date; notAfter: Date };

export function parseCertificate(pem: string, key: string | null): { parsed: ParsedCertificate | null; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    return { parsed: null, errors: { certificate: ["must be a valid PEM certificate"] } };
  }
  if (key !== null) {
    try {
      // The key's public half against the certificate's (workerd's `checkPrivateKey` answers false for a matching pair).
      const der = (k: ReturnType<typeof createPublicKey>) => Buffer.from(k.export({ type: "spki", format: "der" }) as Uint8Array).toString("base64");
      if (der(createPublicKey(createPrivateKey(key))) !== der(cert.publicKey)) errors.key = ["doesn't match the certificate"];
    } catch {
      errors.key = ["must be a valid PEM private key"];
    }
  }
  // OpenSSL's one-line subject (`/CN=example.com`), as GitLab's `subject` shows it.
  const subject = "/" + cert.subject.split("\n").filter(Boolean).join("/");
  return { parsed: { subject, notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo) }, errors };
}
