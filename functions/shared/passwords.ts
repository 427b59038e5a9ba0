/**
 * Password digests with PBKDF2-SHA256 from WebCrypto, stored as `pbkdf2$<iterations>$<salt>$<hash>`
 * (base64). Passwords are never stored or logged in clear.
 * Differs from GitLab: GitLab stores bcrypt (Devise); Workers have no bcrypt, and PBKDF2 is capped at
 * 100,000 iterations by the runtime.
 */
const ITERATIONS = 100_000;

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, ITERATIONS);
  return `pbkdf2$${ITERATIONS}$${toBase64(salt)}$${toBase64(hash)}`;
}

/** `User.random_password` (Devise.friendly_token of the maximum length): 128 URL-safe characters. */
export function randomPassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(96));
  return toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
}

/**
 * `User#valid_password?` for a digest made by `hashPassword`: false for no digest (users created
 * without a password) or one of another format. The comparison does not stop at the first difference.
 */
export async function verifyPassword(password: string, digest: string | null): Promise<boolean> {
  const parts = digest?.split("$") ?? [];
  if (parts.length !== 4 || parts[0] !== "pbkdf2") return false;
  const iterations = Number(parts[1]);
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > ITERATIONS) return false;
  let salt: Uint8Array;
  let expected: Uint8Array;
  try {
    salt = fromBase64(parts[2]);
    expected = fromBase64(parts[3]);
  } catch {
    return false;
  }
  const actual = await derive(password, salt, iterations);
  if (actual.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < actual.length; i++) diff |= actual[i] ^ expected[i];
  return diff === 0;
}
