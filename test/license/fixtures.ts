/** A key pair made for tests only: the public half is LICENSE_PUBLIC_KEY in test/vitest.config.ts. */
const PRIVATE_KEY_PKCS8 = "MC4CAQAwBQYDK2VwBCIEIL570SjqGUMbOUg9NWmCslB+iIN4vsJmYpnioT4XxU3z";

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromB64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

/** A license as `npm run license:issue` makes it, signed with `privateKey` (the test key by default). */
export async function issueLicense(payload: Record<string, unknown>, privateKey = PRIVATE_KEY_PKCS8): Promise<string> {
  const key = await crypto.subtle.importKey("pkcs8", fromB64(privateKey), { name: "Ed25519" }, false, ["sign"]);
  const data = JSON.stringify({
    licensee: { Name: "Test Co" },
    plan: "ultimate",
    starts_at: new Date().toISOString().slice(0, 10),
    expires_at: null,
    user_limit: null,
    add_ons: {},
    ...payload,
  });
  const signature = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, key, new TextEncoder().encode(data)));
  return btoa(JSON.stringify({ data, signature: b64(signature) }));
}

/** Another key, whose licenses the instance must refuse. */
export const FOREIGN_PRIVATE_KEY = "MC4CAQAwBQYDK2VwBCIEID38se853K5J5tciPxdvpX707Rpi8rjAX1IwcJpJffGp";
