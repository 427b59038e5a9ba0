/**
 * Edgeforge licenses: `base64(JSON {"data": "<payload JSON>", "signature": "<base64 Ed25519 signature of data>"})`,
 * made by `npm run license:issue` (scripts/license-issue.mjs) and verified with `LICENSE_PUBLIC_KEY`.
 * Differs from GitLab: GitLab licenses are encrypted with GitLab Inc.'s key; these are signed with the instance owner's.
 */
export type LicensePayload = {
  licensee: Record<string, string>;
  plan: string;
  starts_at: string;
  expires_at: string | null;
  user_limit: number | null;
  add_ons: Record<string, number>;
};

const PLANS = ["starter", "premium", "ultimate"];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function fromBase64(text: string): Uint8Array {
  const bin = atob(text.replace(/\s+/g, ""));
  return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
}

/** The payload when the signature verifies against the configured key; null otherwise. */
export async function verifyLicense(license: string, publicKeyBase64: string | undefined): Promise<LicensePayload | null> {
  if (!publicKeyBase64) return null;
  try {
    const outer = JSON.parse(new TextDecoder().decode(fromBase64(license))) as { data?: unknown; signature?: unknown };
    if (typeof outer.data !== "string" || typeof outer.signature !== "string") return null;
    const key = await crypto.subtle.importKey("raw", fromBase64(publicKeyBase64), { name: "Ed25519" }, false, ["verify"]);
    const ok = await crypto.subtle.verify({ name: "Ed25519" }, key, fromBase64(outer.signature), new TextEncoder().encode(outer.data));
    if (!ok) return null;
    return checkPayload(JSON.parse(outer.data));
  } catch {
    return null;
  }
}

function checkPayload(value: unknown): LicensePayload | null {
  if (!value || typeof value !== "object") return null;
  const v = value as Record<string, unknown>;
  if (typeof v.plan !== "string" || !PLANS.includes(v.plan)) return null;
  if (typeof v.starts_at !== "string" || !DATE.test(v.starts_at)) return null;
  if (v.expires_at !== null && v.expires_at !== undefined && (typeof v.expires_at !== "string" || !DATE.test(v.expires_at))) return null;
  const limit = v.user_limit ?? null;
  if (limit !== null && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0)) return null;
  const licensee = v.licensee && typeof v.licensee === "object" ? (v.licensee as Record<string, string>) : {};
  const addOns = v.add_ons && typeof v.add_ons === "object" ? (v.add_ons as Record<string, number>) : {};
  return { licensee, plan: v.plan, starts_at: v.starts_at, expires_at: (v.expires_at as string | undefined) ?? null, user_limit: limit as number | null, add_ons: addOns };
}
