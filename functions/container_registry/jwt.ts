// Registry tokens (Auth::ContainerRegistryAuthenticationService#authorized_token): JWTs signed with
// the instance's ES256 key (WebCrypto), made on first use and kept in `container_registry_keys`.
// `/jwt/auth` signs them; the `/v2/` API verifies them. Differs from GitLab, which signs with an RSA
// key from its configuration for an external registry: here the one Worker is both sides.
import type { Executor } from "../kernel/db";
import * as q from "./queries";

export type RegistryAccess = { type: "repository" | "registry"; name: string; actions: string[] };
export type RegistryClaims = { iss: string; aud: string; sub: string; iat: number; nbf: number; exp: number; jti: string; access: RegistryAccess[] };

export const ISSUER = "gitlab-issuer";
export const SERVICE = "container_registry";
/** ApplicationSetting `container_registry_token_expire_delay`'s default, in minutes. */
const EXPIRE_DELAY_MINUTES = 5;

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGNATURE = { name: "ECDSA", hash: "SHA-256" } as const;

let keys: Promise<{ privateKey: CryptoKey; publicKey: CryptoKey; kid: string }> | null = null;

const b64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromB64url = (text: string) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));
const encodeJson = (value: unknown) => b64url(new TextEncoder().encode(JSON.stringify(value)));

async function loadKeys(db: Executor) {
  let stored = await q.registryKey(db);
  if (!stored) {
    const pair = (await crypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"])) as CryptoKeyPair;
    const privateJwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
    const publicJwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
    await q.insertRegistryKey(db, privateJwk, publicJwk);
    stored = (await q.registryKey(db))!;
  }
  const privateKey = await crypto.subtle.importKey("jwk", stored.privateJwk, ALGORITHM, false, ["sign"]);
  const publicKey = await crypto.subtle.importKey("jwk", stored.publicJwk, ALGORITHM, false, ["verify"]);
  const thumb = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${stored.publicJwk.x}.${stored.publicJwk.y}`)));
  return { privateKey, publicKey, kid: b64url(thumb.slice(0, 15)) };
}

/** The key pair, read (or made) once per isolate. */
function registryKeys(db: Executor) {
  if (!keys) {
    keys = loadKeys(db);
    keys.catch(() => (keys = null));
  }
  return keys;
}

/** A token for `subject` (a username, or "" for anonymous callers) granting `access`. */
export async function signToken(db: Executor, subject: string, access: RegistryAccess[]): Promise<string> {
  const { privateKey, kid } = await registryKeys(db);
  const now = Math.floor(Date.now() / 1000);
  const claims: RegistryClaims = { iss: ISSUER, aud: SERVICE, sub: subject, iat: now, nbf: now - 5, exp: now + EXPIRE_DELAY_MINUTES * 60, jti: crypto.randomUUID(), access };
  const input = `${encodeJson({ typ: "JWT", alg: "ES256", kid })}.${encodeJson(claims)}`;
  const signature = new Uint8Array(await crypto.subtle.sign(SIGNATURE, privateKey, new TextEncoder().encode(input)));
  return `${input}.${b64url(signature)}`;
}

/** The claims of a token this instance signed that is valid now, else null. */
export async function verifyToken(db: Executor, token: string): Promise<RegistryClaims | null> {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  try {
    const { publicKey } = await registryKeys(db);
    const header = JSON.parse(new TextDecoder().decode(fromB64url(parts[0]))) as { alg?: string };
    if (header.alg !== "ES256") return null;
    const ok = await crypto.subtle.verify(SIGNATURE, publicKey, fromB64url(parts[2]), new TextEncoder().encode(`${parts[0]}.${parts[1]}`));
    if (!ok) return null;
    const claims = JSON.parse(new TextDecoder().decode(fromB64url(parts[1]))) as RegistryClaims;
    const now = Math.floor(Date.now() / 1000);
    if (claims.iss !== ISSUER || claims.aud !== SERVICE || !(claims.exp > now) || !(claims.nbf <= now) || !Array.isArray(claims.access)) return null;
    return claims;
  } catch {
    return null;
  }
}
