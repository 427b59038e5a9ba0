import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { MiddlewareHandler } from "hono";
import { actorForUser } from "../kernel/auth";
import type { AppEnv, Ctx } from "../kernel/env";
import { ApiError } from "../kernel/errors";
import { rawParams } from "../kernel/params";
import { baseUrl } from "../kernel/present";
import * as q from "./queries";

/**
 * Web sessions and CSRF (functions/web). The session cookie holds 32 random bytes; Postgres keeps
 * only their SHA-256 (`web_sessions.session_digest`). A signed-in page sets `c.var.actor` as the API's
 * `authenticate` would for that user with an `api` token, so pages read through the same finders and
 * abilities: what the API hides, the page hides.
 *
 * CSRF: every form carries `authenticity_token` (Rails' name), a digest of the session's secret (or,
 * before sign-in, of a random cookie of its own); `requireCsrf` refuses a POST without the right one
 * with 422, as Rails' `InvalidAuthenticityToken` does.
 */
export const SESSION_COOKIE = "_edgeforge_session";
const CSRF_COOKIE = "_edgeforge_csrf";

type WebState = { seed: string | null; sessionSecret: string | null };
const states = new WeakMap<Request, WebState>();

function state(c: Ctx): WebState {
  let found = states.get(c.req.raw);
  if (!found) {
    found = { seed: null, sessionSecret: null };
    states.set(c.req.raw, found);
  }
  return found;
}

/**
 * The three cookie operations the session needs, by hand: hono/cookie (with signed-cookie crypto
 * this does not use) costs about 2 KiB gzip of the Worker's bundle. Values here are base64url, never
 * needing quoting or escaping.
 */
function getCookie(c: Ctx, name: string): string | undefined {
  for (const part of (c.req.header("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

type CookieOptions = { secure: boolean; maxAge?: number };

function setCookie(c: Ctx, name: string, value: string, opts: CookieOptions) {
  const attributes = ["Path=/", "HttpOnly", "SameSite=Lax", ...(opts.secure ? ["Secure"] : []), ...(opts.maxAge !== undefined ? [`Max-Age=${opts.maxAge}`] : [])];
  c.header("Set-Cookie", [`${name}=${value}`, ...attributes].join("; "), { append: true });
}

function deleteCookie(c: Ctx, name: string) {
  setCookie(c, name, "", { secure: false, maxAge: 0 });
}

const digestHex = (value: string) => bytesToHex(sha256(utf8ToBytes(value)));

function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Cookies are `Secure` when the instance is reached over HTTPS (its request, or `EXTERNAL_URL`). */
function cookieOptions(c: Ctx, maxAge?: number): CookieOptions {
  const secure = new URL(c.req.url).protocol === "https:" || baseUrl(c).startsWith("https:");
  return { secure, ...(maxAge ? { maxAge } : {}) };
}

/** The request's address as the rest of the API reads it (`CF-Connecting-IP`, else `X-Forwarded-For`). */
export function clientIp(c: Ctx): string | null {
  return c.req.header("cf-connecting-ip") ?? c.req.header("x-forwarded-for")?.split(",")[0].trim() ?? null;
}

/**
 * Middleware of every web page: reads the session cookie and sets `c.var.actor` for its user (one
 * statement, none without a cookie). Users who could not use the API (blocked, banned, deactivated,
 * locked) have no session: the cookie is cleared and the page is anonymous.
 */
export const webSession: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("actor", null);
  const secret = getCookie(c, SESSION_COOKIE);
  if (secret) {
    const found = await q.sessionUser(c.var.db(), digestHex(secret));
    const user = found?.user;
    const locked = user?.lockedAt && Date.now() - new Date(user.lockedAt).getTime() < q.UNLOCK_IN_MS;
    if (user && user.state === "active" && !locked) {
      c.set("actor", actorForUser(user));
      state(c).sessionSecret = secret;
      state(c).seed = secret;
    } else {
      deleteCookie(c, SESSION_COOKIE);
    }
  }
  if (!state(c).seed) state(c).seed = getCookie(c, CSRF_COOKIE) ?? null;
  await next();
};

/**
 * The CSRF token of the page's forms. Before sign-in, the first form gives the visitor a random
 * `_edgeforge_csrf` cookie (HttpOnly, SameSite=Lax) and the token is derived from it.
 */
export function csrfToken(c: Ctx): string {
  const s = state(c);
  if (!s.seed) {
    s.seed = randomSecret();
    setCookie(c, CSRF_COOKIE, s.seed, cookieOptions(c));
  }
  return digestHex(`csrf:${s.seed}`);
}

function sameToken(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Rails' `ActionController::InvalidAuthenticityToken`: 422 (rendered as an HTML page by the web router). */
export class InvalidAuthenticityToken extends ApiError {
  constructor() {
    super(422, { message: "422 Unprocessable Entity" });
  }
}

/**
 * Middleware of every web POST: the form's `authenticity_token` (or an `X-CSRF-Token` header) must be
 * the token of this visitor's session or CSRF cookie; otherwise 422 and nothing runs.
 */
export const requireCsrf: MiddlewareHandler<AppEnv> = async (c, next) => {
  const seed = state(c).seed;
  const raw = await rawParams(c);
  const sent = c.req.header("x-csrf-token") ?? (typeof raw.authenticity_token === "string" ? raw.authenticity_token : "");
  if (!seed || !sent || !sameToken(sent, digestHex(`csrf:${seed}`))) throw new InvalidAuthenticityToken();
  await next();
};

export type SignInResult = { ok: true } | { ok: false; alert: string };

const INVALID = "Invalid login or password.";

/**
 * Devise's database authentication with lockable (GitLab: 10 attempts, unlocked after 10 minutes):
 * a locked account is refused whatever the password, and its attempts stop counting; an expired lock
 * is lifted before the password is checked. On success the session starts (its cookie is set).
 */
export async function signIn(c: Ctx, login: string, password: string, verify: (password: string, digest: string | null) => Promise<boolean>): Promise<SignInResult> {
  const db = c.var.db();
  const user = login ? await q.findUserByLogin(db, login) : null;
  if (!user) return { ok: false, alert: INVALID };
  if (user.lockedAt) {
    if (Date.now() - new Date(user.lockedAt).getTime() < q.UNLOCK_IN_MS) return { ok: false, alert: "Your account is locked." };
    await q.unlockUser(db, user.id);
  }
  if (!(await verify(password, user.encryptedPassword))) {
    const after = await q.recordFailedAttempt(db, user.id);
    return { ok: false, alert: after.lockedAt ? "Your account is locked." : INVALID };
  }
  if (user.state === "blocked" || user.state === "banned") {
    return { ok: false, alert: "Your account has been blocked. Please contact your GitLab administrator if you think this is an error." };
  }
  const secret = randomSecret();
  await q.startSession(db, user, { sessionDigest: digestHex(secret), ip: clientIp(c), userAgent: c.req.header("user-agent") ?? null });
  setCookie(c, SESSION_COOKIE, secret, cookieOptions(c, q.SESSION_TTL_MS / 1000));
  deleteCookie(c, CSRF_COOKIE);
  state(c).seed = secret;
  state(c).sessionSecret = secret;
  return { ok: true };
}

/** Sign-out: the session row goes, and its cookie. */
export async function signOut(c: Ctx): Promise<void> {
  const secret = state(c).sessionSecret;
  if (secret) await q.deleteSession(c.var.db(), digestHex(secret));
  deleteCookie(c, SESSION_COOKIE);
  state(c).seed = null;
  state(c).sessionSecret = null;
}
