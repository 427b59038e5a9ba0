import { blockedReason, type GuardOptions } from "../webhooks/url_guard";
import { safeUrl } from "../../entities/remote_mirrors";

export { safeUrl };

/**
 * A mirror URL as RemoteMirror keeps it (Gitlab::UrlSanitizer): the URL without user and password, and
 * the credentials beside it. Pure; used by the routes (masking, validation) and the push (Basic auth).
 */
export type MirrorCredentials = { user?: string; password?: string };

const decode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/** `url=`: the sanitized URL and the credentials it carried (an unparsable URL is kept as sent). */
export function splitCredentials(raw: string): { url: string; credentials: MirrorCredentials } {
  let parsed: URL;
  try {
    parsed = new URL(raw.trim());
  } catch {
    return { url: raw, credentials: {} };
  }
  const credentials: MirrorCredentials = {};
  if (parsed.username) credentials.user = decode(parsed.username);
  if (parsed.password) credentials.password = decode(parsed.password);
  parsed.username = "";
  parsed.password = "";
  return { url: parsed.toString(), credentials };
}

/** The URL with its credentials put back (what the push requests; never shown). */
export function fullUrl(url: string, credentials: MirrorCredentials): string {
  try {
    const parsed = new URL(url);
    if (credentials.user) parsed.username = encodeURIComponent(credentials.user);
    if (credentials.password) parsed.password = encodeURIComponent(credentials.password);
    return parsed.toString();
  } catch {
    return url;
  }
}

/**
 * The model's `url` validations: presence, then `public_url` (schemes, local addresses per
 * `allow_local_requests_from_web_hooks_and_services`, `enforce_user`), as GitLab's messages.
 * Differs from GitLab: only http and https are accepted (ssh:// and git:// mirrors need an SSH or git
 * client, which a Worker does not have).
 */
export function urlErrors(raw: string | undefined, guard: GuardOptions): string[] {
  if (raw === undefined || raw.trim() === "") return ["can't be blank"];
  const reason = blockedReason(raw, guard);
  if (reason) return [`is blocked: ${reason}`];
  const user = splitCredentials(raw).credentials.user;
  if (user !== undefined && !/^[\p{L}\p{N}]/u.test(user)) return ["is blocked: Username needs to start with an alphanumeric character"];
  return [];
}

/** Hides the credentials in a message that may quote them (Gitlab::UrlSanitizer.sanitize of last_error). */
export function scrub(message: string, credentials: MirrorCredentials): string {
  // The messages this server writes name only the masked URL; a remote's own text might echo the password.
  return credentials.password ? message.split(credentials.password).join("*****") : message;
}
